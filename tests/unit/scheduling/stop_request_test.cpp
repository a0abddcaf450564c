// A solve of thousands of pods that must be apart honours SIGTERM between pods (issue 25,
// item 8).
#include <catch2/catch.hpp>
#include <csignal>

#include "builders.hpp"
#include "fleetsim/core/stop_flag.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

TEST_CASE("the solver stops between pods when a stop is requested", "[scheduling]") {
  const Catalog catalog = small_catalog();
  const std::vector<NodePool> pools{make_pool("default")};
  SchedulingContext ctx(catalog, pools, {}, {});
  Scheduler scheduler(ctx);
  Problem problem;
  problem.add(make_pod({.cpu_millis = 100, .memory_mib = 128}));
  clear_stop_request();
  CHECK(scheduler.solve(problem.input()).claims.size() == 1);
  request_stop(SIGTERM);
  CHECK_THROWS_AS(scheduler.solve(problem.input()), StopRequested);
  clear_stop_request();
}
