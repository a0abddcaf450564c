// The instance catalog: instance types, their allocatable resources and their offerings.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fleetsim/catalog/reservations.hpp"
#include "fleetsim/core/resources.hpp"
#include "fleetsim/k8s/capacity_type.hpp"
#include "fleetsim/k8s/requirements.hpp"
#include "fleetsim/serving/gpu_hardware.hpp"

namespace fleetsim {

// One (zone, capacity type) in which an instance type can be bought.
struct Offering {
  std::string zone{};
  CapacityType capacity_type = CapacityType::OnDemand;
  double price_per_hour = 0.0;             // USD
  std::string interruption_bucket{};       // Spot Advisor band ("<5%", …); empty for on-demand
  std::optional<std::int64_t> capacity{};  // most instances at once; nullopt = unlimited
  // The scenario's reservation this reserved offering sells (Catalog::reservations()), or -1.
  std::int32_t reservation = -1;
};

struct InstanceType {
  std::string name;  // "g5.xlarge"
  std::string family, category, size, arch;
  int generation = 0;
  int vcpu = 0;
  std::int64_t memory_mib = 0;  // EC2 memory before the VM overhead
  int gpu_count = 0;
  std::string gpu_name, gpu_manufacturer;
  std::int64_t gpu_memory_mib = 0;  // per GPU
  std::string accelerator_name;
  std::string accelerator_manufacturer;  // "aws", "qualcomm"; derived from the name when not given
  int accelerator_count = 0;
  double network_gbps = 0;
  int max_pods = 0;  // ENI-limited default
  // From the catalog's gpu-hardware.csv, matched on (gpu_name, gpu_memory_mib); nullopt for a
  // GPU without figures (or a catalog without the file) and for types without GPUs.
  std::optional<GpuHardware> gpu_hardware;
  // From gpu-interconnect.csv; None for single-GPU types and types the file does not list.
  Interconnect gpu_interconnect;

  Resources capacity;     // what the node reports as capacity (limits count this)
  Resources allocatable;  // capacity minus kube-reserved, system-reserved and eviction threshold
  Requirements requirements;        // the well-known labels a node of this type carries
  std::vector<Offering> offerings;  // sorted by (capacity type, zone)

  bool has_gpu() const { return gpu_count > 0 || accelerator_count > 0; }
  // The cheapest offering, optionally of one capacity type.
  const Offering* cheapest_offering(std::optional<CapacityType> ct = std::nullopt) const;
};

// The solver keeps a zone set as one bit per zone: a catalog holds at most this many zones.
inline constexpr std::size_t kMaxZones = 64;

class Catalog {
 public:
  Catalog() = default;
  explicit Catalog(std::vector<InstanceType> types, std::string source = {});

  // This catalog with one reserved offering per reservation (its type, zone and count, priced
  // as Karpenter AWS prices it: the type's on-demand price there ÷ 10,000,000). The caller has
  // checked that each reservation's type exists and is sold on demand in its zone.
  Catalog with_reservations(std::vector<Reservation> reservations) const;
  const std::vector<Reservation>& reservations() const { return reservations_; }
  // The global offering of reservation `r`.
  std::uint32_t reservation_offering(std::size_t r) const { return reservation_offering_[r]; }

  // Types sorted by name; the index of a type is stable for the catalog's life.
  const std::vector<InstanceType>& types() const { return types_; }
  const InstanceType* find(std::string_view name) const;
  std::optional<std::size_t> index_of(std::string_view name) const;
  const std::string& source() const { return source_; }
  // All zones that appear in any offering, sorted.
  std::vector<std::string> zones() const;

  // Offerings numbered across the catalog, type by type in their order: the global index that
  // the solver, the cloud provider and the capacity accounting share.
  std::size_t offering_count() const { return offering_begin_.back(); }
  std::uint32_t offering_index(std::uint32_t type, std::size_t i) const {
    return offering_begin_[type] + static_cast<std::uint32_t>(i);
  }
  // The global index of a type's offering in a zone and capacity type, if it is sold there (a
  // reservation's offering is found only through reservation_offering).
  std::optional<std::uint32_t> find_offering(std::uint32_t type, std::string_view zone,
                                             CapacityType capacity_type) const;
  // The type of a global offering index, and the offering.
  std::uint32_t type_of_offering(std::uint32_t global) const;
  const Offering& offering(std::uint32_t global) const {
    const std::uint32_t type = type_of_offering(global);
    return types_[type].offerings[global - offering_begin_[type]];
  }

 private:
  std::vector<InstanceType> types_;
  std::vector<std::uint32_t> offering_begin_{0};  // per type, plus one end marker
  std::string source_;
  std::vector<Reservation> reservations_;
  std::vector<std::uint32_t> reservation_offering_;
};

}  // namespace fleetsim
