// Spot availability replayed from a recorded trace (issue 9, item 1): capacity that goes and
// comes back at the trace's times, running instances interrupted when it goes.
#include "fleetsim/cloudprovider/aws/spot_availability.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fleetsim/catalog/catalog_loader.hpp"
#include "fleetsim/cloudprovider/aws/spot_market.hpp"
#include "unit/cloudprovider/cloud_rig.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

struct TraceFile {
  explicit TraceFile(const std::string& text)
      : path(std::filesystem::temp_directory_path() /
             ("fleetsim-availability-" + std::to_string(::getpid()) + ".csv")) {
    std::ofstream(path) << text;
  }
  ~TraceFile() { std::filesystem::remove(path); }
  std::filesystem::path path;
};

std::string trace_error(const std::string& text, const Catalog& catalog) {
  TraceFile f(text);
  try {
    read_availability_trace(f.path, catalog);
  } catch (const InputError& e) {
    const std::string what = e.what();
    return what.substr(what.find(".csv:") + 5);
  }
  return "no error";
}

SpotMarketSettings replay_only(std::vector<AvailabilityChange> changes) {
  SpotMarketSettings s;
  s.rate.reset();
  s.availability = std::move(changes);
  return s;
}

}  // namespace

TEST_CASE("an availability trace reads into changes of spot offerings", "[cloud][spot]") {
  CloudRig rig;
  TraceFile f(
      "time_s,instance_type,zone,available\n0,m5.large,us-east-1a,1\n600,m5.large,"
      "us-east-1a,0\n600,m5.xlarge,us-east-1a,0\n1200.5,m5.large,us-east-1a,16\n");
  const std::vector<AvailabilityChange> changes = read_availability_trace(f.path, rig.catalog);
  const std::uint32_t large = rig.global("m5.large", CapacityType::Spot);
  const std::uint32_t xlarge = rig.global("m5.xlarge", CapacityType::Spot);
  CHECK(changes == std::vector<AvailabilityChange>{{seconds(0), large, true},
                                                   {seconds(600), large, false},
                                                   {seconds(600), xlarge, false},
                                                   {millis(1'200'500), large, true}});
}

TEST_CASE("a malformed availability trace names the line and column", "[cloud][spot]") {
  CloudRig rig;
  const std::string header = "time_s,instance_type,zone,available\n";
  CHECK(trace_error(header + "60,m5.large,us-east-1a,1\n30,m5.large,us-east-1a,0\n", rig.catalog) ==
        "3:1: time_s: times must not decrease: 30 follows 60");
  CHECK(trace_error(header + "-1,m5.large,us-east-1a,1\n", rig.catalog) ==
        "2:1: time_s: must be from 0 to 315360000 (ten years), got -1");
  CHECK(trace_error(header + "0,m5.huge,us-east-1a,1\n", rig.catalog) ==
        "2:3: instance_type: instance type \"m5.huge\" is not in the catalog");
  CHECK(trace_error(header + "0,m5.large,us-east-1b,1\n", rig.catalog) ==
        "2:12: zone: m5.large has no spot offering in zone \"us-east-1b\"");
  CHECK(trace_error(header + "0,m5.large,us-east-1a,yes\n", rig.catalog)
            .starts_with("2:23: available:"));
  CHECK(trace_error("time,type\n0,m5.large\n", rig.catalog).find("time_s") != std::string::npos);
}

TEST_CASE("a replayed trace takes capacity away at its times and interrupts what runs",
          "[cloud][spot]") {
  CloudRig rig;
  const std::uint32_t large = rig.global("m5.large", CapacityType::Spot);
  const NodeId running = *rig.launch({"m5.large"}, CapacityType::Spot);
  rig.sim.run_until(kReadyAt);
  SpotMarket market(rig.sim, rig.cluster, rig.bus, rig.cloud,
                    replay_only({{minutes(10), large, false}, {minutes(40), large, true}}),
                    std::vector<double>(rig.catalog.offering_count(), 0.0));
  market.start();

  rig.sim.run_until(at(minutes(10)));
  CHECK(rig.cloud.capacity(large) == 0);
  std::vector<RecordedEvent> notices;
  for (const RecordedEvent& e : rig.bus.events)
    if (e.kind == EventKind::SpotInterruptionNotice) notices.push_back(e);
  REQUIRE(notices.size() == 1);
  CHECK(notices[0].node == running);
  CHECK(notices[0].time == at(minutes(10)));
  // While it is gone a spot launch fails with insufficient capacity.
  CHECK_FALSE(rig.launch({"m5.large"}, CapacityType::Spot).has_value());

  rig.sim.run_until(at(minutes(40)));
  CHECK_FALSE(rig.cloud.capacity(large).has_value());  // the catalog's: unlimited
  std::vector<SimTime> changes;
  for (const RecordedEvent& e : rig.bus.events)
    if (e.kind == EventKind::CapacityChanged) changes.push_back(e.time);
  CHECK(changes == std::vector<SimTime>{at(minutes(10)), at(minutes(40))});
}

TEST_CASE("the bundled SkyPilot trace replays its unavailable intervals exactly", "[cloud][spot]") {
  const std::filesystem::path root(FLEETSIM_SOURCE_DIR);
  const Catalog catalog = load_catalog(root / "instance-catalog/aws/us-east-1");
  const std::vector<AvailabilityChange> trace =
      read_availability_trace(root / "scenarios/traces/spot-availability-p3.2xlarge.csv", catalog);
  REQUIRE(trace.size() == 127);

  Simulation sim(1);
  Cluster cluster;
  RecordingBus bus;
  Ec2Cloud cloud(sim, cluster, bus, catalog,
                 std::vector<NodeLatency>(catalog.types().size(), kLatency));
  SpotMarket market(sim, cluster, bus, cloud, replay_only(trace),
                    std::vector<double>(catalog.offering_count(), 0.0));
  market.start();
  sim.run_until(at(hours(7 * 24)));
  // Every row, in order: at its time, its zone's p3.2xlarge spot capacity goes to 0 or back to
  // unlimited, so each unavailable interval starts and ends where the trace says.
  std::vector<const RecordedEvent*> replayed;
  for (const RecordedEvent& e : bus.events)
    if (e.kind == EventKind::CapacityChanged) replayed.push_back(&e);
  REQUIRE(replayed.size() == trace.size());
  for (std::size_t i = 0; i < trace.size(); ++i) {
    CHECK(replayed[i]->time == at(trace[i].at));
    CHECK(replayed[i]->zone == catalog.offering(trace[i].offering).zone);
    CHECK(replayed[i]->capacity ==
          (trace[i].available ? std::nullopt : std::optional<std::int64_t>(0)));
  }
}
