// Capacity already bought: On-Demand Capacity Reservations and Capacity Blocks for ML, as the
// scenario's `reservations:` declares them, and the reserved offerings they add to the catalog.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fleetsim/core/error.hpp"
#include "fleetsim/core/time.hpp"

namespace fleetsim {

// EC2's reservation types (karpenter.k8s.aws/capacity-reservation-type).
enum class ReservationType : std::uint8_t { Default, CapacityBlock };
std::string_view to_string(ReservationType type);

// Karpenter AWS (CapacityReservationFromEC2): a Capacity Block is "expiring" from 40 minutes
// before its end; its expiration controller then deletes its NodeClaims, 10 minutes before EC2
// begins reclaiming the instances, 30 minutes before the end.
inline constexpr SimDuration kCapacityBlockExpiringBefore = minutes(40);
inline constexpr SimDuration kCapacityBlockReclaimBefore = minutes(30);
// Karpenter AWS prices a reserved offering at the on-demand price divided by this, so that it is
// nearly free yet keeps the types' order for consolidation (reserved_capacity_resolver.go).
inline constexpr double kReservedPriceDivisor = 10'000'000.0;

struct Reservation {
  std::string id;  // "cr-0abc"
  std::string instance_type;
  std::string zone;
  std::int64_t count = 0;  // instances it holds
  SimTime start{};         // the window [start, end), from the run's start
  SimTime end{};
  ReservationType type = ReservationType::Default;
  // A Capacity Block's price per instance-hour (its fee); nullopt for an ODCR, which costs the
  // on-demand rate.
  std::optional<double> price_per_hour;
  bool interruptible = false;
  std::map<std::string, std::string, std::less<>> tags;
  std::string owner_id;
  std::string instance_match_criteria = "targeted";  // open | targeted
  SourceLocation where;
};

// Whether new instances may launch into it at `now`: inside its window, and for a Capacity
// Block not yet expiring.
bool reservation_open(const Reservation& r, SimTime now);

// Capacity Block sizes EC2 sells (instances per block).
bool valid_capacity_block_count(std::int64_t count);

}  // namespace fleetsim
