#include "fleetsim/core/stop_flag.hpp"

#include <catch2/catch.hpp>
#include <csignal>

using namespace fleetsim;

TEST_CASE("a stop request is thrown where a loop checks it, with its signal", "[core]") {
  clear_stop_request();
  CHECK_NOTHROW(throw_if_stop_requested());
  request_stop(SIGTERM);
  CHECK(stop_signal() == SIGTERM);
  try {
    throw_if_stop_requested();
    FAIL("no stop");
  } catch (const StopRequested& stop) {
    CHECK(stop.signal == SIGTERM);
  }
  clear_stop_request();
  CHECK(stop_signal() == 0);
}
