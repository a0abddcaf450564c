#include "fleetsim/k8s/requirements.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>

namespace fleetsim {

namespace {

std::optional<std::int64_t> as_integer(std::string_view v) {
  std::int64_t out = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || ptr != v.data() + v.size()) return std::nullopt;
  return out;
}

void sort_unique(std::vector<std::string>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

bool is_negative(Operator op) { return op == Operator::NotIn || op == Operator::DoesNotExist; }

}  // namespace

std::optional<Operator> parse_operator(std::string_view text) {
  static constexpr std::array<std::pair<std::string_view, Operator>, 8> kNames{{
      {"In", Operator::In},
      {"NotIn", Operator::NotIn},
      {"Exists", Operator::Exists},
      {"DoesNotExist", Operator::DoesNotExist},
      {"Gt", Operator::Gt},
      {"Lt", Operator::Lt},
      {"Gte", Operator::Gte},
      {"Lte", Operator::Lte},
  }};
  for (auto& [name, op] : kNames)
    if (name == text) return op;
  return std::nullopt;
}

std::string_view to_string(Operator op) {
  switch (op) {
    case Operator::In:
      return "In";
    case Operator::NotIn:
      return "NotIn";
    case Operator::Exists:
      return "Exists";
    case Operator::DoesNotExist:
      return "DoesNotExist";
    case Operator::Gt:
      return "Gt";
    case Operator::Lt:
      return "Lt";
    case Operator::Gte:
      return "Gte";
    case Operator::Lte:
      return "Lte";
  }
  return "?";
}

Requirement Requirement::make(Operator op, std::vector<std::string> values) {
  switch (op) {
    case Operator::In: {
      sort_unique(values);
      return Requirement(false, std::move(values));
    }
    case Operator::NotIn: {
      sort_unique(values);
      return Requirement(true, std::move(values));
    }
    case Operator::Exists:
      return exists();
    case Operator::DoesNotExist:
      return does_not_exist();
    case Operator::Gt:
    case Operator::Lt:
    case Operator::Gte:
    case Operator::Lte: {
      // Callers validate that exactly one integer value is given; be safe regardless.
      Requirement r = exists();
      std::optional<std::int64_t> n = values.size() == 1 ? as_integer(values[0]) : std::nullopt;
      if (!n) return does_not_exist();
      if (op == Operator::Gt) r.gte_ = *n + 1;
      if (op == Operator::Gte) r.gte_ = *n;
      if (op == Operator::Lt) r.lte_ = *n - 1;
      if (op == Operator::Lte) r.lte_ = *n;
      return r;
    }
  }
  return exists();
}

Requirement Requirement::single(std::string value) {
  return Requirement(false, {std::move(value)});
}

bool Requirement::allows(std::string_view value) const {
  if (gte_ || lte_) {
    auto n = as_integer(value);
    if (!n || (gte_ && *n < *gte_) || (lte_ && *n > *lte_)) return false;
  }
  bool listed = std::binary_search(values_.begin(), values_.end(), value);
  return complement_ ? !listed : listed;
}

void Requirement::apply_bounds() {
  if (gte_ && lte_ && *gte_ > *lte_) {
    complement_ = false;
    values_.clear();
    return;
  }
  if (!complement_ && (gte_ || lte_)) {
    std::erase_if(values_, [&](const std::string& v) {
      auto n = as_integer(v);
      return !n || (gte_ && *n < *gte_) || (lte_ && *n > *lte_);
    });
  }
}

Requirement Requirement::intersection(const Requirement& other) const {
  Requirement out = does_not_exist();
  if (complement_ && other.complement_) {
    out.complement_ = true;
    std::set_union(values_.begin(), values_.end(), other.values_.begin(), other.values_.end(),
                   std::back_inserter(out.values_));
  } else if (complement_) {
    for (const auto& v : other.values_)
      if (!std::binary_search(values_.begin(), values_.end(), v)) out.values_.push_back(v);
  } else if (other.complement_) {
    for (const auto& v : values_)
      if (!std::binary_search(other.values_.begin(), other.values_.end(), v))
        out.values_.push_back(v);
  } else {
    std::set_intersection(values_.begin(), values_.end(), other.values_.begin(),
                          other.values_.end(), std::back_inserter(out.values_));
  }
  auto tighter_low = [](std::optional<std::int64_t> a, std::optional<std::int64_t> b) {
    if (!a) return b;
    if (!b) return a;
    return std::optional<std::int64_t>(std::max(*a, *b));
  };
  auto tighter_high = [](std::optional<std::int64_t> a, std::optional<std::int64_t> b) {
    if (!a) return b;
    if (!b) return a;
    return std::optional<std::int64_t>(std::min(*a, *b));
  };
  out.gte_ = tighter_low(gte_, other.gte_);
  out.lte_ = tighter_high(lte_, other.lte_);
  out.apply_bounds();
  if (min_values_ || other.min_values_)
    out.min_values_ = std::max(min_values_.value_or(0), other.min_values_.value_or(0));
  return out;
}

std::size_t Requirement::size() const {
  if (!complement_) return values_.size();
  if (gte_ && lte_) {
    // A bounded integer range minus explicit exclusions.
    auto span = static_cast<std::size_t>(*lte_ - *gte_ + 1);
    std::size_t excluded = 0;
    for (const auto& v : values_) {
      auto n = as_integer(v);
      if (n && *n >= *gte_ && *n <= *lte_) ++excluded;
    }
    return span - excluded;
  }
  return kUnbounded - values_.size();
}

Operator Requirement::effective_operator() const {
  // A bare bound (Gt/Lt/Gte/Lte) reads as Exists, as in Karpenter.
  if (complement_) return values_.empty() ? Operator::Exists : Operator::NotIn;
  return values_.empty() ? Operator::DoesNotExist : Operator::In;
}

std::optional<std::string_view> Requirement::single_value() const {
  if (!complement_ && values_.size() == 1) return std::string_view(values_[0]);
  return std::nullopt;
}

std::string Requirement::to_string() const {
  std::string bounds;
  if (gte_) bounds += fmt::format(" >={}", *gte_);
  if (lte_) bounds += fmt::format(" <={}", *lte_);
  switch (effective_operator()) {
    case Operator::In:
      return fmt::format("In [{}]{}", fmt::join(values_, ","), bounds);
    case Operator::NotIn:
      return fmt::format("NotIn [{}]{}", fmt::join(values_, ","), bounds);
    case Operator::Exists:
      return "Exists" + bounds;
    default:
      return "DoesNotExist";
  }
}

std::string Requirement::describe(std::size_t shown) const {
  std::string bounds;
  if (gte_) bounds += fmt::format(" >={}", *gte_);
  if (lte_) bounds += fmt::format(" <={}", *lte_);
  auto listed = [&](std::string_view op) {
    std::string out = fmt::format("{} [", op);
    for (std::size_t i = 0; i < values_.size() && i < shown; ++i)
      out += fmt::format("{}{}", i == 0 ? "" : ", ", values_[i]);
    if (values_.size() > shown) out += ", …";
    return out + "]" + bounds;
  };
  switch (effective_operator()) {
    case Operator::In:
      return listed("In");
    case Operator::NotIn:
      return listed("NotIn");
    case Operator::Exists:
      return bounds.empty() ? "Exists" : bounds.substr(1);
    default:
      return "DoesNotExist";
  }
}

Requirements Requirements::from_labels(const Labels& labels) {
  Requirements r;
  for (const auto& [k, v] : labels) r.by_key_.emplace(k, Requirement::single(v));
  return r;
}

void Requirements::add(const std::string& key, const Requirement& r) {
  auto it = by_key_.find(key);
  if (it == by_key_.end()) {
    by_key_.emplace(key, r);
  } else {
    it->second = it->second.intersection(r);
  }
}

void Requirements::add(const Requirements& other) {
  for (const auto& [k, r] : other.by_key_) add(k, r);
}

bool Requirements::has_min_values() const {
  for (const auto& [key, r] : by_key_)
    if (r.min_values()) return true;
  return false;
}

const Requirement* Requirements::get(std::string_view key) const {
  auto it = by_key_.find(key);
  return it == by_key_.end() ? nullptr : &it->second;
}

std::optional<std::string> Requirements::first_conflict(const Requirements& incoming) const {
  // Walk both ordered maps together: keys present on both sides.
  auto a = by_key_.begin();
  auto b = incoming.by_key_.begin();
  while (a != by_key_.end() && b != incoming.by_key_.end()) {
    if (a->first < b->first) {
      ++a;
    } else if (b->first < a->first) {
      ++b;
    } else {
      if (a->second.intersection(b->second).empty() &&
          !(is_negative(a->second.effective_operator()) &&
            is_negative(b->second.effective_operator()))) {
        return a->first;
      }
      ++a;
      ++b;
    }
  }
  return std::nullopt;
}

std::optional<std::string> Requirements::incompatibility(const Requirements& incoming) const {
  for (const auto& [key, req] : incoming.by_key_) {
    if (is_well_known_label(key) || has(key) || is_negative(req.effective_operator())) continue;
    return fmt::format("label \"{}\" is not defined by the NodePool", key);
  }
  if (auto key = first_conflict(incoming)) {
    return fmt::format("{} requires {} but the node offers {}", *key,
                       incoming.get(*key)->to_string(), get(*key)->to_string());
  }
  return std::nullopt;
}

Labels Requirements::single_valued_labels() const {
  Labels out;
  for (const auto& [k, r] : by_key_)
    if (auto v = r.single_value()) out.emplace(k, std::string(*v));
  return out;
}

bool is_well_known_label(std::string_view key) {
  static constexpr std::array<std::string_view, 8> kCore{
      label::kZone, label::kRegion,       label::kInstanceType, label::kArch,
      label::kOs,   label::kCapacityType, label::kNodePool,     "topology.k8s.aws/zone-id"};
  for (auto k : kCore)
    if (k == key) return true;
  // Every karpenter.k8s.aws/instance-* label is well known to the AWS provider, and EKS Auto
  // Mode's eks.amazonaws.com/instance-* equivalents to Auto Mode.
  return key.starts_with("karpenter.k8s.aws/instance-") ||
         key.starts_with("karpenter.k8s.aws/capacity-reservation") ||
         key.starts_with("eks.amazonaws.com/instance-") || key == "eks.amazonaws.com/compute-type";
}

}  // namespace fleetsim
