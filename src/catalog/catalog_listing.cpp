#include "fleetsim/catalog/catalog_listing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>
#include <tuple>

#include "fleetsim/core/quantity.hpp"
#include "fleetsim/core/text_table.hpp"

namespace fleetsim {

namespace {

constexpr double kMibPerGib = 1024.0;

std::string price_text(const std::optional<double>& p) {
  return p ? fmt::format("{:.4f}", *p) : "-";
}

std::string gpu_text(const CatalogRow& r) {
  if (r.gpu_name.empty()) return "-";
  // A fractional GPU (g6f) has a GPU model but no whole GPU to count.
  if (r.gpu_count == 0) return r.gpu_name + " slice";
  return fmt::format("{}x {}", r.gpu_count, r.gpu_name);
}

std::string_view interconnect_name(InterconnectKind kind) {
  switch (kind) {
    case InterconnectKind::Pcie:
      return "pcie";
    case InterconnectKind::NvSwitch:
      return "nvswitch";
    case InterconnectKind::None:
      break;
  }
  return "-";
}

// Sorts by an optional price: present prices ascending, absent last, ties by name.
bool price_less(const std::optional<double>& a, const std::optional<double>& b,
                const CatalogRow& ra, const CatalogRow& rb) {
  if (a.has_value() != b.has_value()) return a.has_value();
  if (a && *a != *b) return *a < *b;
  return ra.name < rb.name;
}

}  // namespace

std::vector<CatalogRow> catalog_rows(const std::vector<const InstanceType*>& types,
                                     CatalogOrder order) {
  std::vector<CatalogRow> rows;
  rows.reserve(types.size());
  for (const InstanceType* t : types) {
    CatalogRow r{.name = t->name,
                 .vcpu = t->vcpu,
                 .memory_mib = t->memory_mib,
                 .alloc_cpu_millis = t->allocatable.cpu_millis(),
                 .alloc_memory_mib = t->allocatable.memory_bytes() / kMib,
                 .max_pods = t->allocatable.pods()};
    if (!t->gpu_name.empty()) {
      r.gpu_count = t->gpu_count;
      r.gpu_name = t->gpu_name;
    } else if (!t->accelerator_name.empty()) {
      r.gpu_count = t->accelerator_count;
      r.gpu_name = t->accelerator_name;
    }
    if (const Offering* od = t->cheapest_offering(CapacityType::OnDemand))
      r.on_demand_price = od->price_per_hour;
    if (const Offering* spot = t->cheapest_offering(CapacityType::Spot)) {
      r.spot_price = spot->price_per_hour;
      r.spot_zone = spot->zone;
      r.interruption_bucket = spot->interruption_bucket;
    }
    r.gpu_hardware = t->gpu_hardware;
    r.gpu_interconnect = t->gpu_interconnect;
    rows.push_back(std::move(r));
  }
  switch (order) {
    case CatalogOrder::Name:
      // By family, then by size as a user reads it (xlarge, 2xlarge, … 48xlarge), not lexically.
      std::sort(rows.begin(), rows.end(), [](const CatalogRow& a, const CatalogRow& b) {
        auto family = [](const std::string& n) {
          return std::string_view(n).substr(0, n.find('.'));
        };
        return std::tuple(family(a.name), a.vcpu, a.memory_mib, std::string_view(a.name)) <
               std::tuple(family(b.name), b.vcpu, b.memory_mib, std::string_view(b.name));
      });
      break;
    case CatalogOrder::OnDemandPrice:
      std::sort(rows.begin(), rows.end(), [](const CatalogRow& a, const CatalogRow& b) {
        return price_less(a.on_demand_price, b.on_demand_price, a, b);
      });
      break;
    case CatalogOrder::SpotPrice:
      std::sort(rows.begin(), rows.end(), [](const CatalogRow& a, const CatalogRow& b) {
        return price_less(a.spot_price, b.spot_price, a, b);
      });
      break;
  }
  return rows;
}

std::string format_catalog_table(const std::vector<CatalogRow>& rows) {
  // Numbers read best right-aligned; names and zones left-aligned.
  TextTable<11> table{
      .header = {"TYPE", "VCPU", "MEM GiB", "ALLOC CPU", "ALLOC GiB", "PODS", "GPUS", "OD $/h",
                 "SPOT $/h", "SPOT ZONE", "INTERRUPT"},
      .left = {true, false, false, false, false, false, true, false, false, true, true}};
  table.rows.reserve(rows.size());
  for (const auto& r : rows) {
    table.rows.push_back({
        r.name,
        std::to_string(r.vcpu),
        fmt::format("{:g}", static_cast<double>(r.memory_mib) / kMibPerGib),
        fmt::format("{}m", r.alloc_cpu_millis),
        fmt::format("{:.1f}", static_cast<double>(r.alloc_memory_mib) / kMibPerGib),
        std::to_string(r.max_pods),
        gpu_text(r),
        price_text(r.on_demand_price),
        price_text(r.spot_price),
        r.spot_zone.empty() ? "-" : r.spot_zone,
        r.interruption_bucket.empty() ? "-" : r.interruption_bucket,
    });
  }
  return table.text();
}

std::string format_gpu_table(const std::vector<CatalogRow>& rows) {
  TextTable<10> table{.header = {"TYPE", "GPUS", "GPU GiB", "BW GB/s", "BF16 TF", "FP16 TF",
                                 "FP8 TF", "INT8 TOPS", "LINK", "LINK GB/s"},
                      .left = {true, true, false, false, false, false, false, false, true, false}};
  table.rows.reserve(rows.size());
  for (const auto& r : rows) {
    const std::optional<GpuHardware>& hw = r.gpu_hardware;
    const auto peak = [&](double GpuHardware::*field, double unit) -> std::string {
      if (!hw) return "-";
      const double v = (*hw).*field;
      return v > 0 ? fmt::format("{:g}", v / unit) : "no";
    };
    const Interconnect& link = r.gpu_interconnect;
    table.rows.push_back({
        r.name,
        gpu_text(r),
        hw ? fmt::format("{:.1f}", static_cast<double>(hw->memory_bytes) / kGib) : "-",
        peak(&GpuHardware::memory_bandwidth, kGiga),
        peak(&GpuHardware::bf16_flops, kTera),
        peak(&GpuHardware::fp16_flops, kTera),
        peak(&GpuHardware::fp8_flops, kTera),
        peak(&GpuHardware::int8_ops, kTera),
        std::string(interconnect_name(link.kind)),
        link.kind == InterconnectKind::None ? "-" : fmt::format("{:g}", link.bandwidth / kGiga),
    });
  }
  return table.text();
}

}  // namespace fleetsim
