#include "fleetsim/runner/run.hpp"

#include <algorithm>

#include "fleetsim/efficiency/efficiency_recorder.hpp"
#include "fleetsim/runner/run_recorder.hpp"
#include "fleetsim/world/world.hpp"

namespace fleetsim {

namespace {

// Progress calls per run when RunOptions does not set a period.
constexpr int kDefaultProgressCalls = 100;

RunInfo run_info(const ScenarioConfig& config) {
  RunInfo info{.scenario = config.name,
               .seed = config.seed,
               .start_unix_s = config.start_unix_s,
               .duration = config.duration,
               .report_interval = config.report_interval,
               .nodepools = {},
               .services = {},
               .spot_market = config.spot_market.has_value(),
               .reservations = {},
               .gangs = config.pod_groups};
  auto add_pool = [&](const NodePool& p) {
    if (std::find(info.nodepools.begin(), info.nodepools.end(), p.name) == info.nodepools.end())
      info.nodepools.push_back(p.name);
  };
  info.node_groups =
      config.provisioner == ProvisionerKind::ClusterAutoscaler || !config.node_groups.empty();
  for (const NodeGroup& g : config.node_groups) info.nodepools.push_back(g.name);
  for (const NodePool& p : config.nodepools) add_pool(p);
  for (const ScriptedEvent& e : config.events)
    if (const auto* apply = std::get_if<ApplyManifestsEvent>(&e.action))
      for (const NodePool& p : apply->nodepools) add_pool(p);

  for (const ServiceConfig& s : config.services) info.services.push_back(s.deployment);

  const Catalog& catalog = *config.catalog;
  info.reservations = catalog.reservations();
  for (const Reservation& r : info.reservations) {
    double rate = r.price_per_hour.value_or(0.0);
    if (r.type == ReservationType::Default) {
      const auto type = catalog.index_of(r.instance_type);
      const auto od =
          catalog.find_offering(static_cast<std::uint32_t>(*type), r.zone, CapacityType::OnDemand);
      rate = catalog.offering(*od).price_per_hour;
    }
    info.reservation_rates.push_back(rate);
  }
  return info;
}

}  // namespace

RunResult run(const ScenarioConfig& config, const RunOptions& options) {
  World world(config);
  RunRecorder recorder(run_info(config), world.pricing(), options.timeseries_sinks);
  recorder.watch(world);
  world.add_sink(recorder);
  EfficiencyRecorder efficiency(config, world.cloud());
  world.add_sink(efficiency);
  for (EventSink* sink : options.event_sinks) world.add_sink(*sink);
  for (MetricSampleSink* sink : options.metric_sinks) world.add_metric_sink(*sink);
  if (options.progress) {
    const SimDuration period = options.progress_period > SimDuration::zero()
                                   ? options.progress_period
                                   : std::max(config.duration / kDefaultProgressCalls, seconds(1));
    world.set_progress(options.progress, period);
  }
  const RunStats stats = world.run();
  RunResult result = recorder.result(stats.engine_events);
  // The reservations' bills are paid whatever the fleet does: like EBS, outside the actual
  // cost and the bounds, which price reserved offerings as Karpenter does (nearly free).
  const double instance_usd = result.cost.total_usd - result.cost.ebs_usd -
                              result.cost.management_fee_usd.value_or(0.0) -
                              result.cost.reservations_usd.value_or(0.0);
  result.efficiency = efficiency.result(instance_usd);
  return result;
}

}  // namespace fleetsim
