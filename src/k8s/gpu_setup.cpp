#include "fleetsim/k8s/gpu_setup.hpp"

#include <fmt/format.h>

namespace fleetsim {

std::optional<MigHold> mig_hold(const NodeGpuSetup& setup, const Resources& requests) {
  for (std::size_t i = 0; i < setup.mig.size(); ++i) {
    const MigInstances& m = setup.mig[i];
    if (!m.resource || requests[*m.resource] <= 0 || m.devices_per_gpu <= 0) continue;
    return MigHold{.profile = i,
                   .instances = static_cast<double>(requests[*m.resource] * m.per_gpu) /
                                static_cast<double>(m.devices_per_gpu)};
  }
  return std::nullopt;
}

double mig_cost_weight(const NodeGpuSetup& setup, std::size_t profile) {
  double all = 0;
  for (const MigInstances& m : setup.mig)
    all += static_cast<double>(m.per_gpu) * static_cast<double>(m.compute_slices);
  const MigInstances& m = setup.mig[profile];
  return all > 0 ? static_cast<double>(m.per_gpu) * static_cast<double>(m.compute_slices) / all
                 : 0.0;
}

std::string gpu_admission_error(const NodeGpuSetup& setup, const Resources& requests) {
  if (!setup.fail_requests_greater_than_one || !setup.replicated) return {};
  const std::int64_t n = requests[*setup.replicated];
  if (n <= 1) return {};
  // internal/rm/rm.go ValidateRequest, for time-slicing and MPS alike.
  return fmt::format("maximum request size for shared resources is 1; found {}", n);
}

}  // namespace fleetsim
