#include "fleetsim/k8s/gpu_setup.hpp"

#include <fmt/format.h>

namespace fleetsim {

std::string gpu_admission_error(const NodeGpuSetup& setup, const Resources& requests) {
  if (!setup.fail_requests_greater_than_one || !setup.replicated) return {};
  const std::int64_t n = requests[*setup.replicated];
  if (n <= 1) return {};
  // internal/rm/rm.go ValidateRequest, for time-slicing and MPS alike.
  return fmt::format("maximum request size for shared resources is 1; found {}", n);
}

}  // namespace fleetsim
