#include "fleetsim/scenario/reservation_decoder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <set>

#include "fleetsim/scenario/name_hint.hpp"

namespace fleetsim {

namespace {

constexpr std::array<std::string_view, 12> kReservationKeys{
    "id",   "instance_type",  "zone",          "count", "start",    "end",
    "type", "price_per_hour", "interruptible", "tags",  "owner_id", "instance_match_criteria"};

// EC2's own alphabets (the EC2NodeClass CRD's patterns).
bool is_reservation_id(std::string_view id) {
  return id.size() > 3 && id.starts_with("cr-") &&
         std::all_of(id.begin() + 3, id.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z'); });
}

bool is_owner_id(std::string_view id) {
  return id.size() == 12 &&
         std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string decode_match_criteria(const YamlValue& v) {
  std::string text = v.as_string();
  if (text != "open" && text != "targeted")
    v.fail(fmt::format("unknown instance match criteria \"{}\"; expected open or targeted",
                       text.substr(0, 40)));
  return text;
}

Reservation decode_one(const YamlValue& item, const Catalog& catalog) {
  YamlMap m(item);
  Reservation r;
  r.where = item.where();
  const YamlValue id = m.require("id");
  r.id = id.as_string();
  if (!is_reservation_id(r.id))
    id.fail(
        fmt::format("\"{}\" is not a capacity reservation id (cr- and lower-case letters or "
                    "digits)",
                    r.id.substr(0, 60)));
  const YamlValue type_value = m.require("instance_type");
  r.instance_type = type_value.as_string();
  const InstanceType* type = catalog.find(r.instance_type);
  if (type == nullptr) {
    std::vector<std::string_view> names;
    for (const auto& it : catalog.types()) names.push_back(it.name);
    type_value.fail(fmt::format("instance type \"{}\" is not in the catalog{}",
                                r.instance_type.substr(0, 60),
                                did_you_mean(r.instance_type, names)));
  }
  const YamlValue zone = m.require("zone");
  r.zone = zone.as_string();
  std::vector<std::string> zones;
  for (const Offering& o : type->offerings)
    if (o.capacity_type == CapacityType::OnDemand) zones.push_back(o.zone);
  if (std::find(zones.begin(), zones.end(), r.zone) == zones.end())
    zone.fail(fmt::format("{} is not sold on demand in zone \"{}\" (zones: {})", type->name,
                          r.zone.substr(0, 60), fmt::join(zones, ", ")));
  const YamlValue count = m.require("count");
  r.count = count.as_int(1, 100'000);
  if (auto t = m.get("type")) {
    const std::string text = t->as_string();
    if (text == "capacity-block") {
      r.type = ReservationType::CapacityBlock;
    } else if (text != "default") {
      t->fail(fmt::format("unknown reservation type \"{}\"; expected default or capacity-block",
                          text.substr(0, 40)));
    }
  }
  if (r.type == ReservationType::CapacityBlock && !valid_capacity_block_count(r.count))
    count.fail(
        fmt::format("a Capacity Block holds 1, 2, 4, 8, 16, 32 or 64 instances, not {}", r.count));
  const YamlValue start = m.require("start");
  r.start = kSimStart + start.as_duration();
  if (r.start < kSimStart) start.fail("start must not be negative");
  const YamlValue end = m.require("end");
  r.end = kSimStart + end.as_duration();
  if (r.end <= r.start)
    end.fail(fmt::format("the window ends ({}) before it starts ({})", end.as_string(),
                         start.as_string()));
  if (auto price = m.get("price_per_hour")) {
    if (r.type != ReservationType::CapacityBlock)
      price->fail("price_per_hour is a Capacity Block's fee; an ODCR costs the on-demand rate");
    const double p = price->as_double();
    if (p < 0) price->fail("price_per_hour must not be negative");
    r.price_per_hour = p;
  } else if (r.type == ReservationType::CapacityBlock) {
    m.value().fail(
        "a Capacity Block needs its price_per_hour (USD per instance-hour; block prices change)");
  }
  if (auto v = m.get("interruptible")) r.interruptible = v->as_bool();
  if (auto v = m.get("tags")) r.tags = v->as_string_map();
  if (auto v = m.get("owner_id")) {
    r.owner_id = v->as_string();
    if (!is_owner_id(r.owner_id)) v->fail("owner_id is an AWS account id: 12 digits");
  }
  if (auto v = m.get("instance_match_criteria"))
    r.instance_match_criteria = decode_match_criteria(*v);
  m.reject_unread(kReservationKeys);
  return r;
}

}  // namespace

std::vector<Reservation> decode_reservations(const YamlValue& value, const Catalog& catalog) {
  std::vector<Reservation> out;
  std::set<std::string, std::less<>> ids;
  for (const YamlValue& item : value.items()) {
    Reservation r = decode_one(item, catalog);
    if (!ids.insert(r.id).second)
      YamlMap(item).require("id").fail(fmt::format("reservation \"{}\" is declared twice", r.id));
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<CapacityReservationSelectorTerm> decode_capacity_reservation_terms(
    const YamlValue& value) {
  std::vector<CapacityReservationSelectorTerm> out;
  for (const YamlValue& item : value.items()) {
    YamlMap m(item);
    CapacityReservationSelectorTerm t;
    if (auto id = m.get("id")) {
      t.id = id->as_string();
      if (!is_reservation_id(t.id))
        id->fail(fmt::format("\"{}\" does not match ^cr-[0-9a-z]+$", t.id.substr(0, 60)));
    }
    if (auto tags = m.get("tags")) {
      t.tags = tags->as_string_map();
      for (const auto& [k, v] : t.tags)
        if (k.empty() || v.empty()) tags->fail("empty tag keys or values aren't supported");
    }
    if (auto owner = m.get("ownerID")) {
      t.owner_id = owner->as_string();
      if (!is_owner_id(t.owner_id)) owner->fail("ownerID does not match ^[0-9]{12}$");
    }
    if (auto imc = m.get("instanceMatchCriteria"))
      t.instance_match_criteria = decode_match_criteria(*imc);
    // The CRD's two rules.
    if (t.id.empty() && t.tags.empty() && t.instance_match_criteria.empty())
      item.fail("expected at least one, got none, ['tags', 'id', 'instanceMatchCriteria']");
    if (!t.id.empty() &&
        (!t.tags.empty() || !t.owner_id.empty() || !t.instance_match_criteria.empty()))
      item.fail(
          "'id' is mutually exclusive, cannot be set along with other fields in a capacity "
          "reservation selector term");
    m.reject_unread(
        std::array<std::string_view, 4>{"id", "tags", "ownerID", "instanceMatchCriteria"});
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<std::int32_t> select_reservations(
    std::span<const CapacityReservationSelectorTerm> terms,
    std::span<const Reservation> reservations) {
  auto matches = [](const CapacityReservationSelectorTerm& t, const Reservation& r) {
    if (!t.id.empty()) return t.id == r.id;
    if (!t.owner_id.empty() && t.owner_id != r.owner_id) return false;
    if (!t.instance_match_criteria.empty() &&
        t.instance_match_criteria != r.instance_match_criteria)
      return false;
    for (const auto& [key, value] : t.tags) {
      const auto it = r.tags.find(key);
      if (it == r.tags.end() || (value != "*" && it->second != value)) return false;
    }
    return true;
  };
  std::vector<std::int32_t> out;
  for (std::size_t r = 0; r < reservations.size(); ++r)
    if (std::any_of(terms.begin(), terms.end(), [&](const CapacityReservationSelectorTerm& t) {
          return matches(t, reservations[r]);
        }))
      out.push_back(static_cast<std::int32_t>(r));
  return out;
}

}  // namespace fleetsim
