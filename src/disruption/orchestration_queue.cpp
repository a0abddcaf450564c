#include "fleetsim/disruption/orchestration_queue.hpp"

#include <algorithm>

#include "fleetsim/disruption/disruption_decision.hpp"

namespace fleetsim {

OrchestrationQueue::OrchestrationQueue(Inputs in) : in_(in) {}

void OrchestrationQueue::on_event(SimTime now, std::uint64_t tag) {
  check_replacement(static_cast<std::uint32_t>(tag), now);
}

bool OrchestrationQueue::validate_and_start(DisruptionMethod& method, DisruptionCommand command,
                                            SimTime now) {
  BudgetTracker budgets(in_.pools, in_.cluster, method.budget_reason(), now, in_.start_unix_s);
  DisruptionCommand valid = method.validate(std::move(command), now, budgets);
  if (valid.nodes.empty()) return false;
  start(method, std::move(valid), now);
  return true;
}

void OrchestrationQueue::start(DisruptionMethod& method, DisruptionCommand command, SimTime now) {
  std::vector<std::vector<std::string>> type_names;
  for (const NewNodeClaim& claim : command.replacements) {
    type_names.emplace_back();
    for (std::uint32_t t : claim.types)
      type_names.back().push_back(in_.launcher.catalog().types()[t].name);
  }
  const DisruptionDecision decision{.method = method.name(),
                                    .nodes = command.nodes,
                                    .replacements = type_names,
                                    .savings_per_hour = command.savings_per_hour,
                                    .pods = command.pods};
  in_.bus.emit(SimEvent{.time = now,
                        .kind = EventKind::DisruptionDecision,
                        .reason = method.budget_reason(),
                        .decision = &decision});

  // Results.Record: the nodes the command's pods were planned onto are nominated, so no other
  // command takes them as candidates meanwhile (queue.go StartCommand).
  for (NodeId id : command.destinations)
    if (in_.cluster.node(id).is_live()) in_.launcher.nominate_node(id);
  Running r{.method = &method, .command = std::move(command), .started = now};
  if (r.command.replacements.empty()) {
    delete_nodes(r);
    return;
  }
  for (NodeId id : r.command.nodes) in_.cluster.mark_for_disruption(id);
  for (const NewNodeClaim& claim : r.command.replacements) {
    const std::optional<NodeId> replacement = in_.launcher.launch(claim, {});
    if (!replacement) {
      give_back(r);
      return;
    }
    r.replacements.push_back(*replacement);
  }
  const std::uint32_t id = next_id_++;
  poll_later(id, running_.emplace(id, std::move(r)).first->second);
}

void OrchestrationQueue::poll_later(std::uint32_t id, Running& r) {
  in_.sim.schedule_after(r.poll, Phase::Disruption, *this, id);
  if (!in_.version.fixed_queue_poll()) r.poll = std::min(r.poll * 2, kQueueMaxDelay);
}

void OrchestrationQueue::check_replacement(std::uint32_t id, SimTime now) {
  auto it = running_.find(id);
  Running& r = it->second;
  auto node = [&](NodeId id) -> const Node& { return in_.cluster.node(id); };
  const bool ready = std::all_of(r.replacements.begin(), r.replacements.end(), [&](NodeId id) {
    return node(id).phase == NodePhase::Initialized;
  });
  const bool lost = std::any_of(r.replacements.begin(), r.replacements.end(),
                                [&](NodeId id) { return !node(id).is_live(); });
  if (ready) {
    delete_nodes(r);
    running_.erase(it);
  } else if (lost || now - r.started > kReplacementTimeout) {
    give_back(r);
    running_.erase(it);
  } else {
    poll_later(id, r);
  }
}

void OrchestrationQueue::delete_nodes(const Running& r) {
  for (NodeId id : r.command.nodes) {
    const Node& n = in_.cluster.node(id);
    if (!n.is_live()) continue;  // an interruption took it meanwhile
    // Disruption commands hold NodeClaims' nodes only (disruption_candidates).
    const NodePool& pool = in_.pools[n.nodepool()->pool];
    in_.termination.delete_node(id, r.method->termination_reason(),
                                {.termination_grace_period = pool.termination_grace_period});
  }
}

void OrchestrationQueue::give_back(const Running& r) {
  for (NodeId id : r.command.nodes)
    if (in_.cluster.node(id).is_live()) in_.cluster.unmark_for_disruption(id);
}

}  // namespace fleetsim
