#include <catch2/catch.hpp>

#include "unit/runner/recorder_world.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

// Keeps what a TimeseriesSink is given (the spans are copied: they live only for the call).
struct RowLog final : TimeseriesSink {
  struct Row {
    TimeseriesRow row;
    std::vector<std::int64_t> nodes_by_pool;
  };
  std::vector<std::string> pools, services;
  int columns_calls = 0;
  std::vector<Row> rows;

  void on_columns(std::span<const std::string> p, std::span<const std::string> s) override {
    ++columns_calls;
    pools.assign(p.begin(), p.end());
    services.assign(s.begin(), s.end());
  }
  void on_row(const TimeseriesRow& row) override {
    rows.push_back({row, {row.nodes_by_pool.begin(), row.nodes_by_pool.end()}});
  }
};

}  // namespace

TEST_CASE("time series sinks get the columns at once and a row per interval", "[runner]") {
  RowLog log;
  RunRecorder rec(run_info({"cpu", "gpu"}), kPricesOnNodes, {&log});
  CHECK(log.columns_calls == 1);
  CHECK(log.pools == std::vector<std::string>{"cpu", "gpu"});
  CHECK(log.services.empty());

  RecorderWorld w(rec);
  WorkloadId train = w.workload("train", WorkloadKind::Job);
  NodeId n =
      w.node({.capacity_type = CapacityType::Spot, .price = 0.45, .ebs_price = 0.01, .gpus = 4});
  PodId p = w.pod({.name = "train-0", .workload = train, .gpus = 2});
  PodId q = w.pod({.name = "train-1", .workload = train, .gpus = 8});
  w.create(0, p);
  w.create(0, q);
  w.launch(2, n);
  w.interval(at(seconds(60)));
  w.bind(70, p, n);
  w.interval(at(seconds(120)));
  w.terminate(150, n, NodeDeletionReason::SpotInterruption);
  w.interval(at(seconds(180)));
  w.end(at(seconds(180)));

  REQUIRE(log.rows.size() == 3);
  const TimeseriesRow& first = log.rows[0].row;
  CHECK(first.t == at(seconds(60)));
  CHECK(first.nodes == 1);
  CHECK(first.nodes_spot == 1);
  CHECK(first.nodes_on_demand == 0);
  CHECK(first.gpus_provisioned == 4);
  CHECK(first.gpus_allocated == 0);
  CHECK(first.pods_pending == 2);
  CHECK(log.rows[0].nodes_by_pool == std::vector<std::int64_t>{0, 1});

  const TimeseriesRow& second = log.rows[1].row;
  CHECK(second.gpus_allocated == 2);
  CHECK(second.gpus_busy == 2.0);  // a Job's GPUs are busy while bound
  CHECK(second.cost_rate_usd_per_hour == Approx(0.46));
  CHECK(second.pods_pending == 1);
  CHECK(second.pods_running == 1);

  CHECK(log.rows[2].row.nodes == 0);
  CHECK(log.rows[2].nodes_by_pool == std::vector<std::int64_t>{0, 0});
  CHECK(log.columns_calls == 1);
}
