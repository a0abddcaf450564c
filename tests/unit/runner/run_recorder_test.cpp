#include <fmt/format.h>

#include <catch2/catch.hpp>

#include "unit/runner/recorder_world.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

using Usd = std::map<std::string, double>;
using Counts = CountByReason;

}  // namespace

TEST_CASE("an empty run gives zeros and the run's own figures", "[runner]") {
  RunRecorder rec(run_info(), kPricesOnNodes);
  RecorderWorld w(rec);
  w.end(at(hours(1)));
  const RunResult r = rec.result(1234);
  CHECK(r.scenario == "unit");
  CHECK(r.seed == 7);
  CHECK(r.duration == hours(1));
  CHECK(r.engine.events == 1234);
  CHECK(r.cost.total_usd == 0.0);
  CHECK(rounded(r.cost.by_workload) == Usd{{"(unallocated)", 0.0}});
  CHECK(r.gpu.allocation_ratio == 0.0);
  CHECK(r.pods.pending_seconds.p99 == 0.0);
  CHECK(r.sla.by_service.empty());
  CHECK(r.disruption->commands_by_method.empty());
  CHECK(r.disruption->nodes_by_reason.empty());
  CHECK(!r.spot);
}

TEST_CASE("a node that lives 30 s is billed the 60-second minimum, EBS has no minimum",
          "[runner]") {
  RunRecorder rec(run_info(), kPricesOnNodes);
  RecorderWorld w(rec);
  // $3.60/h is $0.001 a second; EBS $0.36/h is $0.0001 a second.
  NodeId n = w.node({.price = 3.6, .ebs_price = 0.36});
  w.launch(100, n);
  w.terminate(130, n, NodeDeletionReason::Empty);
  w.end(at(hours(1)));
  const RunResult r = rec.result(0);
  CHECK(rounded(r.cost.on_demand_usd) == 0.06);  // 60 s, not 30 s
  CHECK(rounded(r.cost.ebs_usd) == 0.003);       // 30 s
  CHECK(rounded(r.cost.total_usd) == 0.063);
  CHECK(rounded(r.cost.by_workload) == Usd{{"(unallocated)", 0.063}});
  CHECK(r.nodes.terminated_by_reason == Counts{{NodeDeletionReason::Empty, 1}});
}

TEST_CASE("instance cost splits by capacity type, pool, type and capacity type include EBS",
          "[runner]") {
  RunRecorder rec(run_info({"gpu", "spot-gpu"}), kPricesOnNodes);
  RecorderWorld w(rec);
  NodeId a = w.node({.name = "a",
                     .nodepool = "gpu",
                     .instance_type = "g5.xlarge",
                     .price = 1.2,
                     .ebs_price = 0.1});
  NodeId b = w.node({.name = "b",
                     .nodepool = "spot-gpu",
                     .instance_type = "g5.2xlarge",
                     .capacity_type = CapacityType::Spot,
                     .price = 0.6});
  w.launch(0, a);
  w.launch(0, b);
  w.terminate(1800, b, NodeDeletionReason::SpotInterruption);
  w.end(at(hours(1)));  // a is billed until the end
  const RunResult r = rec.result(0);
  CHECK(rounded(r.cost.on_demand_usd) == 1.2);
  CHECK(rounded(r.cost.spot_usd) == 0.3);
  CHECK(rounded(r.cost.ebs_usd) == 0.1);
  CHECK(rounded(r.cost.total_usd) == 1.6);
  CHECK(rounded(r.cost.by_nodepool) == Usd{{"gpu", 1.3}, {"spot-gpu", 0.3}});
  CHECK(rounded(r.cost.by_instance_type) == Usd{{"g5.2xlarge", 0.3}, {"g5.xlarge", 1.3}});
  CHECK(rounded(r.cost.by_capacity_type) == Usd{{"on-demand", 1.3}, {"spot", 0.3}});
  CHECK(r.nodes.launched == 2);
  CHECK(r.nodes.peak == 2);
  CHECK(r.nodes.terminated_by_reason == Counts{{NodeDeletionReason::SpotInterruption, 1}});
}

TEST_CASE("a GPU node's cost splits by the GPUs each workload requested", "[runner]") {
  RunRecorder rec(run_info(), kPricesOnNodes);
  RecorderWorld w(rec);
  WorkloadId train = w.workload("train", WorkloadKind::Job);
  WorkloadId serve = w.workload("serve", WorkloadKind::Deployment);
  NodeId n = w.node({.price = 4.0, .ebs_price = 0.4, .gpus = 4});
  PodId t = w.pod({.name = "train-0", .workload = train, .gpus = 1});
  PodId s1 = w.pod({.name = "serve-a", .workload = serve, .gpus = 1});
  PodId s2 = w.pod({.name = "serve-b", .workload = serve, .gpus = 1});
  w.launch(0, n);
  w.ready(0, n);
  for (PodId p : {t, s1, s2}) w.create(0, p);
  w.bind(0, t, n);
  w.bind(0, s1, n);
  w.bind(0, s2, n);
  w.complete(1800, t);
  w.emit(
      {.time = RecorderWorld::at_s(1800), .kind = EventKind::WorkloadCompleted, .workload = train});
  w.end(at(hours(1)));
  const RunResult r = rec.result(0);

  // $4.40/h for one hour. train: 1/4 for half an hour; serve: 2/4 for the hour.
  CHECK(rounded(r.cost.by_workload) ==
        Usd{{"(unallocated)", 1.65}, {"serve", 2.2}, {"train", 0.55}});
  double sum = 0.0;
  for (const auto& [name, usd] : r.cost.by_workload) sum += usd;
  CHECK(sum == Approx(r.cost.total_usd));
  CHECK(rounded(r.cost.total_usd) == 4.4);

  CHECK(rounded(r.gpu.provisioned_gpu_hours) == 4.0);
  CHECK(rounded(r.gpu.allocated_gpu_hours) == 2.5);
  CHECK(rounded(r.gpu.busy_gpu_hours) == 0.5);  // the Job only: serving busy time comes later
  CHECK(rounded(r.gpu.allocation_ratio) == 0.625);
  CHECK(rounded(r.gpu.utilization) == 0.125);
  // Jobs count as Jobs, their pods apart (issue 12, finding 9).
  CHECK(r.jobs.completed == 1);
  CHECK(r.jobs.pods_completed == 1);
}

TEST_CASE("the minimum-billing top-up goes to (unallocated) so workloads sum to the total",
          "[runner]") {
  RunRecorder rec(run_info(), kPricesOnNodes);
  RecorderWorld w(rec);
  WorkloadId job = w.workload("job", WorkloadKind::Job);
  NodeId n = w.node({.price = 3.6, .gpus = 1});
  PodId p = w.pod({.name = "job-0", .workload = job, .gpus = 1});
  w.launch(0, n);
  w.create(0, p);
  w.bind(10, p, n);
  w.complete(20, p);
  w.terminate(30, n, NodeDeletionReason::Empty);
  w.end(at(hours(1)));
  const RunResult r = rec.result(0);
  CHECK(rounded(r.cost.total_usd) == 0.06);
  CHECK(rounded(r.cost.by_workload) == Usd{{"(unallocated)", 0.05}, {"job", 0.01}});
}

TEST_CASE("a CPU node's cost splits by the mean of the CPU and memory shares", "[runner]") {
  RunRecorder rec(run_info({"cpu"}), kPricesOnNodes);
  RecorderWorld w(rec);
  WorkloadId web = w.workload("web", WorkloadKind::Deployment);
  NodeId n = w.node({.nodepool = "cpu", .price = 0.8, .cpu_millis = 4000, .memory = 16 * kGiB});
  PodId p = w.pod({.name = "web-0", .workload = web, .cpu_millis = 1000, .memory = 8 * kGiB});
  w.launch(0, n);
  w.create(0, p);
  w.bind(0, p, n);
  w.end(at(hours(1)));
  const RunResult r = rec.result(0);
  // Share (1000/4000 + 8/16) / 2 = 0.375 of $0.80.
  CHECK(rounded(r.cost.by_workload) == Usd{{"(unallocated)", 0.5}, {"web", 0.3}});
  CHECK(r.gpu.provisioned_gpu_hours == 0.0);
  CHECK(r.gpu.utilization == 0.0);
}

TEST_CASE("pending seconds are exact nearest-rank percentiles, still-pending pods count",
          "[runner]") {
  RunRecorder rec(run_info(), kPricesOnNodes);
  RecorderWorld w(rec);
  WorkloadId job = w.workload("batch", WorkloadKind::Job);
  NodeId n = w.node({.gpus = 0, .cpu_millis = 64000, .memory = 256 * kGiB});
  w.launch(0, n);
  w.ready(0, n);
  const double waits[] = {1, 2, 3, 4, 100};
  for (int i = 0; i < 5; ++i) {
    PodId p = w.pod({.name = "batch-" + std::to_string(i), .workload = job, .created = 1000});
    w.create(1000, p);
    w.bind(1000 + waits[i], p, n);
  }
  PodId stuck = w.pod({.name = "batch-stuck", .workload = job, .gpus = 8, .created = 3400});
  w.create(3400, stuck);
  w.unschedulable(3401, stuck, "no instance type has 8 GPUs");
  w.end(at(hours(1)));
  const RunResult r = rec.result(0);
  // Sorted: 1, 2, 3, 4, 100, 200 (the stuck pod, a lower bound). p50 is rank 3, p99 rank 6;
  // percentiles come from a sketch with 1% relative error, the maximum is exact.
  CHECK(r.pods.pending_seconds.p50 == Approx(3.0).epsilon(0.01));
  CHECK(r.pods.pending_seconds.p99 == 200.0);
  CHECK(r.pods.pending_seconds.max == 200.0);
  CHECK(r.pods.created == 6);
  CHECK(r.pods.pending_at_end == 1);
  REQUIRE(r.pods.unschedulable.size() == 1);
  CHECK(r.pods.unschedulable[0].pod == "batch-stuck");
  CHECK(r.pods.unschedulable[0].workload == "batch");
  CHECK(r.pods.unschedulable[0].reason == "no instance type has 8 GPUs");
  CHECK(r.pods.unschedulable_total == 1);
}

TEST_CASE("the unschedulable list is sorted by pod name and capped", "[runner]") {
  RunRecorder rec(run_info(), kPricesOnNodes);
  RecorderWorld w(rec);
  WorkloadId job = w.workload("batch", WorkloadKind::Job);
  const int total = static_cast<int>(kMaxUnschedulableListed) + 5;
  for (int i = total - 1; i >= 0; --i) {
    PodId p = w.pod({.name = fmt::format("pod-{:03d}", i), .workload = job});
    w.create(0, p);
    w.unschedulable(0, p, i == 0 ? "first" : "other");
  }
  PodId quiet = w.pod({.name = "aaa-no-reason", .workload = job});
  w.create(0, quiet);  // pending without a reason: counted pending, not listed
  w.end(at(hours(1)));
  const RunResult r = rec.result(0);
  REQUIRE(r.pods.unschedulable.size() == kMaxUnschedulableListed);
  CHECK(r.pods.unschedulable[0].pod == "pod-000");
  CHECK(r.pods.unschedulable[0].reason == "first");
  CHECK(r.pods.unschedulable[99].pod == "pod-099");
  CHECK(r.pods.unschedulable_total == total);
  CHECK(r.pods.pending_at_end == total + 1);
}

TEST_CASE("an evicted Job pod loses its GPU-hours since binding", "[runner]") {
  RunRecorder rec(run_info(), kPricesOnNodes);
  RecorderWorld w(rec);
  WorkloadId job = w.workload("train", WorkloadKind::Job);
  WorkloadId web = w.workload("web", WorkloadKind::Deployment);
  NodeId n = w.node({.capacity_type = CapacityType::Spot, .gpus = 4});
  PodId p = w.pod({.name = "train-0", .workload = job, .gpus = 2});
  PodId d = w.pod({.name = "web-0", .workload = web, .gpus = 1});
  w.launch(0, n);
  w.ready(60, n);
  w.create(0, p);
  w.create(0, d);
  w.bind(600, p, n);
  w.bind(600, d, n);
  w.evict(2400, p, NodeDeletionReason::SpotInterruption);
  w.evict(2400, d, NodeDeletionReason::SpotInterruption);  // a Deployment pod loses no job work
  w.terminate(2520, n, NodeDeletionReason::SpotInterruption);
  w.end(at(hours(1)));
  const RunResult r = rec.result(0);
  CHECK(rounded(r.jobs.lost_gpu_hours) == 1.0);  // 2 GPUs × 30 minutes
  CHECK(r.jobs.completed == 0);
  CHECK(r.pods.evicted == 2);
  CHECK(r.pods.pending_seconds.max == 600.0);
  CHECK(rounded(r.gpu.allocated_gpu_hours) == 1.5);  // 3 GPUs × 30 minutes
}

TEST_CASE("pods kube-scheduler preempts count as preempted and not as evicted", "[runner]") {
  RunRecorder rec(run_info(), kPricesOnNodes);
  RecorderWorld w(rec);
  WorkloadId balloon = w.workload("balloon", WorkloadKind::Deployment);
  WorkloadId job = w.workload("urgent", WorkloadKind::Job);
  NodeId n = w.node({});
  PodId b1 = w.pod({.name = "balloon-a", .workload = balloon, .cpu_millis = 1500, .priority = -1});
  PodId b2 = w.pod({.name = "balloon-b", .workload = balloon, .cpu_millis = 1500, .priority = -1});
  PodId u = w.pod({.name = "urgent-0", .workload = job, .cpu_millis = 3000, .created = 600});
  w.launch(0, n);
  w.ready(0, n);
  w.create(0, b1);
  w.create(0, b2);
  w.bind(0, b1, n);
  w.bind(0, b2, n);
  w.create(600, u);
  w.preempt(600, b1, "urgent-0");
  w.preempt(600, b2, "urgent-0");
  w.leave(630, b1);
  w.leave(630, b2);
  w.bind(631, u, n);
  w.end(at(hours(1)));
  const RunResult r = rec.result(0);
  CHECK(r.pods.preempted == 2);
  CHECK(r.pods.evicted == 0);
  CHECK(r.pods.created == 3);
}

TEST_CASE("headroom is the billed time of nodes whose only pods are balloons", "[runner]") {
  RunRecorder rec(run_info(), kPricesOnNodes);
  RecorderWorld w(rec);
  WorkloadId balloon = w.workload("balloon", WorkloadKind::Deployment);
  WorkloadId web = w.workload("web", WorkloadKind::Deployment);
  WorkloadId job = w.workload("urgent", WorkloadKind::Job);
  NodeId a = w.node({.name = "a", .price = 2.0, .ebs_price = 0.2});
  NodeId b = w.node({.name = "b", .price = 1.0});
  NodeId c = w.node({.name = "c", .price = 5.0});  // empty all along: idle, not headroom
  PodId b1 = w.pod({.name = "balloon-a", .workload = balloon, .cpu_millis = 3000, .priority = -1});
  PodId b2 = w.pod({.name = "balloon-b",
                    .workload = balloon,
                    .cpu_millis = 3000,
                    .created = 1800,
                    .priority = -1});
  PodId u = w.pod({.name = "urgent-0", .workload = job, .cpu_millis = 3000, .created = 1800});
  PodId s = w.pod({.name = "web-0", .workload = web, .created = 1900});
  for (NodeId n : {a, b, c}) {
    w.launch(0, n);
    w.ready(0, n);
  }
  w.create(0, b1);
  w.bind(0, b1, a);
  // a holds only the balloon until it leaves: 1830 s at $2.20/h.
  w.create(1800, u);
  w.create(1800, b2);
  w.preempt(1800, b1, "urgent-0");
  w.leave(1830, b1);
  w.bind(1831, u, a);
  // b holds the replacement beside a priority-0 pod, then the balloon alone: 900 s at $1/h.
  w.create(1900, s);
  w.bind(1900, b2, b);
  w.bind(1900, s, b);
  w.leave(2700, s);
  w.end(at(hours(1)));
  const RunResult r = rec.result(0);
  CHECK(rounded(r.headroom.node_hours) == rounded(2730.0 / 3600));
  CHECK(rounded(r.headroom.usd) == rounded(2.2 * 1830 / 3600 + 1.0 * 900 / 3600));
  CHECK(r.pods.preempted == 1);
}

TEST_CASE("a run without balloon pods has no headroom", "[runner]") {
  RunRecorder rec(run_info(), kPricesOnNodes);
  RecorderWorld w(rec);
  WorkloadId web = w.workload("web", WorkloadKind::Deployment);
  NodeId n = w.node({});
  PodId s = w.pod({.name = "web-0", .workload = web});
  w.launch(0, n);
  w.ready(0, n);
  w.create(0, s);
  w.bind(0, s, n);
  w.end(at(hours(1)));
  const RunResult r = rec.result(0);
  CHECK(r.headroom.node_hours == 0.0);
  CHECK(r.headroom.usd == 0.0);
  CHECK(rounded(r.cost.total_usd) == 1.0);
}

TEST_CASE("peak counts nodes billed at once, draining ones included", "[runner]") {
  RunRecorder rec(run_info(), kPricesOnNodes);
  RecorderWorld w(rec);
  NodeId a = w.node({.name = "a"});
  NodeId b = w.node({.name = "b"});
  NodeId c = w.node({.name = "c"});
  w.launch(0, a);
  w.launch(10, b);
  w.terminate(100, a, NodeDeletionReason::Expired);
  w.launch(200, c);
  rec.on_event({.time = RecorderWorld::at_s(300),
                .kind = EventKind::LaunchFailed,
                .message = "InsufficientInstanceCapacity"},
               w.cluster);
  // A NodeClaim whose launch failed never bills and is not a terminated node.
  NodeId claim = w.node({.name = "claim"});
  rec.on_event({.time = RecorderWorld::at_s(310),
                .kind = EventKind::LaunchFailed,
                .node = claim,
                .message = "InsufficientInstanceCapacity"},
               w.cluster);
  w.terminate(310, claim, NodeDeletionReason::None);
  w.end(at(hours(1)));
  const RunResult r = rec.result(0);
  CHECK(r.nodes.peak == 2);
  CHECK(r.nodes.terminated_by_reason == Counts{{NodeDeletionReason::Expired, 1}});
  CHECK(rounded(r.cost.by_nodepool) == Usd{{"gpu", rounded((100 + 3590 + 3400) / 3600.0)}});
  CHECK(r.nodes.launched == 3);
  CHECK(r.nodes.launch_failures == 2);
}
