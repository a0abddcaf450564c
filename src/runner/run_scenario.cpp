#include "fleetsim/runner/run_scenario.hpp"

#include <algorithm>

#include "fleetsim/report/run_recorder.hpp"
#include "fleetsim/world/world.hpp"

namespace fleetsim {

nlohmann::ordered_json run_scenario(const ScenarioConfig& config, const ScenarioOutputs& outputs) {
  RunInfo info{.scenario = config.name, .seed = config.seed, .duration = config.duration,
               .report_interval = config.report_interval, .nodepools = {}};
  auto add_pool = [&](const NodePool& p) {
    if (std::find(info.nodepools.begin(), info.nodepools.end(), p.name) == info.nodepools.end())
      info.nodepools.push_back(p.name);
  };
  for (const NodePool& p : config.nodepools) add_pool(p);
  for (const ScriptedEvent& e : config.events)
    if (const auto* apply = std::get_if<ApplyManifestsEvent>(&e.action))
      for (const NodePool& p : apply->nodepools) add_pool(p);

  for (const ServiceConfig& s : config.services) info.services.push_back(s.deployment);

  World world(config);
  RunRecorder recorder(info, outputs.events, outputs.timeseries);
  recorder.watch(world);
  world.add_sink(recorder);
  if (outputs.progress) world.set_progress(outputs.progress, std::max(config.duration / 100, seconds(1)));
  RunStats stats = world.run();
  return recorder.report(stats.engine_events);
}

}  // namespace fleetsim
