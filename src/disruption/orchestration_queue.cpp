#include "fleetsim/disruption/orchestration_queue.hpp"

namespace fleetsim {

void OrchestrationQueue::submit(DisruptionMethod& method, DisruptionCommand command) {
  FLEETSIM_ASSERT(!busy() && !command.nodes.empty());
  method_ = &method;
  command_ = std::move(command);
  sim_.schedule_after(kCommandValidationDelay, Phase::Disruption, *this);
}

void OrchestrationQueue::on_event(SimTime now, std::uint64_t) {
  DisruptionMethod& method = *method_;
  const DisruptionCommand command = std::move(command_);
  method_ = nullptr;
  BudgetTracker budgets(pools_, cluster_, method.budget_reason(), now, start_unix_s_);
  for (NodeId id : command.nodes) {
    const Node& n = cluster_.node(id);
    // A pod arrived, the node was nominated or the budget shrank meanwhile.
    if (!method.is_candidate(n, now) || !budgets.take(n.pool)) continue;
    termination_.delete_node(id, method.termination_reason(),
                             drain_time(n, cluster_, pools_[n.pool]));
  }
}

}  // namespace fleetsim
