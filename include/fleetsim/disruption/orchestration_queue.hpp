// Karpenter's orchestration queue: a disruption command waits, is validated, then executed.
#pragma once

#include <cstdint>
#include <vector>

#include "fleetsim/disruption/disruption_method.hpp"
#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/kube/node_termination.hpp"

namespace fleetsim {

// commandValidationDelay: a command is re-checked this long after it was computed.
inline constexpr SimDuration kCommandValidationDelay = seconds(15);

// One command at a time. After the validation delay each node must still be a candidate of its
// method and within its pool's budget now; the survivors are deleted, each drained of its pods.
// Replace-then-delete (consolidation's replacements launched and Ready before the deletion)
// belongs here too and comes with consolidation.
class OrchestrationQueue : private EventHandler {
 public:
  OrchestrationQueue(Simulation& sim, const Cluster& cluster, NodeTermination& termination,
                     const std::vector<NodePool>& pools, std::int64_t start_unix_s)
      : sim_(sim),
        cluster_(cluster),
        termination_(termination),
        pools_(pools),
        start_unix_s_(start_unix_s) {}

  bool busy() const { return method_ != nullptr; }
  void submit(DisruptionMethod& method, DisruptionCommand command);

 private:
  void on_event(SimTime now, std::uint64_t tag) override;

  Simulation& sim_;
  const Cluster& cluster_;
  NodeTermination& termination_;
  const std::vector<NodePool>& pools_;
  std::int64_t start_unix_s_;
  DisruptionMethod* method_ = nullptr;  // of the command being validated
  DisruptionCommand command_;
};

}  // namespace fleetsim
