#include "fleetsim/core/quantity.hpp"

#include <catch2/catch.hpp>

#include "fleetsim/core/resources.hpp"
#include "fleetsim/core/rng.hpp"

using namespace fleetsim;

TEST_CASE("Kubernetes quantities parse exactly", "[core]") {
  CHECK(parse_quantity("500m")->milli == 500);
  CHECK(parse_quantity("2")->milli == 2000);
  CHECK(parse_quantity("1.5")->milli == 1500);
  CHECK(parse_quantity("16Gi")->value_ceil() == 16LL * 1024 * 1024 * 1024);
  CHECK(parse_quantity("100Mi")->value_ceil() == 100LL * 1024 * 1024);
  CHECK(parse_quantity("1G")->value_ceil() == 1'000'000'000);
  CHECK(parse_quantity("2e3")->milli == 2'000'000);
  CHECK(parse_quantity("0.1")->milli == 100);
}

TEST_CASE("bad quantities are rejected", "[core]") {
  CHECK_FALSE(parse_quantity(""));
  CHECK_FALSE(parse_quantity("-1"));
  CHECK_FALSE(parse_quantity("abc"));
  CHECK_FALSE(parse_quantity("16GiB"));
  CHECK_FALSE(parse_quantity("1e999"));
  CHECK_FALSE(parse_quantity("99999999999999999999Ei"));
  // Why: a well-formed quantity past the bound is too large, not malformed.
  QuantityProblem problem{};
  CHECK_FALSE(parse_quantity("16Ei", problem));
  CHECK(problem == QuantityProblem::TooLarge);
  CHECK_FALSE(parse_quantity("16GB", problem));
  CHECK(problem == QuantityProblem::Malformed);
  CHECK(parse_quantity("2Pi", problem));
}

TEST_CASE("resource vectors add, subtract and compare component-wise", "[core]") {
  Resources a, b;
  a[resource::kCpu] = 1000;
  a[resource::kNvidiaGpu] = 1;
  b[resource::kCpu] = 4000;
  b[resource::kNvidiaGpu] = 1;
  CHECK(a.fits_in(b));
  a += a;
  CHECK(a.cpu_millis() == 2000);
  CHECK_FALSE(a.fits_in(b));
  CHECK((b - a)[resource::kNvidiaGpu] == -1);
}

TEST_CASE("a resource registry interns extended resources into free slots", "[core]") {
  ResourceRegistry reg;
  CHECK(reg.find("nvidia.com/gpu") == resource::kNvidiaGpu);
  auto mig = reg.intern("nvidia.com/mig-1g.5gb");
  REQUIRE(mig);
  CHECK(*mig == resource::kWellKnownCount);
  CHECK(reg.intern("nvidia.com/mig-1g.5gb") == mig);
}

TEST_CASE("rng streams are reproducible and independent per component", "[core]") {
  RngStream a(7, "cloud"), b(7, "cloud"), c(7, "traffic");
  for (int i = 0; i < 100; ++i) CHECK(a.next_u64() == b.next_u64());
  RngStream d(7, "cloud");
  CHECK(d.next_u64() != c.next_u64());
  double sum = 0;
  RngStream e(1, "exp");
  for (int i = 0; i < 100000; ++i) sum += e.exponential(2.0);
  CHECK(sum / 100000 == Approx(2.0).epsilon(0.02));
}
