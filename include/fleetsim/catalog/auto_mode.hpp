// EKS Auto Mode's view of the catalog: the instance types it launches, with the
// eks.amazonaws.com/* labels it puts on nodes, and its management fee per type.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "fleetsim/catalog/catalog.hpp"

namespace fleetsim {

// The fee table beside a catalog's offerings: instance_type,effective_from,fee_usd_per_hour.
inline constexpr std::string_view kAutoModeFeesFile = "auto-mode-fees.csv";

struct AutoModeCatalog {
  Catalog catalog;  // the types the table prices; the others Auto Mode never launches
  std::vector<double> fee_by_type;  // $ per instance-hour, by the returned catalog's type index
};

// Keeps the types of `dir`'s fee table, each with the fee in force at the run's start (the
// first row's when the start precedes it), and labels them as Auto Mode does: every
// karpenter.k8s.aws/instance-* label also as eks.amazonaws.com/instance-*, and
// eks.amazonaws.com/compute-type=auto. A missing or malformed table is a CatalogError.
AutoModeCatalog auto_mode_catalog(const Catalog& catalog, const std::filesystem::path& dir,
                                  std::int64_t start_unix_s);

}  // namespace fleetsim
