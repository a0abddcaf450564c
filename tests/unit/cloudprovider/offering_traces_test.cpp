// The market's recorded traces (issue 9): spot availability (capacity that goes and comes back
// at the trace's times, running instances interrupted when it goes), prices and capacities.
#include "fleetsim/cloudprovider/aws/offering_traces.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fleetsim/catalog/catalog_loader.hpp"
#include "fleetsim/cloudprovider/aws/spot_market.hpp"
#include "unit/cloudprovider/cloud_rig.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

struct TraceFile {
  explicit TraceFile(const std::string& text)
      : path(std::filesystem::temp_directory_path() /
             ("fleetsim-availability-" + std::to_string(::getpid()) + ".csv")) {
    std::ofstream(path) << text;
  }
  ~TraceFile() { std::filesystem::remove(path); }
  std::filesystem::path path;
};

template <typename Reader>
std::string trace_error(const std::string& text, const Catalog& catalog, Reader read) {
  TraceFile f(text);
  try {
    read(f.path, catalog);
  } catch (const InputError& e) {
    const std::string what = e.what();
    return what.substr(what.find(".csv:") + 5);
  }
  return "no error";
}

std::string trace_error(const std::string& text, const Catalog& catalog) {
  return trace_error(text, catalog, read_availability_trace);
}

SpotMarketSettings replay_only(std::vector<AvailabilityChange> changes) {
  SpotMarketSettings s;
  s.rate.reset();
  s.availability = std::move(changes);
  return s;
}

}  // namespace

TEST_CASE("an availability trace reads into changes of spot offerings", "[cloudprovider][spot]") {
  CloudRig rig;
  TraceFile f(
      "time_s,instance_type,zone,available\n0,m5.large,us-east-1a,1\n600,m5.large,"
      "us-east-1a,0\n600,m5.xlarge,us-east-1a,0\n1200.5,m5.large,us-east-1a,16\n");
  const std::vector<AvailabilityChange> changes = read_availability_trace(f.path, rig.catalog);
  const std::uint32_t large = rig.global("m5.large", CapacityType::Spot);
  const std::uint32_t xlarge = rig.global("m5.xlarge", CapacityType::Spot);
  CHECK(changes == std::vector<AvailabilityChange>{{seconds(0), large, true, 2},
                                                   {seconds(600), large, false, 3},
                                                   {seconds(600), xlarge, false, 4},
                                                   {millis(1'200'500), large, true, 5}});
}

TEST_CASE("a malformed availability trace names the line and column", "[cloudprovider][spot]") {
  CloudRig rig;
  const std::string header = "time_s,instance_type,zone,available\n";
  CHECK(trace_error(header + "60,m5.large,us-east-1a,1\n30,m5.large,us-east-1a,0\n", rig.catalog) ==
        "3:1: time_s: times must not decrease: 30 follows 60");
  CHECK(trace_error(header + "-1,m5.large,us-east-1a,1\n", rig.catalog) ==
        "2:1: time_s: must be from 0 to 315360000 (ten years), got -1");
  CHECK(trace_error(header + "0,m5.huge,us-east-1a,1\n", rig.catalog) ==
        "2:3: instance_type: instance type \"m5.huge\" is not in the catalog");
  CHECK(trace_error(header + "0,m5.large,us-east-1b,1\n", rig.catalog) ==
        "2:12: zone: m5.large has no spot offering in zone \"us-east-1b\"");
  CHECK(trace_error(header + "0,m5.large,us-east-1a,yes\n", rig.catalog)
            .starts_with("2:23: available:"));
  CHECK(trace_error("time,type\n0,m5.large\n", rig.catalog).find("time_s") != std::string::npos);
}

TEST_CASE("a price trace reads into price changes of spot offerings", "[cloudprovider][spot]") {
  CloudRig rig;
  TraceFile f(
      "time_s,instance_type,zone,price\n0,m5.large,us-east-1a,0.05\n90.25,m5.large,"
      "us-east-1a,0.061\n");
  const std::uint32_t large = rig.global("m5.large", CapacityType::Spot);
  CHECK(read_price_trace(f.path, rig.catalog) ==
        std::vector<PriceChange>{{seconds(0), large, 0.05, 2}, {millis(90'250), large, 0.061, 3}});

  const std::string header = "time_s,instance_type,zone,price\n";
  CHECK(trace_error(header + "0,m5.large,us-east-1a,0\n", rig.catalog, read_price_trace) ==
        "2:23: price: a price is above 0 and at most 1000 dollars an hour, got 0");
  CHECK(trace_error(header + "0,m5.large,us-east-1a,9600\n", rig.catalog, read_price_trace) ==
        "2:23: price: a price is above 0 and at most 1000 dollars an hour, got 9600");
  CHECK(trace_error(header + "0,m5.large,us-east-1a,$0.05\n", rig.catalog, read_price_trace)
            .starts_with("2:23: price: expected a number"));
  CHECK(trace_error(header + "60,m5.large,us-east-1a,1\n59,m5.large,us-east-1a,1\n", rig.catalog,
                    read_price_trace) == "3:1: time_s: times must not decrease: 59 follows 60");
}

TEST_CASE("a capacity trace reads counts of spot and on-demand offerings",
          "[cloudprovider][spot]") {
  CloudRig rig;
  TraceFile f(
      "time_s,instance_type,zone,capacity_type,count\n0,m5.large,us-east-1a,on-demand,3\n"
      "60,m5.large,us-east-1a,spot,unlimited\n");
  CHECK(read_capacity_trace(f.path, rig.catalog) ==
        std::vector<CapacityChange>{
            {seconds(0), rig.global("m5.large"), 3, 2},
            {seconds(60), rig.global("m5.large", CapacityType::Spot), std::nullopt, 3}});

  const std::string header = "time_s,instance_type,zone,capacity_type,count\n";
  CHECK(trace_error(header + "0,m5.large,us-east-1a,reserved,1\n", rig.catalog,
                    read_capacity_trace) ==
        "2:23: capacity_type: unknown capacity type \"reserved\"; expected spot or on-demand");
  CHECK(trace_error(header + "0,m5.large,us-east-1a,spot,-2\n", rig.catalog, read_capacity_trace)
            .starts_with("2:28: count:"));
  CHECK(trace_error("time_s,instance_type,zone,count\n0,m5.large,us-east-1a,1\n", rig.catalog,
                    read_capacity_trace)
            .find("capacity_type") != std::string::npos);
}

TEST_CASE("a replayed price trace sets the offering's price and its running instances'",
          "[cloudprovider][spot]") {
  CloudRig rig;
  const std::uint32_t large = rig.global("m5.large", CapacityType::Spot);
  const NodeId running = *rig.launch({"m5.large"}, CapacityType::Spot);
  SpotMarketSettings settings = replay_only({});
  settings.prices = {{minutes(5), large, 0.5}};
  SpotMarket market(rig.sim, rig.cluster, rig.bus, rig.cloud, settings,
                    std::vector<double>(rig.catalog.offering_count(), 0.0));
  market.start();
  rig.sim.run_until(at(minutes(5)));
  CHECK(rig.cloud.price(large) == 0.5);
  CHECK(rig.cloud.offering_prices()[large] == 0.5);
  CHECK(rig.cluster.node(running).price_per_hour == 0.5);
  const NodeId later = *rig.launch({"m5.large"}, CapacityType::Spot);
  CHECK(rig.cluster.node(later).price_per_hour == 0.5);
}

TEST_CASE("a replayed trace takes capacity away at its times and interrupts what runs",
          "[cloudprovider][spot]") {
  CloudRig rig;
  const std::uint32_t large = rig.global("m5.large", CapacityType::Spot);
  const NodeId running = *rig.launch({"m5.large"}, CapacityType::Spot);
  rig.sim.run_until(kReadyAt);
  SpotMarket market(rig.sim, rig.cluster, rig.bus, rig.cloud,
                    replay_only({{minutes(10), large, false}, {minutes(40), large, true}}),
                    std::vector<double>(rig.catalog.offering_count(), 0.0));
  market.start();

  rig.sim.run_until(at(minutes(10)));
  CHECK(rig.cloud.capacity(large) == 0);
  std::vector<RecordedEvent> notices;
  for (const RecordedEvent& e : rig.bus.events)
    if (e.kind == EventKind::SpotInterruptionNotice) notices.push_back(e);
  REQUIRE(notices.size() == 1);
  CHECK(notices[0].node == running);
  CHECK(notices[0].time == at(minutes(10)));
  // While it is gone a spot launch fails with insufficient capacity.
  CHECK_FALSE(rig.launch({"m5.large"}, CapacityType::Spot).has_value());

  rig.sim.run_until(at(minutes(40)));
  CHECK_FALSE(rig.cloud.capacity(large).has_value());  // the catalog's: unlimited
  std::vector<SimTime> changes;
  for (const RecordedEvent& e : rig.bus.events)
    if (e.kind == EventKind::CapacityChanged) changes.push_back(e.time);
  CHECK(changes == std::vector<SimTime>{at(minutes(10)), at(minutes(40))});
}

TEST_CASE("the bundled SkyPilot trace replays its unavailable intervals exactly",
          "[cloudprovider][spot]") {
  const std::filesystem::path root(FLEETSIM_SOURCE_DIR);
  const Catalog catalog = load_catalog(root / "instance-catalog/aws/us-east-1");
  const std::vector<AvailabilityChange> trace =
      read_availability_trace(root / "scenarios/traces/spot-availability-p3.2xlarge.csv", catalog);
  REQUIRE(trace.size() == 127);

  Simulation sim(1);
  Cluster cluster;
  RecordingBus bus;
  Ec2Cloud cloud(sim, cluster, bus, catalog,
                 std::vector<NodeLatency>(catalog.types().size(), kLatency));
  SpotMarket market(sim, cluster, bus, cloud, replay_only(trace),
                    std::vector<double>(catalog.offering_count(), 0.0));
  market.start();
  sim.run_until(at(hours(7 * 24)));
  // Every row, in order: at its time, its zone's p3.2xlarge spot capacity goes to 0 or back to
  // unlimited, so each unavailable interval starts and ends where the trace says.
  std::vector<const RecordedEvent*> replayed;
  for (const RecordedEvent& e : bus.events)
    if (e.kind == EventKind::CapacityChanged) replayed.push_back(&e);
  REQUIRE(replayed.size() == trace.size());
  for (std::size_t i = 0; i < trace.size(); ++i) {
    CHECK(replayed[i]->time == at(trace[i].at));
    CHECK(replayed[i]->zone == catalog.offering(trace[i].offering).zone);
    CHECK(replayed[i]->capacity ==
          (trace[i].available ? std::nullopt : std::optional<std::int64_t>(0)));
  }
}
