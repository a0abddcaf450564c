#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "fleetsim/report/event_writer.hpp"
#include "fleetsim/report/json_writer.hpp"
#include "fleetsim/report/number_format.hpp"
#include "fleetsim/report/openmetrics_writer.hpp"
#include "fleetsim/report/report_json.hpp"
#include "fleetsim/report/summary.hpp"
#include "fleetsim/report/timeseries_writer.hpp"
#include "unit/runner/recorder_world.hpp"
#include "unit/scheduling/builders.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// A small run touching every kind of line: launch, pods, an interval, eviction, termination.
// `sinks` see it as the world would show it; the recorder among them, if any, is ended.
void play(std::vector<EventSink*> sinks) {
  RecorderWorld w(std::move(sinks));
  WorkloadId train = w.workload("train", WorkloadKind::Job);
  NodeId n = w.node({.name = "ip-10-0-0-1",
                     .nodepool = "gpu",
                     .instance_type = "g5.xlarge",
                     .capacity_type = CapacityType::Spot,
                     .zone = "us-east-1b",
                     .price = 0.4512,
                     .ebs_price = 0.01,
                     .gpus = 1});
  PodId p = w.pod({.name = "train-0", .workload = train, .gpus = 1});
  PodId q = w.pod({.name = "train-1", .workload = train, .gpus = 1});
  w.create(0, p);
  w.create(0, q);
  w.nominate(1.5, p, n);
  w.unschedulable(1.5, q, "all available instance types exceed limits for nodepool: \"gpu\"");
  w.launch(2.5, n);
  w.ready(72.000001, n);
  w.bind(72.000001, p, n);
  w.interval(at(seconds(120)));
  w.emit({.time = at(seconds(130)), .kind = EventKind::SpotInterruptionNotice, .node = n});
  w.evict(130, p, NodeDeletionReason::SpotInterruption);
  w.terminate(250, n, NodeDeletionReason::SpotInterruption);
  w.interval(at(seconds(300)));
  w.end(at(seconds(300)));
}

// The recorder's result for play().
RunResult played(std::uint64_t engine_events = 0) {
  RunRecorder rec(run_info(), kPricesOnNodes);
  play({&rec});
  return rec.result(engine_events);
}

}  // namespace

TEST_CASE("events.jsonl lines have fixed keys in the contract's order", "[report]") {
  std::ostringstream events;
  EventWriter writer(events);
  play({&writer});
  const std::vector<std::string> expected{
      R"({"t":0.0,"kind":"pod_created","pod":"train-0","workload":"train"})",
      R"({"t":0.0,"kind":"pod_created","pod":"train-1","workload":"train"})",
      R"({"t":1.5,"kind":"pod_nominated","pod":"train-0","workload":"train","node":"ip-10-0-0-1"})",
      R"({"t":1.5,"kind":"pod_unschedulable","pod":"train-1","workload":"train","reason":"all available instance types exceed limits for nodepool: \"gpu\""})",
      R"({"t":2.5,"kind":"node_launched","node":"ip-10-0-0-1","nodepool":"gpu","instance_type":"g5.xlarge","capacity_type":"spot","zone":"us-east-1b","price_usd_per_hour":0.4512})",
      R"({"t":72.000001,"kind":"node_ready","node":"ip-10-0-0-1","nodepool":"gpu","instance_type":"g5.xlarge","capacity_type":"spot","zone":"us-east-1b"})",
      R"({"t":72.000001,"kind":"pod_scheduled","pod":"train-0","workload":"train","node":"ip-10-0-0-1"})",
      R"({"t":130.0,"kind":"spot_interruption_notice","node":"ip-10-0-0-1","nodepool":"gpu","instance_type":"g5.xlarge","capacity_type":"spot","zone":"us-east-1b"})",
      R"({"t":130.0,"kind":"pod_evicted","pod":"train-0","workload":"train","node":"ip-10-0-0-1","reason":"spot_interruption"})",
      R"({"t":250.0,"kind":"node_terminated","node":"ip-10-0-0-1","nodepool":"gpu","instance_type":"g5.xlarge","capacity_type":"spot","zone":"us-east-1b","reason":"spot_interruption"})",
  };
  const std::vector<std::string> got = lines_of(events.str());
  REQUIRE(got.size() == expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("line " << i + 1);
    CHECK(got[i] == expected[i]);
    // Every line is valid JSON that parses back to the same bytes.
    CHECK(dump_json(nlohmann::ordered_json::parse(got[i]), -1) == got[i]);
  }
}

TEST_CASE("timeseries.csv has a header and one row per interval", "[report]") {
  std::ostringstream csv;
  TimeseriesWriter writer(csv);
  RunRecorder rec(run_info({"cpu", "gpu"}), kPricesOnNodes, {&writer});
  play({&rec});
  const std::vector<std::string> got = lines_of(csv.str());
  REQUIRE(got.size() == 3);
  CHECK(got[0] ==
        "t_s,nodes,nodes_on_demand,nodes_spot,gpus_provisioned,gpus_allocated,gpus_busy,"
        "cost_rate_usd_per_hour,cost_usd_cumulative,pods_pending,pods_running,nodes_pool_cpu,"
        "nodes_pool_gpu,cost_rate_pool_cpu_usd_per_hour,cost_rate_pool_gpu_usd_per_hour");
  // Billed from the launch at 2.5 s at $0.4612/h (instance and EBS): 117.5 s by t = 120 is
  // $0.015053, and the 247.5 s to the termination at 250 s are $0.031708.
  CHECK(got[1] == "120,1,0,1,1,1,1,0.4612,0.015053,1,1,0,1,0,0.4612");
  CHECK(got[2] == "300,0,0,0,0,0,0,0,0.031708,1,0,0,0,0,0");
}

TEST_CASE("the same events give byte-identical outputs", "[report]") {
  auto run = [] {
    std::ostringstream events, csv;
    EventWriter event_writer(events);
    TimeseriesWriter timeseries_writer(csv);
    RunRecorder rec(run_info(), kPricesOnNodes, {&timeseries_writer});
    play({&rec, &event_writer});
    return events.str() + csv.str() + report_json_text(rec.result(42));
  };
  const std::string first = run();
  CHECK(run() == first);
  CHECK(!first.empty());
}

TEST_CASE("numbers print in fixed notation with at most six decimals", "[report]") {
  auto dec = [](double x, bool keep_point) {
    std::string s;
    append_decimal(s, x, keep_point);
    return s;
  };
  CHECK(dec(60.0, true) == "60.0");
  CHECK(dec(60.0, false) == "60");
  CHECK(dec(0.000001, false) == "0.000001");
  CHECK(dec(0.0000004, true) == "0.0");
  CHECK(dec(-0.0000004, false) == "0");
  CHECK(dec(1.23456789, false) == "1.234568");
  CHECK(dec(1e12, false) == "1000000000000");
  CHECK(round_report(0.1 + 0.2) == 0.3);

  std::string t;
  append_seconds(t, at(micros(12'500'000)), true);
  CHECK(t == "12.5");
  t.clear();
  append_seconds(t, at(micros(1)), false);
  CHECK(t == "0.000001");

  std::string j;
  append_json_string(j, "a\"b\\c\nd\x01");
  CHECK(j == R"("a\"b\\c\nd\u0001")");
  // Issue 13, class 8: valid UTF-8 is kept; an invalid byte (a stray continuation, a truncated
  // sequence, an overlong form, a surrogate) becomes U+FFFD, so the output stays valid JSON.
  j.clear();
  append_json_string(j, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80");
  CHECK(j == "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80\"");
  j.clear();
  append_json_string(j, "\xff\xfe|\xc3|\xc0\xaf|\xed\xa0\x80");
  CHECK(j == R"("\ufffd\ufffd|\ufffd|\ufffd\ufffd|\ufffd\ufffd\ufffd")");
}

TEST_CASE("the terminal summary is an aligned table of the headline numbers", "[report]") {
  const std::string s = format_summary(played());
  INFO(s);
  CHECK(s.find("fleetsim: unit (seed 7, 1h0m0s from 2024-01-01T00:00:00Z)\n") == 0);
  CHECK(s.find("  cost total                $0.03\n") != std::string::npos);
  CHECK(s.find("    on-demand / spot / EBS  $0.00 / $0.03 / $0.00\n") != std::string::npos);
  CHECK(s.find("    by nodepool             gpu  $0.03\n") != std::string::npos);
  CHECK(s.find("  nodes launched / peak     1 / 1\n") != std::string::npos);
  CHECK(s.find("  unschedulable pods        1  (first: all available instance types") !=
        std::string::npos);
}

TEST_CASE("the summary lists the five costliest NodePools", "[report]") {
  RunResult r;
  r.cost.by_nodepool = {{"a", 1.0}, {"b", 6.0}, {"c", 3.0}, {"d", 4.0}, {"e", 5.0}, {"f", 2.0}};
  const std::string s = format_summary(r);
  INFO(s);
  CHECK(s.find("b  $6.00") < s.find("e  $5.00"));
  CHECK(s.find("f  $2.00") != std::string::npos);
  CHECK(s.find("a  $1.00") == std::string::npos);
}

TEST_CASE("dump_json lays out like nlohmann but prints doubles with six decimals at most",
          "[report]") {
  nlohmann::ordered_json j;
  j["z"] = 1;
  j["a"] = nlohmann::ordered_json::array({1.5, "x", true, nullptr});
  j["empty"] = nlohmann::ordered_json::object();
  j["none"] = nlohmann::ordered_json::array();
  j["u"] = std::uint64_t{18446744073709551615ULL};
  j["neg"] = -3;
  j["nested"]["k"] = 60.0;
  CHECK(dump_json(j) == j.dump(2));
  CHECK(dump_json(j, -1) == j.dump());
  CHECK(dump_json(j, 4) == j.dump(4));

  // nlohmann's Grisu2 prints this double (the nearest to 1.655806) as 1.6558059999999999.
  const nlohmann::ordered_json x = round_report(1.6558059999);
  CHECK(dump_json(x) == "1.655806");
  CHECK(dump_json(nlohmann::ordered_json(std::nan(""))) == "null");
}

TEST_CASE(
    "timeseries.csv's service columns: counts per interval, an empty p99 without "
    "completions, names without '/'",
    "[report]") {
  std::ostringstream csv;
  TimeseriesWriter writer(csv);
  const std::vector<std::string> pools{"gpu"}, services{"serving/llm"};
  writer.on_columns(pools, services);
  const std::vector<std::int64_t> nodes{1};
  const std::vector<double> rates{1.212};
  std::vector<ServiceIntervalRow> rows(1);
  rows[0] = {
      .rps = 0.5, .requests = 30, .misses = 2, .dropped = 1, .replicas = 2, .ready = 1, .queue = 4};
  writer.on_row({.t = at(seconds(60)),
                 .cost_rate_usd_per_hour = 1.212,
                 .cost_usd_cumulative = 0.0202,
                 .nodes_by_pool = nodes,
                 .cost_rate_by_pool = rates,
                 .services = rows});
  rows[0].p99_ms = 812.5;
  rows[0].kv_cache_usage = 0.375;  // an engine service's mean KV-cache use; empty above
  writer.on_row({.t = at(seconds(120)),
                 .nodes_by_pool = nodes,
                 .cost_rate_by_pool = rates,
                 .services = rows});
  const std::vector<std::string> got = lines_of(csv.str());
  REQUIRE(got.size() == 3);
  CHECK_THAT(got[0], Catch::EndsWith(
                         ",nodes_pool_gpu,cost_rate_pool_gpu_usd_per_hour,svc_serving.llm_rps,"
                         "svc_serving.llm_replicas,svc_serving.llm_ready,svc_serving.llm_queue,"
                         "svc_serving.llm_p99_ms,svc_serving.llm_requests,svc_serving.llm_misses,"
                         "svc_serving.llm_dropped,svc_serving.llm_kv_cache_usage"));
  CHECK(got[1] == "60,0,0,0,0,0,0,1.212,0.0202,0,0,1,1.212,0.5,2,1,4,,30,2,1,");
  CHECK(got[2] == "120,0,0,0,0,0,0,0,0,0,0,1,1.212,0.5,2,1,4,812.5,30,2,1,0.375");
}

TEST_CASE("events.jsonl: a capacity change names its offering, null for unlimited", "[report]") {
  std::ostringstream events;
  EventWriter writer(events);
  Cluster cluster;
  writer.on_event(SimEvent{.time = at(seconds(90)),
                           .kind = EventKind::CapacityChanged,
                           .instance_type = "g5.xlarge",
                           .zone = "us-east-1a",
                           .capacity_type = CapacityType::Spot,
                           .capacity = 0},
                  cluster);
  writer.on_event(SimEvent{.time = at(seconds(120)),
                           .kind = EventKind::CapacityChanged,
                           .instance_type = "g5.xlarge",
                           .zone = "us-east-1b",
                           .capacity_type = CapacityType::OnDemand},
                  cluster);
  CHECK(events.str() ==
        "{\"t\":90.0,\"kind\":\"capacity_changed\",\"instance_type\":\"g5.xlarge\","
        "\"capacity_type\":\"spot\",\"zone\":\"us-east-1a\",\"capacity\":0}\n"
        "{\"t\":120.0,\"kind\":\"capacity_changed\",\"instance_type\":\"g5.xlarge\","
        "\"capacity_type\":\"on-demand\",\"zone\":\"us-east-1b\",\"capacity\":null}\n");
}

// A family without samples (no NodePool with limits, no pods) is written as its HELP and TYPE
// lines alone, and the stream stays good: streaming an empty spool used to set failbit, which
// `fleetsim run --metrics-out` reported as "cannot write this file".
TEST_CASE("OpenMetrics families without samples leave the stream good", "[report]") {
  const Catalog catalog;
  const std::filesystem::path spool =
      std::filesystem::temp_directory_path() / ("fleetsim-om-spool-" + std::to_string(::getpid()));
  std::ostringstream out;
  {
    OpenMetricsWriter writer(spool, 0, {}, catalog);
    writer.finish(out);
  }
  CHECK(out.good());
  CHECK(out.str().ends_with("# EOF\n"));
  CHECK(out.str().find("# TYPE karpenter_nodepools_limit gauge\n") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(spool));
}

// EKS Auto Mode bills its fee per instance-hour on top of EC2: the cost rate Prometheus sees
// counts it, as timeseries.csv's does.
TEST_CASE("the OpenMetrics cost rate counts EKS Auto Mode's fee", "[report]") {
  const Catalog catalog({test::make_type({.name = "m5.large", .vcpu = 2, .memory_gib = 8})},
                        "test");
  const std::vector<double> fee{0.25};
  const std::filesystem::path spool =
      std::filesystem::temp_directory_path() / ("fleetsim-om-fee-" + std::to_string(::getpid()));
  std::ostringstream out;
  {
    OpenMetricsWriter writer(spool, 0, {}, catalog, fee);
    test::RecorderWorld w(writer);
    const NodeId n = w.node({.instance_type = "m5.large", .price = 1.0, .ebs_price = 0.5});
    w.launch(0, n);
    writer.on_interval(at(seconds(60)), w.cluster);
    writer.finish(out);
  }
  CHECK(out.str().find("\nfleetsim_cost_usd_per_hour{} 1.75 60\n") != std::string::npos);
}

// The engine model's KV-cache gauge under both of vLLM's names, as scraped.
TEST_CASE("OpenMetrics carries a pod's KV-cache use and its engine's waiting requests",
          "[report]") {
  const Catalog catalog;
  const std::filesystem::path spool =
      std::filesystem::temp_directory_path() / ("fleetsim-om-kv-" + std::to_string(::getpid()));
  std::ostringstream out;
  {
    OpenMetricsWriter writer(spool, 0, {}, catalog);
    const LabelSet labels{{"namespace", "ml"}, {"pod", "llm-0"}, {"model_name", "llm"}};
    writer.on_sample("vllm:gpu_cache_usage_perc", labels, at(seconds(15)), 0.625);
    writer.on_sample("vllm:kv_cache_usage_perc", labels, at(seconds(15)), 0.625);
    writer.on_sample("vllm:num_requests_waiting", labels, at(seconds(15)), 7);
    test::RecorderWorld w(writer);
    writer.on_interval(at(seconds(60)), w.cluster);
    writer.finish(out);
  }
  const std::string s = out.str();
  INFO(s);
  CHECK(s.find("# TYPE vllm:gpu_cache_usage_perc gauge\n"
               "vllm:gpu_cache_usage_perc{namespace=\"ml\",pod=\"llm-0\",model_name=\"llm\"} "
               "0.625 60\n") != std::string::npos);
  CHECK(s.find("\nvllm:kv_cache_usage_perc{namespace=\"ml\",pod=\"llm-0\",model_name=\"llm\"} "
               "0.625 60\n") != std::string::npos);
  CHECK(s.find("\nvllm:num_requests_waiting{namespace=\"ml\",pod=\"llm-0\",model_name=\"llm\"} "
               "7 60\n") != std::string::npos);
}
