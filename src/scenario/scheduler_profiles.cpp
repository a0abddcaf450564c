#include "fleetsim/scenario/scheduler_profiles.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

namespace fleetsim {

namespace {

void resolve(Workload& w, const std::vector<SchedulerProfile>& profiles, WarningLog& warnings) {
  PodSpec& spec = w.pod.spec;
  auto it = std::find_if(profiles.begin(), profiles.end(), [&](const SchedulerProfile& p) {
    return p.scheduler_name == spec.scheduler_name;
  });
  if (it != profiles.end()) {
    spec.scheduler_profile = static_cast<std::int32_t>(it - profiles.begin());
    return;
  }
  spec.scheduler_profile = -1;
  std::string names;
  for (const SchedulerProfile& p : profiles)
    names += (names.empty() ? "" : ", ") + p.scheduler_name;
  // Keyed by the workload: each one that names no profile is told.
  warnings.add(WarningCode::NoSchedulerProfile, w.where,
               fmt::format("{} {}/{}: {}spec.schedulerName", to_string(w.kind), w.namespace_name,
                           w.name, w.kind == WorkloadKind::Pod ? "" : "spec.template."),
               fmt::format("\"{}\" names no kube-scheduler profile ({}); its pods stay Pending: "
                           "no scheduler binds them and no provisioner acts for them",
                           spec.scheduler_name.substr(0, 63), names));
}

}  // namespace

void adopt_scheduler_profiles(std::optional<DecodedSchedulerConfig> config, ScenarioConfig& cfg,
                              WarningLog& warnings) {
  if (config) cfg.scheduler_profiles = std::move(config->profiles);
  const std::vector<SchedulerProfile>& profiles = cfg.scheduler_profiles;
  for (Workload& w : cfg.workloads) resolve(w, profiles, warnings);
  for (JobSource& j : cfg.job_sources) resolve(j.template_workload, profiles, warnings);
  for (ScriptedEvent& e : cfg.events) {
    auto* apply = std::get_if<ApplyManifestsEvent>(&e.action);
    if (apply == nullptr) continue;
    for (Workload& w : apply->workloads) resolve(w, profiles, warnings);
    for (Workload& w : apply->updates) resolve(w, profiles, warnings);
  }
}

}  // namespace fleetsim
