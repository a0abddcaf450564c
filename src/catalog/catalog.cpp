#include "fleetsim/catalog/catalog.hpp"

#include <algorithm>

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
    if (offerings[i].zone == zone && offerings[i].capacity_type == capacity_type) {
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
