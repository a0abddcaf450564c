// The instance-type filter of `fleetsim catalog --filter EXPR [--gpu]`, as label requirements.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fleetsim/catalog/catalog.hpp"
#include "fleetsim/k8s/requirements.hpp"

namespace fleetsim {

// Which instance types a listing shows. The expression's conditions become Requirements on the
// same well-known labels a NodePool would use, so a filter selects exactly the types a NodePool
// with those requirements could launch.
struct CatalogFilter {
  Requirements requirements;
  // Keys with a positive condition (=, >=, <, bare `key`…): the type must carry the label.
  // Requirements::first_conflict lets a bounded requirement pass against DoesNotExist, because
  // both read as negative there; this makes `gpu-count>=1` exclude CPU types.
  std::set<std::string, std::less<>> required_keys;
  // Only types with GPUs or accelerators (including fractional GPUs such as g6f).
  bool gpu_only = false;

  bool matches(const InstanceType& t) const;
};

// Parses a comma-separated list of conditions, all of which must hold:
//   key=value   key=v1|v2 (In)   key!=value   key!=v1|v2 (NotIn)
//   key>N   key>=N   key<N   key<=N (integers; memory keys also take 16Gi-style quantities)
//   key (Exists)   !key (DoesNotExist)
// A key is a full well-known label ("karpenter.k8s.aws/instance-gpu-name") or a short alias:
// type, family, category, generation, size, arch, os, cpu (or vcpu), memory (MiB),
// network-bandwidth (Mbps), gpu-name, gpu-manufacturer, gpu-count, gpu-memory (MiB per GPU),
// accelerator-name, accelerator-manufacturer, accelerator-count, capacity-type, zone.
// Throws ConfigError (field "--filter", col = 1-based position in the expression) when malformed.
CatalogFilter parse_catalog_filter(std::string_view expression);

// The short aliases, each with the label it stands for, in the order the help text lists them.
const std::vector<std::pair<std::string_view, std::string_view>>& catalog_filter_aliases();

// The types of `catalog` that `filter` matches, in catalog (name) order.
std::vector<const InstanceType*> select_instance_types(const Catalog& catalog,
                                                       const CatalogFilter& filter);

}  // namespace fleetsim
