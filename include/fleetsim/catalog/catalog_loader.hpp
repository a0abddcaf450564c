// Reads an instance catalog directory (DESIGN.md §6: instance-types.csv, offerings.csv).
#pragma once

#include <filesystem>
#include <string_view>

#include "fleetsim/catalog/catalog.hpp"

namespace fleetsim {

inline constexpr std::string_view kInstanceTypesFile = "instance-types.csv";
inline constexpr std::string_view kOfferingsFile = "offerings.csv";

// Reads both files of `dir` (and its optional GPU tables: gpu_hardware_loader.hpp), sizes every
// type as Karpenter's AWS provider does with its default kubelet settings (a NodeClass's own sizing
// is the cloud provider's: CloudProvider:: instance_types) and computes its label requirements.
// Columns are found by header name, in any order; unknown columns are ignored (an optional
// `accelerator_manufacturer` column is read when present). Types come out sorted by name and
// their offerings by (capacity type, zone).
//
// Throws CatalogError at file:line:col, naming the column, for: a missing file or column, an
// empty file or one without rows, a malformed, negative or absurd value, an unknown arch or
// capacity type, a duplicate type or offering, an offering of an unknown type, and a type with no
// offerings; and the GPU tables' errors (load_gpu_hardware).
Catalog load_catalog(const std::filesystem::path& dir);

// Whether `bucket` is a Spot Instance Advisor interruption band: "<5%", "5-10%", "10-15%",
// "15-20%" or ">20%".
bool is_interruption_bucket(std::string_view bucket);

}  // namespace fleetsim
