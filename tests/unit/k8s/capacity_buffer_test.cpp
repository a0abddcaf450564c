// Karpenter's pkg/controllers/capacitybuffer helpers_test.go (calculateLimitReplicas,
// calculatePercentageReplicas) and suite_test.go's replica computations. Pod requests are the
// pod's total, as RequestsForSpec sums them (fleetsim's PodSpec holds that sum already).
#include "fleetsim/k8s/capacity_buffer.hpp"

#include <catch2/catch.hpp>

using namespace fleetsim;

namespace {

constexpr std::int64_t kGi = std::int64_t{1} << 30;
constexpr std::int64_t kMi = std::int64_t{1} << 20;

Resources requests(std::int64_t cpu_millis, std::int64_t memory_bytes = 0) {
  Resources r;
  r[resource::kCpu] = cpu_millis;
  r[resource::kMemory] = memory_bytes;
  return r;
}

CapacityBufferLimits limits(std::optional<std::int64_t> cpu_millis,
                            std::optional<std::int64_t> memory_bytes = std::nullopt) {
  CapacityBufferLimits l;
  if (cpu_millis) {
    l.values[resource::kCpu] = *cpu_millis;
    l.set_mask[resource::kCpu] = 1;
  }
  if (memory_bytes) {
    l.values[resource::kMemory] = *memory_bytes;
    l.set_mask[resource::kMemory] = 1;
  }
  return l;
}

}  // namespace

TEST_CASE("buffer limits hold floor of limit over request per resource", "[k8s]") {
  // "should calculate replicas based on CPU limits" / "... memory limits"
  CHECK(buffer_limit_replicas(limits(4000), requests(1000)) == 4);
  CHECK(buffer_limit_replicas(limits(std::nullopt, 2 * kGi), requests(0, 512 * kMi)) == 4);
  // "should take the minimum across multiple resources"
  CHECK(buffer_limit_replicas(limits(8000, 4 * kGi), requests(1000, kGi)) == 4);
  // "should floor divide (no rounding up)"
  CHECK(buffer_limit_replicas(limits(10000), requests(3000)) == 3);
  // "should handle millicore-level precision"
  CHECK(buffer_limit_replicas(limits(1000), requests(250)) == 4);
  // "should return 0 when limit is smaller than a single pod request"
  CHECK(buffer_limit_replicas(limits(1000), requests(2000)) == 0);
}

TEST_CASE("buffer limits that name no requested resource do not apply", "[k8s]") {
  // "should return false when pod has no resource requests"
  CHECK_FALSE(buffer_limit_replicas(limits(4000), requests(0)).has_value());
  // "should return false when no limit resources match pod requests"
  CHECK_FALSE(buffer_limit_replicas(limits(std::nullopt, 4 * kGi), requests(1000)).has_value());
}

TEST_CASE("buffer percentage of a scalable target rounds up", "[k8s]") {
  CHECK(buffer_percentage_replicas(10, 20) == 2);      // "should calculate percentage and ceil"
  CHECK(buffer_percentage_replicas(3, 10) == 1);       // "should ceil fractional results"
  CHECK(buffer_percentage_replicas(1, 1) == 1);        // "at least 1 when percentage > 0 ..."
  CHECK(buffer_percentage_replicas(0, 50) == 0);       // "0 when scalable has 0 replicas"
  CHECK(buffer_percentage_replicas(10, 0) == 0);       // "0 when percentage is 0"
  CHECK(buffer_percentage_replicas(5, 100) == 5);      // "should handle 100 percent"
  CHECK(buffer_percentage_replicas(5, 200) == 10);     // "large percentages (>100)"
  CHECK(buffer_percentage_replicas(1000, 10) == 100);  // "large replica counts"
}

// controller.go computeReplicas: the largest of replicas and the percentage, capped by limits.
TEST_CASE("buffer replicas take the larger size then the limits", "[k8s]") {
  CapacityBuffer b;
  b.scalable_ref =
      CapacityBuffer::ScalableRef{.api_group = "apps", .kind = "Deployment", .name = "web"};
  b.percentage = 20;
  b.replicas = 1;
  CHECK(buffer_replicas(b, requests(1000), 10) == 2);
  b.replicas = 3;
  CHECK(buffer_replicas(b, requests(1000), 10) == 3);
  b.limits = limits(2500);
  CHECK(buffer_replicas(b, requests(1000), 10) == 2);
  // Without a size the limits alone decide.
  b.replicas.reset();
  b.percentage.reset();
  CHECK(buffer_replicas(b, requests(1000), 10) == 2);
  // A target scaled to zero gives no percentage candidate.
  b.limits.reset();
  b.percentage = 50;
  CHECK(buffer_replicas(b, requests(1000), 0) == 0);
}

TEST_CASE("a buffer on a PodTemplate ignores its percentage", "[k8s]") {
  CapacityBuffer b;
  b.pod_template_ref = "gpu-chunk";
  b.replicas = 2;
  b.percentage = 50;
  CHECK(buffer_replicas(b, requests(1000), 10) == 2);
}
