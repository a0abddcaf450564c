// Which MIG instance a served pod holds, for the DCGM exporter's per-instance labels.
#include "fleetsim/service/mig_instances.hpp"

#include <catch2/catch.hpp>

using namespace fleetsim;

namespace {

// Two GPUs under A100-80GB's all-balanced: 2 × 1g.10gb, 1 × 2g.20gb, 1 × 3g.40gb each.
NodeGpuSetup balanced() {
  NodeGpuSetup s;
  s.layout = "all-balanced";
  s.physical_gpus = 2;
  s.mig = {{.profile = "1g.10gb", .per_gpu = 2, .compute_slices = 1, .devices_per_gpu = 2},
           {.profile = "2g.20gb", .per_gpu = 1, .compute_slices = 2, .devices_per_gpu = 1},
           {.profile = "3g.40gb", .per_gpu = 1, .compute_slices = 3, .devices_per_gpu = 1}};
  return s;
}

}  // namespace

TEST_CASE("served pods take a node's MIG instances first free in GPU order", "[service]") {
  MigInstanceSeats seats;
  const NodeGpuSetup s = balanced();
  const MigInstanceSeat a = seats.take(0, s, 0, 10);
  const MigInstanceSeat b = seats.take(0, s, 0, 11);
  const MigInstanceSeat c = seats.take(0, s, 0, 12);
  CHECK((a.gpu == 0 && a.instance_id == 1 && a.profile == "1g.10gb"));
  CHECK((b.gpu == 0 && b.instance_id == 2));
  CHECK((c.gpu == 1 && c.instance_id == 1));
  // Instance IDs follow the layout's order on each GPU: the 3g.40gb is the fourth.
  const MigInstanceSeat d = seats.take(0, s, 2, 13);
  CHECK((d.gpu == 0 && d.instance_id == 4 && d.profile == "3g.40gb"));
  // Another node's instances are its own.
  CHECK(seats.take(1, s, 0, 14).instance_id == 1);
  // A released instance is the next one taken.
  seats.release(11);
  const MigInstanceSeat e = seats.take(0, s, 0, 15);
  CHECK((e.gpu == 0 && e.instance_id == 2));
}

TEST_CASE("a pod's MIG hold and a profile's cost weight", "[service]") {
  NodeGpuSetup s = balanced();
  s.mig[0].resource = static_cast<ResourceIndex>(resource::kWellKnownCount);
  s.mig[2].resource = static_cast<ResourceIndex>(resource::kWellKnownCount + 1);
  Resources asks;
  asks[resource::kWellKnownCount + 1] = 1;
  const std::optional<MigHold> h = mig_hold(s, asks);
  REQUIRE(h.has_value());
  CHECK(h->profile == 2);
  CHECK(h->instances == 1.0);
  CHECK_FALSE(mig_hold(s, Resources{}).has_value());
  // Time-sliced 4 ways: a device is a quarter of an instance.
  s.mig[0].devices_per_gpu = 8;
  Resources one;
  one[resource::kWellKnownCount] = 1;
  CHECK(mig_hold(s, one)->instances == 0.25);
  // Compute slices 2 × 1, 1 × 2, 1 × 3 of 7 on each GPU.
  CHECK(mig_cost_weight(s, 0) == Approx(2.0 / 7).epsilon(1e-15));
  CHECK(mig_cost_weight(s, 2) == Approx(3.0 / 7).epsilon(1e-15));
}
