#include "fleetsim/disruption/disruption_controller.hpp"

#include "fleetsim/disruption/drift.hpp"
#include "fleetsim/disruption/emptiness.hpp"
#include "fleetsim/disruption/expiration.hpp"
#include "fleetsim/disruption/multi_node_consolidation.hpp"
#include "fleetsim/disruption/single_node_consolidation.hpp"

namespace fleetsim {

DisruptionController::DisruptionController(Inputs in)
    : in_(in),
      queue_({.sim = in.sim,
              .cluster = in.cluster,
              .bus = in.bus,
              .termination = in.termination,
              .launcher = in.provisioner.launcher(),
              .pools = in.provisioner.nodepools(),
              .start_unix_s = in.start_unix_s}) {
  const Consolidation::Inputs consolidation{.cluster = in.cluster,
                                            .provisioner = in.provisioner,
                                            .cloud = in.cloud,
                                            .pdbs = in.pdbs,
                                            .settings = in.consolidation};
  methods_.push_back(std::make_unique<Emptiness>(in.cluster, in.provisioner.launcher().claims(),
                                                 in.provisioner.nodepools(), in.cloud, in.pdbs));
  methods_.push_back(std::make_unique<Drift>(in.cluster, in.provisioner, in.cloud, in.pdbs));
  methods_.push_back(std::make_unique<MultiNodeConsolidation>(consolidation));
  methods_.push_back(std::make_unique<SingleNodeConsolidation>(consolidation));
}

void DisruptionController::start() {
  in_.sim.every(kDisruptionPollPeriod,
                first_firing_after_start(in_.sim.now(), kDisruptionPollPeriod, in_.poll_offset),
                Phase::Disruption, *this);
}

void DisruptionController::on_event(SimTime now, std::uint64_t) {
  const std::vector<NodePool>& pools = in_.provisioner.nodepools();
  expire_nodes(in_.cluster, pools, in_.termination, now);
  if (queue_.validating()) return;
  for (const auto& method : methods_) {
    BudgetTracker budgets(pools, in_.cluster, method->budget_reason(), now, in_.start_unix_s);
    DisruptionCommand command = method->compute(now, budgets);
    if (command.nodes.empty()) continue;
    queue_.submit(*method, std::move(command));
    return;
  }
}

}  // namespace fleetsim
