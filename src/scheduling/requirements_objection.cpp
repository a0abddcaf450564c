#include "fleetsim/scheduling/requirements_objection.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <set>
#include <vector>

namespace fleetsim {

namespace {

constexpr std::size_t kShownValues = 5;

bool is_negative(Operator op) { return op == Operator::NotIn || op == Operator::DoesNotExist; }

bool is_integer(const std::string& s) {
  long long n = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  return ec == std::errc() && end == s.data() + s.size();
}

// "In [a, b, …]" over label values, numbers in numeric order (instance-cpu 2, 4, 16).
std::string values_text(const std::set<std::string>& values) {
  std::vector<std::string> sorted(values.begin(), values.end());
  if (std::all_of(sorted.begin(), sorted.end(), is_integer))
    std::sort(sorted.begin(), sorted.end(), [](const std::string& a, const std::string& b) {
      return a.size() != b.size() ? a.size() < b.size() : a < b;
    });
  std::string out = "In [";
  for (std::size_t i = 0; i < sorted.size() && i < kShownValues; ++i)
    out += fmt::format("{}{}", i == 0 ? "" : ", ", sorted[i]);
  return out + (sorted.size() > kShownValues ? ", …]" : "]");
}

// "a", "a and b", "a, b and c".
std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i)
    out += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  return out;
}

// Why one key alone leaves none of the pool's types: what those types carry for it. For GPU
// memory, the catalog's usable memory of the largest GPU (what the model must fit in).
std::string outside_types(const SchedulingContext& ctx, const TypeSet& pool_types,
                          const std::string& what, const std::string& key, std::string_view noun) {
  const auto& types = ctx.catalog().types();
  if (key == label::kGpuMemory) {
    const InstanceType* largest = nullptr;
    pool_types.for_each([&](std::size_t t) {
      if (!types[t].gpu_name.empty() &&
          (largest == nullptr || types[t].gpu_memory_mib > largest->gpu_memory_mib))
        largest = &types[t];
    });
    if (largest == nullptr)
      return fmt::format("{} is outside the {}'s instance types: none has a GPU", what, noun);
    return fmt::format(
        "{} is outside the {}'s instance types: their largest GPU has {} MiB usable "
        "({} on {})",
        what, noun, largest->gpu_memory_mib, largest->gpu_name, largest->name);
  }
  std::set<std::string> values;
  pool_types.for_each([&](std::size_t t) {
    if (const Requirement* r = types[t].requirements.get(key))
      for (const std::string& v : r->values())
        if (!r->is_complement()) values.insert(v);
  });
  if (values.empty())
    return fmt::format("{} is outside the {}'s instance types: none has label {}", what, noun, key);
  return fmt::format("{} is outside the {}'s instance types ({} {})", what, noun, key,
                     values_text(values));
}

// Karpenter's Compatible (requirements.go): a custom label must be defined by `have`, then every
// shared key must intersect. Upstream names the first undefined key and each conflicting one;
// this names the first of either, in key order, so the reason is deterministic. `who`: "the
// NodePool".
std::optional<std::string> compatibility(const PodSpec& spec, const Requirements& term,
                                         const Requirements& have, const std::string& who) {
  for (const auto& [key, req] : term.entries()) {
    if (is_well_known_label(key) || have.has(key) || is_negative(req.effective_operator()))
      continue;
    return fmt::format("{}: label \"{}\" is not defined by {}",
                       describe_pod_requirement(spec, key, req), key, who);
  }
  if (auto key = have.first_conflict(term)) {
    return fmt::format("{} is outside {}'s {} {}",
                       describe_pod_requirement(spec, *key, *term.get(*key)), who, *key,
                       have.get(*key)->describe());
  }
  return std::nullopt;
}

}  // namespace

std::string describe_pod_requirement(const PodSpec& spec, const std::string& key,
                                     const Requirement& requirement) {
  if (const Requirement* selected = spec.node_selector.get(key);
      selected && *selected == requirement)
    if (auto value = selected->single_value())
      return fmt::format("nodeSelector {}={}", key, *value);
  return fmt::format("node affinity {} {}", key, requirement.describe());
}

std::optional<std::string> requirements_objection(const SchedulingContext& ctx, std::uint32_t pool,
                                                  const PodSpec& spec, const Requirements& term,
                                                  const TypeSet* term_types) {
  const PoolTemplate& tpl = ctx.pools()[pool];
  const std::string_view noun = pool_noun(*tpl.pool);
  if (auto why = compatibility(spec, term, tpl.requirements, fmt::format("the {}", noun)))
    return why;
  if (tpl.types.none())
    return fmt::format("the {}'s requirements allow no instance type of the catalog", noun);
  TypeSet left = tpl.types;
  left &= term_types != nullptr ? *term_types : ctx.compatible_types(term);
  if (!left.none()) return std::nullopt;
  // The instance types' labels exclude every type: name the key that does it alone, else the
  // keys that do it together.
  const auto& types = ctx.catalog().types();
  std::vector<std::string> together;
  for (const auto& [key, req] : term.entries()) {
    Requirements one;
    one.add(key, req);
    bool any = false, all = true;
    tpl.types.for_each([&](std::size_t t) {
      const bool allowed = !types[t].requirements.first_conflict(one);
      any = any || allowed;
      all = all && allowed;
    });
    const std::string what = describe_pod_requirement(spec, key, req);
    if (!any) return outside_types(ctx, tpl.types, what, key, noun);
    if (!all) together.push_back(what);
  }
  if (together.empty())  // cannot happen: a key that excludes no type leaves the others theirs
    return fmt::format("the pod's node requirements exclude every instance type of the {}", noun);
  return fmt::format("{} together exclude every instance type of the {}", joined(together), noun);
}

std::string_view pool_noun(const NodePool& pool) {
  return pool.node_group ? "node group" : "NodePool";
}

std::optional<std::string> node_labels_objection(const PodSpec& spec, const Requirements& term,
                                                 const Requirements& labels, std::string_view who) {
  return compatibility(spec, term, labels, std::string(who));
}

}  // namespace fleetsim
