#include "fleetsim/cloudprovider/aws/ebs_volumes.hpp"

namespace fleetsim {

std::int64_t ebs_bytes(std::span<const BlockDevice> volumes) {
  if (volumes.empty()) return aws_sizing::kDefaultRootVolumeBytes;
  std::int64_t total = 0;
  for (const BlockDevice& v : volumes) total += v.size_bytes;
  return total;
}

}  // namespace fleetsim
