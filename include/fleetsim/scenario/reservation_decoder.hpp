// The scenario's `reservations:` and EC2NodeClasses' capacityReservationSelectorTerms.
#pragma once

#include <span>
#include <vector>

#include "fleetsim/catalog/catalog.hpp"
#include "fleetsim/catalog/reservations.hpp"
#include "fleetsim/k8s/nodepool.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"

namespace fleetsim {

// `reservations: [{id, instance_type, zone, count, start, end, type, price_per_hour,
// interruptible, tags, owner_id, instance_match_criteria}]`, checked against the catalog: a
// window that ends before it starts, an unknown type, zone or reservation type, a Capacity Block
// without its price or of a size EC2 does not sell, and a duplicate id fail with their field.
std::vector<Reservation> decode_reservations(const YamlValue& value, const Catalog& catalog);

// spec.capacityReservationSelectorTerms, validated as the EC2NodeClass CRD validates them.
std::vector<CapacityReservationSelectorTerm> decode_capacity_reservation_terms(
    const YamlValue& value);

// The reservations (indices) the terms select, in the reservations' order: a term with an `id`
// selects that reservation; one with tags and/or instanceMatchCriteria selects those that have
// every tag ("*": any value) and that criteria, owned by `ownerID` when it is given.
std::vector<std::int32_t> select_reservations(
    std::span<const CapacityReservationSelectorTerm> terms,
    std::span<const Reservation> reservations);

}  // namespace fleetsim
