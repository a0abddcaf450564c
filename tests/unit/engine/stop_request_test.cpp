// The event loop honours a stop request per event (issue 25, item 8): events that keep the clock
// still (a flood of waves at one instant) never reach the progress callback, which is per advance
// of simulated time.
#include <catch2/catch.hpp>
#include <csignal>
#include <cstdint>

#include "fleetsim/core/stop_flag.hpp"
#include "fleetsim/engine/simulation.hpp"
#include "unit/engine/recorder.hpp"

using namespace fleetsim;
using fleetsim::test::Recorder;

TEST_CASE("a stop request ends a run whose events keep time still", "[engine]") {
  clear_stop_request();
  Simulation sim(1);
  Recorder r;
  std::uint64_t fired = 0;
  r.then = [&](SimTime, std::uint64_t) {
    if (++fired == 1000) request_stop(SIGTERM);  // as the signal handler would, mid-run
    sim.schedule_after(SimDuration::zero(), Phase::Workload, r, 0);
  };
  sim.schedule_at(at(seconds(1)), Phase::Workload, r, 0);
  CHECK_THROWS_AS(sim.run_until(at(hours(1))), StopRequested);
  CHECK(fired == 1000);
  clear_stop_request();
}
