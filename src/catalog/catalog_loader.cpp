#include "fleetsim/catalog/catalog_loader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <system_error>
#include <tuple>

#include "fleetsim/catalog/aws_node_sizing.hpp"
#include "fleetsim/catalog/gpu_hardware_loader.hpp"
#include "fleetsim/catalog/instance_labels.hpp"
#include "fleetsim/core/csv_reader.hpp"

namespace fleetsim {

namespace {

// Sanity bounds: each far above any EC2 type (the largest has 896 vCPUs, 32 TiB, 1,514 pods,
// 16 accelerators), low enough that a typo cannot overflow the int64 byte arithmetic.
constexpr std::int64_t kMaxVcpu = 100'000;
constexpr std::int64_t kMaxMemoryMib = 1LL << 30;  // 1 PiB
constexpr std::int64_t kMaxPods = 100'000;
constexpr std::int64_t kMaxDevices = 1'024;
constexpr std::int64_t kMaxGeneration = 1'000;
constexpr double kMaxNetworkGbps = 100'000;
constexpr double kMaxPricePerHour = 1'000'000;
constexpr std::int64_t kMaxCapacity = 1'000'000'000;
// Kubernetes label values are at most 63 characters (apimachinery validation.LabelValueMaxLength).
constexpr std::size_t kMaxLabelValue = 63;

// Spot Instance Advisor interruption bands ("frequency of interruption").
constexpr std::array<std::string_view, 5> kInterruptionBuckets{"<5%", "5-10%", "10-15%", "15-20%",
                                                               ">20%"};

// Far above any real catalog (AWS's ~900 types × ~30 offerings is a few MiB), low enough that a
// wrong path pointing at a huge file fails at once instead of exhausting memory.
constexpr std::uintmax_t kMaxFileBytes = 64ULL << 20;

// The §6 headers, for the messages about a missing one.
constexpr std::string_view kTypesHeader =
    "instance_type,family,category,generation,size,arch,vcpu,memory_mib,gpu_count,gpu_name,"
    "gpu_manufacturer,gpu_memory_mib,accelerator_name,accelerator_count,network_gbps,max_pods";
constexpr std::string_view kOfferingsHeader =
    "instance_type,zone,capacity_type,price_usd_per_hour,interruption_bucket,capacity";

CsvReader open_table(const std::filesystem::path& path, std::string_view example_header) {
  return CsvReader(path, CsvOptions{.noun = "catalog table",
                                    .example_header = example_header,
                                    .input = CsvInput::Catalog,
                                    .skip_blank_lines = true,
                                    .max_file_bytes = kMaxFileBytes});
}

std::int64_t parse_int(const CsvReader& t, std::size_t col, std::int64_t min, std::int64_t max,
                       bool empty_is_zero = false) {
  const std::string_view s = t.field(col);
  if (s.empty()) {
    if (empty_is_zero) return 0;
    t.fail(col, "is empty; expected a whole number");
  }
  if (s.front() == '-') t.fail(col, fmt::format("must not be negative (got {})", s));
  std::int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range)
    t.fail(col, fmt::format("{} is too large (at most {})", s, max));
  if (ec != std::errc() || ptr != s.data() + s.size())
    t.fail(col, fmt::format("\"{}\" is not a whole number", s));
  if (v > max) t.fail(col, fmt::format("{} is too large (at most {})", s, max));
  if (v < min) t.fail(col, fmt::format("must be at least {} (got {})", min, s));
  return v;
}

double parse_decimal(const CsvReader& t, std::size_t col, double max, bool empty_is_zero = false) {
  const std::string_view s = t.field(col);
  if (s.empty()) {
    if (empty_is_zero) return 0;
    t.fail(col, "is empty; expected a number");
  }
  if (s.front() == '-') t.fail(col, fmt::format("must not be negative (got {})", s));
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v))
    t.fail(col, fmt::format("\"{}\" is not a number", s));
  if (v > max) t.fail(col, fmt::format("{} is too large (at most {})", s, max));
  return v;
}

bool is_label_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.';
}
bool is_alnum(char c) { return is_label_char(c) && c != '-' && c != '_' && c != '.'; }

// The value becomes a node label, so it must be a valid Kubernetes label value.
std::string checked_label_value(const CsvReader& t, std::size_t col, std::string value,
                                bool required) {
  if (value.empty()) {
    if (required) t.fail(col, "is empty");
    return value;
  }
  if (value.size() > kMaxLabelValue || !std::all_of(value.begin(), value.end(), is_label_char) ||
      !is_alnum(value.front()) || !is_alnum(value.back()))
    t.fail(col, fmt::format("\"{}\" is not a valid label value (at most 63 letters, digits, "
                            "'-', '_' or '.', starting and ending with a letter or digit)",
                            value));
  return value;
}

std::string label_value(const CsvReader& t, std::size_t col) {
  return checked_label_value(t, col, std::string(t.field(col)), true);
}

// A name EC2 reports in words ("Radeon Pro V520") becomes a label in lower kebab case.
std::string kebab_label_value(const CsvReader& t, std::size_t col) {
  return checked_label_value(t, col, lower_kebab_case(t.field(col)), false);
}

struct TypeColumns {
  std::size_t name, family, category, generation, size, arch, vcpu, memory_mib, gpu_count, gpu_name,
      gpu_manufacturer, gpu_memory_mib, accelerator_name, accelerator_count, network_gbps, max_pods;
  std::optional<std::size_t> accelerator_manufacturer;
  std::optional<std::size_t> provider;  // absent or "aws": AWS's naming rules apply

  explicit TypeColumns(const CsvReader& t)
      : name(t.require("instance_type")),
        family(t.require("family")),
        category(t.require("category")),
        generation(t.require("generation")),
        size(t.require("size")),
        arch(t.require("arch")),
        vcpu(t.require("vcpu")),
        memory_mib(t.require("memory_mib")),
        gpu_count(t.require("gpu_count")),
        gpu_name(t.require("gpu_name")),
        gpu_manufacturer(t.require("gpu_manufacturer")),
        gpu_memory_mib(t.require("gpu_memory_mib")),
        accelerator_name(t.require("accelerator_name")),
        accelerator_count(t.require("accelerator_count")),
        network_gbps(t.require("network_gbps")),
        max_pods(t.require("max_pods")),
        accelerator_manufacturer(t.column("accelerator_manufacturer")),
        provider(t.column("provider")) {}
};

struct OfferingColumns {
  std::size_t type, zone, capacity_type, price, bucket, capacity;

  explicit OfferingColumns(const CsvReader& t)
      : type(t.require("instance_type")),
        zone(t.require("zone")),
        capacity_type(t.require("capacity_type")),
        price(t.require("price_usd_per_hour")),
        bucket(t.require("interruption_bucket")),
        capacity(t.require("capacity")) {}
};

// Where a type's row was, for the checks made once every offering is read.
struct TypeRow {
  int line = 0;
  int name_col = 0;
  int memory_col = 0;
};

InstanceType parse_type(const CsvReader& t, const TypeColumns& c) {
  InstanceType it;
  it.name = label_value(t, c.name);
  it.family = label_value(t, c.family);
  it.size = label_value(t, c.size);
  // Karpenter's AWS provider reads family and size off the name; an AWS catalog that disagrees
  // would label nodes differently. Other fleets (on-premises, KWOK) name types as they like.
  const bool aws = !c.provider || t.field(*c.provider).empty() || t.field(*c.provider) == "aws";
  if (c.provider && !aws) label_value(t, *c.provider);
  if (aws && it.name != it.family + "." + it.size)
    t.fail(c.name,
           fmt::format("\"{}\" does not match family \"{}\" and size \"{}\" (expected \"{}.{}\")",
                       it.name, it.family, it.size, it.family, it.size));
  it.category = label_value(t, c.category);
  it.generation = static_cast<int>(parse_int(t, c.generation, 0, kMaxGeneration));
  it.arch = t.field(c.arch);
  if (it.arch != "amd64" && it.arch != "arm64")
    t.fail(c.arch, fmt::format("\"{}\" is not a known arch; expected amd64 or arm64", it.arch));
  it.vcpu = static_cast<int>(parse_int(t, c.vcpu, 1, kMaxVcpu));
  it.memory_mib = parse_int(t, c.memory_mib, 1, kMaxMemoryMib);

  it.gpu_count = static_cast<int>(parse_int(t, c.gpu_count, 0, kMaxDevices, true));
  it.gpu_name = kebab_label_value(t, c.gpu_name);
  it.gpu_manufacturer = kebab_label_value(t, c.gpu_manufacturer);
  it.gpu_memory_mib = parse_int(t, c.gpu_memory_mib, 0, kMaxMemoryMib, true);
  // A GPU name without a count is legal: fractional GPUs (g6f, an L4 slice) have gpu_count 0.
  if (it.gpu_count > 0 && it.gpu_name.empty())
    t.fail(c.gpu_name, fmt::format("is empty but gpu_count is {}", it.gpu_count));
  if (!it.gpu_name.empty() && it.gpu_manufacturer.empty())
    t.fail(c.gpu_manufacturer, "is empty but gpu_name is set");
  if (it.gpu_name.empty() && (!it.gpu_manufacturer.empty() || it.gpu_memory_mib > 0)) {
    std::size_t col = it.gpu_manufacturer.empty() ? c.gpu_memory_mib : c.gpu_manufacturer;
    t.fail(col, "is set but gpu_name is empty");
  }

  it.accelerator_count = static_cast<int>(parse_int(t, c.accelerator_count, 0, kMaxDevices, true));
  it.accelerator_name = kebab_label_value(t, c.accelerator_name);
  if (c.accelerator_manufacturer)
    it.accelerator_manufacturer = kebab_label_value(t, *c.accelerator_manufacturer);
  if (it.accelerator_count > 0 && it.accelerator_name.empty())
    t.fail(c.accelerator_name,
           fmt::format("is empty but accelerator_count is {}", it.accelerator_count));
  if (it.accelerator_manufacturer.empty())
    it.accelerator_manufacturer = std::string(accelerator_manufacturer_for(it.accelerator_name));

  it.network_gbps = parse_decimal(t, c.network_gbps, kMaxNetworkGbps, true);
  it.max_pods = static_cast<int>(parse_int(t, c.max_pods, 1, kMaxPods));
  return it;
}

Offering parse_offering(const CsvReader& t, const OfferingColumns& c) {
  Offering o;
  o.zone = label_value(t, c.zone);
  auto ct = parse_capacity_type(t.field(c.capacity_type));
  if (!ct)
    t.fail(c.capacity_type,
           fmt::format("\"{}\" is not a capacity type; expected on-demand, spot or reserved",
                       t.field(c.capacity_type)));
  o.capacity_type = *ct;
  o.price_per_hour = parse_decimal(t, c.price, kMaxPricePerHour);
  o.interruption_bucket = t.field(c.bucket);
  if (!o.interruption_bucket.empty()) {
    if (o.capacity_type != CapacityType::Spot)
      t.fail(c.bucket, fmt::format("must be empty for {} offerings", to_string(o.capacity_type)));
    if (!is_interruption_bucket(o.interruption_bucket))
      t.fail(c.bucket,
             fmt::format("\"{}\" is not a Spot Advisor band; expected <5%, 5-10%, 10-15%, "
                         "15-20% or >20%",
                         o.interruption_bucket));
  }
  if (!t.field(c.capacity).empty()) o.capacity = parse_int(t, c.capacity, 0, kMaxCapacity);
  return o;
}

}  // namespace

bool is_interruption_bucket(std::string_view bucket) {
  return std::find(kInterruptionBuckets.begin(), kInterruptionBuckets.end(), bucket) !=
         kInterruptionBuckets.end();
}

Catalog load_catalog(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw CatalogError({dir.string()}, "", "catalog directory not found");
  CsvReader types_csv = open_table(dir / kInstanceTypesFile, kTypesHeader);
  TypeColumns tc(types_csv);
  std::vector<InstanceType> types;
  std::vector<TypeRow> type_rows;
  std::map<std::string, std::size_t, std::less<>> by_name;
  while (types_csv.next_row()) {
    InstanceType it = parse_type(types_csv, tc);
    if (auto seen = by_name.find(it.name); seen != by_name.end())
      types_csv.fail(tc.name, fmt::format("duplicate instance type \"{}\" (first on line {})",
                                          it.name, type_rows[seen->second].line));
    by_name.emplace(it.name, types.size());
    types.push_back(std::move(it));
    const auto fields = types_csv.fields();
    type_rows.push_back(TypeRow{.line = types_csv.line(),
                                .name_col = fields[tc.name].col,
                                .memory_col = fields[tc.memory_mib].col});
  }
  // Raised once the file is read through, at a type's row.
  const auto type_error = [&](std::size_t i, int col, std::string_view column,
                              std::string message) {
    return CatalogError({types_csv.file(), type_rows[i].line, col}, std::string(column),
                        std::move(message));
  };

  CsvReader offers_csv = open_table(dir / kOfferingsFile, kOfferingsHeader);
  OfferingColumns oc(offers_csv);
  std::map<std::tuple<std::string, std::string, CapacityType>, int> offering_lines;
  std::set<std::string, std::less<>> zones;
  while (offers_csv.next_row()) {
    const std::string_view type_name = offers_csv.field(oc.type);
    auto owner = by_name.find(type_name);
    if (owner == by_name.end())
      offers_csv.fail(oc.type, fmt::format("unknown instance type \"{}\" (not in {})", type_name,
                                           kInstanceTypesFile));
    Offering o = parse_offering(offers_csv, oc);
    if (zones.insert(o.zone).second && zones.size() > kMaxZones)
      offers_csv.fail(oc.zone, fmt::format("zone \"{}\" is zone {}; a catalog holds at most {} "
                                           "zones",
                                           o.zone, zones.size(), kMaxZones));
    auto [it, inserted] = offering_lines.emplace(
        std::tuple(std::string(type_name), o.zone, o.capacity_type), offers_csv.line());
    if (!inserted)
      offers_csv.fail(oc.type,
                      fmt::format("duplicate offering ({}, {}, {}) (first on line {})", type_name,
                                  o.zone, to_string(o.capacity_type), it->second));
    types[owner->second].offerings.push_back(std::move(o));
  }

  for (std::size_t i = 0; i < types.size(); ++i) {
    InstanceType& it = types[i];
    if (it.offerings.empty())
      throw type_error(
          i, type_rows[i].name_col, "instance_type",
          fmt::format("instance type \"{}\" has no offerings in {}", it.name, kOfferingsFile));
    std::sort(it.offerings.begin(), it.offerings.end(), [](const Offering& a, const Offering& b) {
      return std::tie(a.capacity_type, a.zone) < std::tie(b.capacity_type, b.zone);
    });
    apply_aws_sizing(it);
    // A tiny memory with many pods leaves nothing for pods once kube-reserved is taken.
    if (it.allocatable.memory_bytes() <= 0)
      throw type_error(i, type_rows[i].memory_col, "memory_mib",
                       fmt::format("{} MiB leaves no allocatable memory after the VM overhead, "
                                   "kube-reserved for {} pods and the eviction threshold",
                                   it.memory_mib, it.max_pods));
  }
  load_gpu_hardware(dir, types);
  return Catalog(std::move(types), dir.string());
}

}  // namespace fleetsim
