// The efficiency bounds' property over every example scenario and seeds 1 to 5: each bound is
// at most the run's instance cost, fluid ≤ packing, the gap's parts add up to the gap within a
// cent, and the recorder's own node time matches the cost ledger's within a cent. Prints one
// line per run (actual, bounds, gap share, and the share of the run's time the bounds took).
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "example_scenarios.hpp"
#include "fleetsim/runner/run.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"

namespace fs = std::filesystem;
using namespace fleetsim;

namespace {

constexpr std::uint64_t kSeeds = 5;
constexpr double kCent = 0.01;

}  // namespace

int main() {
  const fs::path root = FLEETSIM_SOURCE_DIR;
  int failures = 0;
  auto fail = [&](const std::string& what) {
    ++failures;
    fmt::print("FAILED: {}\n", what);
  };
  for (const std::string& name : test::kExampleScenarios) {
    ScenarioConfig config =
        load_scenario(test::example_scenario_file(root, name), root / "instance-catalog");
    for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
      config.seed = seed;
      const auto start = std::chrono::steady_clock::now();
      const RunResult r = run(config, {});
      const double run_s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const EfficiencyResult& e = r.efficiency;
      const auto& p = e.parts;
      const std::string id = fmt::format("{} seed {}", name, seed);
      fmt::print(
          "{:<46} actual {:>9.2f} fluid {:>9.2f} packing {:>9.2f} gap {:>5.1f}% "
          "(bounds {:.1f}% of {:.2f} s)\n",
          id, e.actual_usd, e.fluid_usd, e.packing_usd, 100 * e.gap_share,
          100 * (e.fluid_seconds + e.packing_seconds) / run_s, run_s);
      if (e.fluid_usd > e.packing_usd) fail(id + ": fluid above packing");
      if (e.packing_usd > e.actual_usd) fail(id + ": packing above the actual cost");
      if (e.lower_bound_usd > e.actual_usd) fail(id + ": lower bound above the actual cost");
      if (e.lower_bound_usd <= 0 && e.actual_usd > 0) fail(id + ": no bound");
      const double parts = p.idle_usd + p.fragmentation_usd + p.startup_usd +
                           p.billing_minimum_usd + p.capacity_type_usd + p.type_choice_usd;
      if (std::abs(parts - e.gap_usd) > kCent) fail(id + ": parts do not add up to the gap");
      if (std::abs(e.accounted_usd - e.actual_usd) > kCent)
        fail(fmt::format("{}: node time {:.4f} against the ledger's {:.4f}", id, e.accounted_usd,
                         e.actual_usd));
      if (e.kinds_added != 0)
        fail(
            fmt::format("{}: {} pods ran on kinds their pools do not describe", id, e.kinds_added));
    }
  }
  fmt::print("{} failures\n", failures);
  return failures == 0 ? 0 : 1;
}
