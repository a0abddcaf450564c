// The benchmark patterns in a service: a closed loop of users fed back by the service's
// completions, and a batch arriving at once.
#include "fleetsim/service/closed_loop_traffic.hpp"

#include <catch2/catch.hpp>
#include <cstdint>

#include "unit/service/service_rig.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

// "web" with one replica whose pod is bound at t = 0 and serves `concurrency` requests at a
// time, each for a fixed `service`.
ServiceConfig benchmark_service(TrafficConfig traffic, SimDuration service,
                                std::uint32_t concurrency) {
  ServiceConfig c = half_busy_service();
  c.traffic = std::move(traffic);
  c.serving = ServingConfig{.concurrency = concurrency,
                            .service_time = FixedServiceTime{.duration = service}};
  return c;
}

// Requests arrived and not yet ended: queued or in flight.
std::int64_t in_system(const ServingCounters& c) {
  return static_cast<std::int64_t>(c.arrived - c.served - c.dropped);
}

}  // namespace

TEST_CASE(
    "a closed loop of N users serves exactly N over service plus think time and never has "
    "more than N requests in the system",
    "[service]") {
  ServiceRig rig;
  const WorkloadId web = rig.add(web_deployment(1));
  ServiceRuntime& service = rig.add_service(
      benchmark_service(ClosedConfig{.users = 4, .think_time = millis(1500)}, millis(500), 8), web);
  rig.bind_pending(web);
  for (int ms = 10; ms <= 100'000; ms += 10) {
    rig.run_to(millis(ms));
    const ServingCounters c = service.model().counters();
    REQUIRE(in_system(c) <= 4);
    REQUIRE(c.in_flight + c.queued <= 4);
    if (ms == 20'000) CHECK(c.served == 40);  // each user's cycle is 2 s, from t = 0
  }
  // 4 users / (0.5 s + 1.5 s) = 2 requests a second: 160 in the 80 s from 20 s to 100 s.
  CHECK(service.model().counters().served == 200);
  CHECK(service.model().counters().dropped == 0);
}

TEST_CASE("with no think time every user of a closed loop is always in the system", "[service]") {
  ServiceRig rig;
  const WorkloadId web = rig.add(web_deployment(1));
  // Two slots for five users: three always wait, and the replica completes 2 every 300 ms.
  ServiceRuntime& service =
      rig.add_service(benchmark_service(ClosedConfig{.users = 5}, millis(300), 2), web);
  rig.bind_pending(web);
  for (int ms = 0; ms <= 30'000; ms += 50) {
    rig.run_to(millis(ms));
    const ServingCounters c = service.model().counters();
    REQUIRE(in_system(c) == 5);
    REQUIRE(c.in_flight == 2);
  }
  CHECK(service.model().counters().served == 200);  // 2 per 300 ms for 30 s
}

TEST_CASE("a closed loop's dropped request returns its user to thinking", "[service]") {
  ServiceRig rig;
  // No pod is ever bound: every request times out in the queue after 10 s.
  const WorkloadId web = rig.add(web_deployment(1));
  ServiceConfig config =
      benchmark_service(ClosedConfig{.users = 3, .think_time = seconds(5)}, millis(500), 1);
  config.serving.queue_timeout = seconds(10);
  ServiceRuntime& service = rig.add_service(std::move(config), web);
  // Sent at 0 and dropped at 10 s, which the model notices at the scrape at 12 s; sent again
  // 5 s after the drop, at 15 s, and dropped at 25 s.
  rig.run_to(seconds(12));
  service.scrape(rig.sim.now());
  CHECK(service.model().counters().dropped == 3);
  rig.run_to(seconds(15) - micros(1));
  CHECK(service.model().counters().arrived == 3);
  rig.run_to(seconds(15));
  CHECK(service.model().counters().arrived == 6);
  // Noticed at 40 s, 15 s after the drop: the think time has passed, so sent again at once.
  rig.run_to(seconds(40));
  service.scrape(rig.sim.now());
  rig.run_to(seconds(40));
  const ServingCounters c = service.model().counters();
  CHECK(c.arrived == 9);
  CHECK(c.dropped == 6);
  CHECK(c.queued == 3);
  CHECK(c.served == 0);
}

TEST_CASE("a closed loop with a request budget stops once it has sent it", "[service]") {
  ServiceRig rig;
  const WorkloadId web = rig.add(web_deployment(1));
  ServiceRuntime& service = rig.add_service(
      benchmark_service(ClosedConfig{.users = 3, .think_time = seconds(1), .requests = 5},
                        millis(500), 8),
      web);
  rig.bind_pending(web);
  rig.run_to(seconds(1));
  CHECK(service.model().counters().arrived == 3);  // every user's first request
  rig.run_to(seconds(60));
  CHECK(service.model().counters().arrived == 5);
  CHECK(service.model().counters().served == 5);
}

TEST_CASE("a closed loop with exponential think times is bounded and repeats with its seed",
          "[service]") {
  auto run = [] {
    ServiceRig rig;
    const WorkloadId web = rig.add(web_deployment(1));
    ServiceRuntime& service = rig.add_service(
        benchmark_service(
            ClosedConfig{.users = 6, .think_time = millis(800), .think = ThinkShape::Exponential},
            millis(200), 2),
        web);
    rig.bind_pending(web);
    for (int ms = 0; ms <= 60'000; ms += 25) {
      rig.run_to(millis(ms));
      REQUIRE(in_system(service.model().counters()) <= 6);
    }
    return service.model().counters().served;
  };
  const std::uint64_t served = run();
  CHECK(served == run());
  // Below the replica's 10 a second and the users' 6 / (0.2 + 0.8) = 6 a second without waits.
  CHECK(served > 200);
  CHECK(served < 360);
}

TEST_CASE("a batch's requests all arrive at its instant", "[service]") {
  ServiceRig rig;
  const WorkloadId web = rig.add(web_deployment(1));
  ServiceRuntime& service = rig.add_service(
      benchmark_service(BatchConfig{.requests = 6, .at = seconds(10)}, seconds(1), 4), web);
  rig.bind_pending(web);
  rig.run_to(seconds(10) - micros(1));
  CHECK(service.model().counters().arrived == 0);
  rig.run_to(seconds(10));
  CHECK(service.model().counters().arrived == 6);
  CHECK(service.model().counters().in_flight == 4);
  CHECK(service.model().counters().queued == 2);
  rig.run_to(seconds(12));
  CHECK(service.model().counters().served == 6);
}
