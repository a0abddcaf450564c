// The packing LP against optima worked out by hand.
#include "fleetsim/efficiency/packing_lp.hpp"

#include <catch2/catch.hpp>

#include "fleetsim/core/quantity.hpp"

using namespace fleetsim;

namespace {

PackingNodeKind node(double usd, double cpu_millis, double memory, double gpus) {
  PackingNodeKind k{.usd_per_hour = usd};
  k.room[resource::kCpu] = cpu_millis;
  k.room[resource::kMemory] = memory;
  k.room[resource::kNvidiaGpu] = gpus;
  return k;
}

PackingClass pods(double count, double cpu_millis, double memory, double gpus,
                  std::vector<std::uint32_t> kinds) {
  PackingClass c{.count = count, .kinds = std::move(kinds)};
  c.request[resource::kCpu] = cpu_millis;
  c.request[resource::kMemory] = memory;
  c.request[resource::kNvidiaGpu] = gpus;
  return c;
}

}  // namespace

TEST_CASE("three one-GPU pods on a four-GPU type cost three quarters of a node", "[efficiency]") {
  const std::vector kinds{node(4.0, 48000, 180 * kGib, 4)};
  const std::vector classes{pods(3, 1000, 4 * kGib, 1, {0})};
  CHECK(packing_usd_per_hour(kinds, classes) == Approx(3.0).epsilon(1e-9));
}

TEST_CASE("the type cheaper per GPU sets the bound", "[efficiency]") {
  // $2 per GPU on the four-GPU type, $1.50 on the one-GPU type.
  const std::vector kinds{node(8.0, 48000, 180 * kGib, 4), node(1.5, 4000, 16 * kGib, 1)};
  const std::vector classes{pods(3, 1000, 4 * kGib, 1, {0, 1})};
  CHECK(packing_usd_per_hour(kinds, classes) == Approx(4.5).epsilon(1e-9));
}

TEST_CASE("a CPU-heavy and a memory-heavy pod share one node", "[efficiency]") {
  // Each pod fills one resource of the node: a per-pod share by its largest resource would
  // charge two nodes; one node holds both.
  const std::vector kinds{node(1.0, 2000, 2 * kGib, 0)};
  const std::vector classes{pods(1, 2000, 0, 0, {0}), pods(1, 0, 2 * kGib, 0, {0})};
  CHECK(packing_usd_per_hour(kinds, classes) == Approx(1.0).epsilon(1e-9));
}

TEST_CASE("a class kept to the dearer type pays for it", "[efficiency]") {
  // Class 0 may use only the $2-per-GPU type; class 1 may use the $1.50 one too.
  const std::vector kinds{node(8.0, 48000, 180 * kGib, 4), node(1.5, 4000, 16 * kGib, 1)};
  const std::vector classes{pods(2, 1000, 4 * kGib, 1, {0}), pods(2, 1000, 4 * kGib, 1, {0, 1})};
  CHECK(packing_usd_per_hour(kinds, classes) == Approx(2 * 2.0 + 2 * 1.5).epsilon(1e-9));
}

TEST_CASE("memory binds before GPUs when pods ask more memory than their GPU share",
          "[efficiency]") {
  // 2 pods of 1 GPU and 100 GiB on a 4-GPU 128 GiB node at $4: memory needs 200/128 nodes.
  const std::vector kinds{node(4.0, 48000, 128 * kGib, 4)};
  const std::vector classes{pods(2, 1000, 100 * kGib, 1, {0})};
  CHECK(packing_usd_per_hour(kinds, classes) == Approx(4.0 * 200.0 / 128.0).epsilon(1e-9));
}

TEST_CASE("no demand costs nothing", "[efficiency]") {
  const std::vector kinds{node(4.0, 48000, 128 * kGib, 4)};
  const std::vector classes{pods(0, 1000, 4 * kGib, 1, {0})};
  CHECK(packing_usd_per_hour(kinds, classes) == 0.0);
}

TEST_CASE("two classes of the same pods cost what one class of them all costs", "[efficiency]") {
  // Sharing kinds, the two classes go to CLP; one class alone has a closed form.
  const std::vector kinds{node(8.0, 48000, 180 * kGib, 4), node(1.5, 4000, 16 * kGib, 1)};
  const std::vector split{pods(2, 1000, 4 * kGib, 1, {0, 1}), pods(1, 1000, 4 * kGib, 1, {0, 1})};
  const std::vector whole{pods(3, 1000, 4 * kGib, 1, {0, 1})};
  CHECK(packing_usd_per_hour(kinds, split) == Approx(4.5).epsilon(1e-9));
  CHECK(packing_usd_per_hour(kinds, whole) == Approx(4.5).epsilon(1e-9));
}

TEST_CASE("classes that share no kind are bounded apart and added", "[efficiency]") {
  const std::vector kinds{node(8.0, 48000, 180 * kGib, 4), node(1.5, 4000, 16 * kGib, 1)};
  const std::vector classes{pods(4, 1000, 4 * kGib, 1, {0}), pods(3, 1000, 4 * kGib, 1, {1})};
  CHECK(packing_usd_per_hour(kinds, classes) == Approx(8.0 + 4.5).epsilon(1e-9));
}

TEST_CASE("a resource row one class fills stays in the LP where another class fills GPUs",
          "[efficiency]") {
  // On a 4-GPU 128 GiB node at $4, memory binds the 100 GiB pods and GPUs the 4 GiB ones: the
  // memory row stays (GPUs would charge one node for the four pods), CPU's row goes. Memory
  // needs (200 + 8) / 128 nodes.
  const std::vector kinds{node(4.0, 48000, 128 * kGib, 4)};
  const std::vector classes{pods(2, 1000, 100 * kGib, 1, {0}), pods(2, 1000, 4 * kGib, 1, {0})};
  CHECK(packing_usd_per_hour(kinds, classes) == Approx(4.0 * 208.0 / 128.0).epsilon(1e-9));
}

TEST_CASE("rows implied for every class leave the shared LP's optimum alone", "[efficiency]") {
  // GPUs bind both classes on both types: only the GPU rows are kept. Class 1's pods on the
  // $1.50 type, class 0's on the $2-per-GPU one.
  const std::vector kinds{node(8.0, 48000, 180 * kGib, 4), node(1.5, 4000, 16 * kGib, 1)};
  const std::vector classes{pods(3, 2000, 8 * kGib, 1, {0}), pods(2, 1000, 4 * kGib, 1, {0, 1})};
  PackingLp lp(kinds, classes);
  CHECK(lp.solve(std::vector{3.0, 2.0}) == Approx(3 * 2.0 + 2 * 1.5).epsilon(1e-9));
  CHECK(lp.solve(std::vector{1.0, 4.0}) == Approx(1 * 2.0 + 4 * 1.5).epsilon(1e-9));
}
