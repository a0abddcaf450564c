#include "fleetsim/catalog/catalog.hpp"

#include <algorithm>

#include "fleetsim/catalog/instance_labels.hpp"
#include "fleetsim/core/error.hpp"

namespace fleetsim {

const Offering* InstanceType::cheapest_offering(std::optional<CapacityType> ct) const {
  const Offering* best = nullptr;
  // Offerings are sorted by (capacity type, zone), so on a price tie the first zone wins.
  for (const auto& o : offerings) {
    if (ct && o.capacity_type != *ct) continue;
    if (!best || o.price_per_hour < best->price_per_hour) best = &o;
  }
  return best;
}

Catalog::Catalog(std::vector<InstanceType> types, std::string source)
    : types_(std::move(types)), source_(std::move(source)) {
  std::sort(types_.begin(), types_.end(),
            [](const InstanceType& a, const InstanceType& b) { return a.name < b.name; });
  // The loader rejects duplicates with a located error; a duplicate here is a caller's bug.
  FLEETSIM_ASSERT(std::adjacent_find(types_.begin(), types_.end(),
                                     [](const InstanceType& a, const InstanceType& b) {
                                       return a.name == b.name;
                                     }) == types_.end());
  offering_begin_.clear();
  offering_begin_.reserve(types_.size() + 1);
  std::uint32_t next = 0;
  for (const InstanceType& t : types_) {
    offering_begin_.push_back(next);
    next += static_cast<std::uint32_t>(t.offerings.size());
  }
  offering_begin_.push_back(next);
}

Catalog Catalog::with_reservations(std::vector<Reservation> reservations) const {
  std::vector<InstanceType> types = types_;
  for (std::size_t r = 0; r < reservations.size(); ++r) {
    const Reservation& res = reservations[r];
    const std::optional<std::size_t> t = index_of(res.instance_type);
    FLEETSIM_ASSERT(t.has_value());
    const std::optional<std::uint32_t> od =
        find_offering(static_cast<std::uint32_t>(*t), res.zone, CapacityType::OnDemand);
    FLEETSIM_ASSERT(od.has_value());
    types[*t].offerings.push_back(
        Offering{.zone = res.zone,
                 .capacity_type = CapacityType::Reserved,
                 .price_per_hour = offering(*od).price_per_hour / kReservedPriceDivisor,
                 .capacity = res.count,
                 .reservation = static_cast<std::int32_t>(r)});
  }
  // Reserved offerings sort after on-demand and spot; a type's reservations keep their order. A
  // type's capacity-type label now offers `reserved` too.
  for (InstanceType& t : types) {
    std::stable_sort(t.offerings.begin(), t.offerings.end(),
                     [](const Offering& a, const Offering& b) {
                       if (a.capacity_type != b.capacity_type)
                         return a.capacity_type < b.capacity_type;
                       return a.zone < b.zone;
                     });
    if (!t.offerings.empty() && t.offerings.back().reservation >= 0)
      t.requirements = compute_requirements(t);
  }
  Catalog out(std::move(types), source_);
  out.reservation_offering_.assign(reservations.size(), 0);
  for (std::uint32_t type = 0; type < out.types_.size(); ++type) {
    const auto& offerings = out.types_[type].offerings;
    for (std::size_t i = 0; i < offerings.size(); ++i)
      if (offerings[i].reservation >= 0)
        out.reservation_offering_[static_cast<std::size_t>(offerings[i].reservation)] =
            out.offering_index(type, i);
  }
  out.reservations_ = std::move(reservations);
  return out;
}

std::optional<std::size_t> Catalog::index_of(std::string_view name) const {
  auto it = std::lower_bound(types_.begin(), types_.end(), name,
                             [](const InstanceType& t, std::string_view n) { return t.name < n; });
  if (it == types_.end() || it->name != name) return std::nullopt;
  return static_cast<std::size_t>(it - types_.begin());
}

const InstanceType* Catalog::find(std::string_view name) const {
  auto i = index_of(name);
  return i ? &types_[*i] : nullptr;
}

std::vector<std::string> Catalog::zones() const {
  std::vector<std::string> out;
  for (const auto& t : types_)
    for (const auto& o : t.offerings) out.push_back(o.zone);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::optional<std::uint32_t> Catalog::find_offering(std::uint32_t type, std::string_view zone,
                                                    CapacityType capacity_type) const {
  const auto& offerings = types_[type].offerings;
  for (std::size_t i = 0; i < offerings.size(); ++i) {
    if (offerings[i].zone == zone && offerings[i].capacity_type == capacity_type &&
        offerings[i].reservation < 0) {
      return offering_index(type, i);
    }
  }
  return std::nullopt;
}

std::uint32_t Catalog::type_of_offering(std::uint32_t global) const {
  FLEETSIM_ASSERT(global < offering_count());
  // The last type whose first offering is at or before `global`.
  const auto after = std::upper_bound(offering_begin_.begin(), offering_begin_.end(), global);
  return static_cast<std::uint32_t>(after - offering_begin_.begin() - 1);
}

}  // namespace fleetsim
