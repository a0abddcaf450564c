// Resolves pods' priorityClassName against the scenario's PriorityClasses, as Kubernetes'
// Priority admission plugin does when a pod is created.
#pragma once

#include <optional>
#include <vector>

#include "fleetsim/k8s/pod_spec.hpp"
#include "fleetsim/k8s/workloads.hpp"
#include "fleetsim/scenario/pod_decoder.hpp"

namespace fleetsim {

class PriorityTable {
 public:
  // The scenario's classes plus Kubernetes' built-in system-node-critical and
  // system-cluster-critical. Fails when more than one class is the global default.
  explicit PriorityTable(const std::vector<PriorityClass>& classes);

  // Sets spec.priority (and spec.priority_class_name for the global default): the named class's
  // value; with no name, the explicit spec.priority, else the global default, else 0. Fails at
  // ref.where on an unknown class or a spec.priority that contradicts the class. Sets
  // spec.preemption_policy from the class (PreemptLowerPriority without one); a stated
  // spec.preemptionPolicy that differs is refused, as the admission plugin refuses it.
  void resolve(PodSpec& spec, const PriorityRef& ref) const;

 private:
  std::vector<PriorityClass> classes_;
  std::optional<std::size_t> global_default_;  // index into classes_
};

}  // namespace fleetsim
