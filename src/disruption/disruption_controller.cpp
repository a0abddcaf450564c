#include "fleetsim/disruption/disruption_controller.hpp"

#include "fleetsim/disruption/emptiness.hpp"
#include "fleetsim/disruption/expiration.hpp"

namespace fleetsim {

DisruptionController::DisruptionController(Simulation& sim, const Cluster& cluster,
                                           NodeTermination& termination,
                                           const std::vector<NodePool>& pools,
                                           std::int64_t start_unix_s)
    : sim_(sim),
      cluster_(cluster),
      termination_(termination),
      pools_(pools),
      start_unix_s_(start_unix_s),
      queue_(sim, cluster, termination, pools, start_unix_s) {
  methods_.push_back(std::make_unique<Emptiness>(cluster, pools));
}

void DisruptionController::start() {
  sim_.every(kDisruptionPollPeriod, sim_.now() + kDisruptionPollPeriod, Phase::Disruption, *this);
}

void DisruptionController::on_event(SimTime now, std::uint64_t) {
  expire_nodes(cluster_, pools_, termination_, now);
  if (queue_.busy()) return;
  for (const auto& method : methods_) {
    BudgetTracker budgets(pools_, cluster_, method->budget_reason(), now, start_unix_s_);
    DisruptionCommand command = method->compute(now, budgets);
    if (command.nodes.empty()) continue;
    queue_.submit(*method, std::move(command));
    return;
  }
}

}  // namespace fleetsim
