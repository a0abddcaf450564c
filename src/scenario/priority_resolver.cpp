#include "fleetsim/scenario/priority_resolver.hpp"

#include <fmt/format.h>

#include "fleetsim/scenario/name_hint.hpp"
#include "fleetsim/scenario/workload_decoder.hpp"

namespace fleetsim {

PriorityTable::PriorityTable(const std::vector<PriorityClass>& classes) {
  classes_.push_back(PriorityClass{.name = "system-node-critical",
                                   .value = kSystemNodeCriticalPriority,
                                   .global_default = false,
                                   .where = {}});
  classes_.push_back(PriorityClass{.name = "system-cluster-critical",
                                   .value = kSystemClusterCriticalPriority,
                                   .global_default = false,
                                   .where = {}});
  std::size_t builtin = classes_.size();
  for (const PriorityClass& pc : classes) {
    // A manifest exported from a cluster may restate a built-in class; the decoder has already
    // checked that its value is the built-in one.
    bool restated = false;
    for (std::size_t i = 0; i < builtin; ++i) restated |= classes_[i].name == pc.name;
    if (!restated) classes_.push_back(pc);
  }
  for (std::size_t i = 0; i < classes_.size(); ++i) {
    if (!classes_[i].global_default) continue;
    if (global_default_) {
      const PriorityClass& first = classes_[*global_default_];
      throw ConfigError(
          classes_[i].where, "globalDefault",
          fmt::format("only one PriorityClass may be the global default; \"{}\" already is "
                      "(at {})",
                      first.name, first.where.to_string()));
    }
    global_default_ = i;
  }
}

namespace {

std::string_view policy_name(PreemptionPolicy p) {
  return p == PreemptionPolicy::Never ? "Never" : "PreemptLowerPriority";
}

// The admission plugin computes the policy from the class (PreemptLowerPriority without one) and
// refuses a pod spec that states another.
void set_policy(PodSpec& spec, const PriorityRef& ref, PreemptionPolicy computed) {
  if (ref.preemption_policy && *ref.preemption_policy != computed) {
    throw ConfigError(
        ref.preemption_policy_where, ref.preemption_policy_field,
        fmt::format("preemptionPolicy {} contradicts the {} that the pod's PriorityClass gives; "
                    "leave spec.preemptionPolicy unset",
                    policy_name(*ref.preemption_policy), policy_name(computed)));
  }
  spec.preemption_policy = computed;
}

}  // namespace

void PriorityTable::resolve(PodSpec& spec, const PriorityRef& ref) const {
  if (ref.class_name.empty()) {
    if (ref.value) {
      spec.priority = *ref.value;
      set_policy(spec, ref, ref.preemption_policy.value_or(PreemptionPolicy::PreemptLowerPriority));
    } else if (global_default_) {
      spec.priority = classes_[*global_default_].value;
      spec.priority_class_name = classes_[*global_default_].name;
      set_policy(spec, ref, classes_[*global_default_].preemption_policy);
    } else {
      spec.priority = 0;
      set_policy(spec, ref, PreemptionPolicy::PreemptLowerPriority);
    }
    return;
  }
  for (const PriorityClass& pc : classes_) {
    if (pc.name != ref.class_name) continue;
    if (ref.value && *ref.value != pc.value) {
      throw ConfigError(ref.where, ref.field,
                        fmt::format("spec.priority {} contradicts PriorityClass \"{}\" (value {}); "
                                    "leave spec.priority unset",
                                    *ref.value, pc.name, pc.value));
    }
    spec.priority = pc.value;
    spec.priority_class_name = pc.name;
    set_policy(spec, ref, pc.preemption_policy);
    return;
  }
  std::vector<std::string_view> names;
  for (const PriorityClass& pc : classes_) names.push_back(pc.name);
  throw ConfigError(ref.where, ref.field,
                    fmt::format("no PriorityClass named \"{}\"{}", ref.class_name.substr(0, 80),
                                did_you_mean(ref.class_name, names)));
}

}  // namespace fleetsim
