#include "fleetsim/catalog/catalog_filter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>

#include "fleetsim/core/error.hpp"
#include "fleetsim/core/quantity.hpp"

namespace fleetsim {

namespace {

constexpr std::string_view kField = "--filter";
constexpr std::string_view kWhere = "<command line>";

[[noreturn]] void fail(std::size_t pos, std::string message) {
  throw ConfigError({std::string(kWhere), 1, static_cast<int>(pos) + 1}, std::string(kField),
                    std::move(message));
}

std::string_view trim(std::string_view s, std::size_t& offset) {
  while (!s.empty() && s.front() == ' ') {
    s.remove_prefix(1);
    ++offset;
  }
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

bool is_numeric_key(std::string_view key) {
  static constexpr std::array<std::string_view, 7> kNumeric{
      label::kInstanceGeneration,       label::kInstanceCpu, label::kInstanceMemory,
      label::kInstanceNetworkBandwidth, label::kGpuCount,    label::kGpuMemory,
      label::kAcceleratorCount};
  return std::find(kNumeric.begin(), kNumeric.end(), key) != kNumeric.end();
}

bool is_mib_key(std::string_view key) {
  return key == label::kInstanceMemory || key == label::kGpuMemory;
}

std::string_view resolve_key(std::string_view key, std::size_t pos) {
  for (const auto& [alias, full] : catalog_filter_aliases())
    if (key == alias || key == full) return full;
  std::vector<std::string_view> names;
  for (const auto& [alias, full] : catalog_filter_aliases()) names.push_back(alias);
  fail(pos, fmt::format("unknown key \"{}\"; use one of {} or the full label name", key,
                        fmt::join(names, ", ")));
}

// An integer label value. Memory keys also accept binary quantities ("16Gi"), converted to MiB.
std::string number_value(std::string_view key, std::string_view value, std::size_t pos) {
  std::int64_t n = 0;
  auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (ec == std::errc() && ptr == value.data() + value.size() && n >= 0) return std::to_string(n);
  if (is_mib_key(key)) {
    auto q = parse_quantity(value);
    if (q && q->milli % 1000 == 0 && q->value_ceil() % kMib == 0)
      return std::to_string(q->value_ceil() / kMib);
    fail(pos, fmt::format("\"{}\" is not a whole number of MiB (write 16384 or 16Gi)", value));
  }
  fail(pos, fmt::format("\"{}\" is not a non-negative whole number", value));
}

void parse_condition(std::string_view cond, std::size_t pos, CatalogFilter& out) {
  // Bare `key` and `!key`: Exists and DoesNotExist.
  std::size_t op_at = cond.find_first_of("!=<>", cond.starts_with('!') ? 1 : 0);
  if (op_at == std::string_view::npos) {
    bool negated = cond.starts_with('!');
    std::size_t key_pos = pos + (negated ? 1 : 0);
    std::string key(resolve_key(cond.substr(negated ? 1 : 0), key_pos));
    out.requirements.add(key, negated ? Requirement::does_not_exist() : Requirement::exists());
    if (!negated) out.required_keys.insert(key);
    return;
  }
  if (cond.starts_with('!')) fail(pos, fmt::format("\"{}\": '!' negates a bare key only", cond));

  std::string_view op_text;
  Operator op = Operator::In;
  std::string_view rest = cond.substr(op_at);
  if (rest.starts_with("!=")) {
    op_text = "!=", op = Operator::NotIn;
  } else if (rest.starts_with(">=")) {
    op_text = ">=", op = Operator::Gte;
  } else if (rest.starts_with("<=")) {
    op_text = "<=", op = Operator::Lte;
  } else if (rest.starts_with("=")) {
    op_text = "=", op = Operator::In;
  } else if (rest.starts_with(">")) {
    op_text = ">", op = Operator::Gt;
  } else if (rest.starts_with("<")) {
    op_text = "<", op = Operator::Lt;
  } else {
    fail(pos + op_at, fmt::format("\"{}\": '!' must be followed by '='", cond));
  }

  std::size_t key_off = 0;
  std::string_view key_text = trim(cond.substr(0, op_at), key_off);
  if (key_text.empty()) fail(pos, fmt::format("\"{}\": missing key before '{}'", cond, op_text));
  std::string key(resolve_key(key_text, pos + key_off));

  std::size_t value_pos = pos + op_at + op_text.size();
  std::size_t value_off = 0;
  std::string_view value_text = trim(cond.substr(op_at + op_text.size()), value_off);
  value_pos += value_off;
  if (value_text.empty())
    fail(value_pos, fmt::format("\"{}\": missing value after '{}'", cond, op_text));

  bool numeric = is_numeric_key(key);
  std::vector<std::string> values;
  if (op == Operator::In || op == Operator::NotIn) {
    std::size_t start = 0;
    while (true) {
      std::size_t bar = value_text.find('|', start);
      std::size_t off = 0;
      std::string_view v =
          trim(value_text.substr(start, bar == std::string_view::npos ? bar : bar - start), off);
      if (v.empty())
        fail(value_pos + start, fmt::format("\"{}\": empty value in a '|' list", cond));
      values.push_back(numeric ? number_value(key, v, value_pos + start + off) : std::string(v));
      if (bar == std::string_view::npos) break;
      start = bar + 1;
    }
  } else {
    if (!numeric)
      fail(pos, fmt::format("\"{}\": '{}' compares numbers, and {} is not numeric", cond, op_text,
                            key_text));
    if (value_text.find('|') != std::string_view::npos)
      fail(value_pos, fmt::format("\"{}\": '{}' takes one value", cond, op_text));
    values.push_back(number_value(key, value_text, value_pos));
  }
  out.requirements.add(key, Requirement::make(op, std::move(values)));
  if (op != Operator::NotIn) out.required_keys.insert(key);
}

}  // namespace

const std::vector<std::pair<std::string_view, std::string_view>>& catalog_filter_aliases() {
  static const std::vector<std::pair<std::string_view, std::string_view>> kAliases{
      {"type", label::kInstanceType},
      {"family", label::kInstanceFamily},
      {"category", label::kInstanceCategory},
      {"generation", label::kInstanceGeneration},
      {"size", label::kInstanceSize},
      {"arch", label::kArch},
      {"os", label::kOs},
      {"cpu", label::kInstanceCpu},
      {"vcpu", label::kInstanceCpu},
      {"memory", label::kInstanceMemory},
      {"network-bandwidth", label::kInstanceNetworkBandwidth},
      {"gpu-name", label::kGpuName},
      {"gpu-manufacturer", label::kGpuManufacturer},
      {"gpu-count", label::kGpuCount},
      {"gpu-memory", label::kGpuMemory},
      {"accelerator-name", label::kAcceleratorName},
      {"accelerator-manufacturer", label::kAcceleratorManufacturer},
      {"accelerator-count", label::kAcceleratorCount},
      {"capacity-type", label::kCapacityType},
      {"zone", label::kZone},
  };
  return kAliases;
}

CatalogFilter parse_catalog_filter(std::string_view expression) {
  CatalogFilter out;
  std::size_t lead = 0;
  if (trim(expression, lead).empty()) fail(0, "empty filter expression");
  std::size_t start = 0;
  while (true) {
    std::size_t comma = expression.find(',', start);
    std::string_view part =
        expression.substr(start, comma == std::string_view::npos ? comma : comma - start);
    std::size_t off = 0;
    std::string_view cond = trim(part, off);
    if (cond.empty()) fail(start, "empty condition (two commas in a row, or a comma at an end)");
    parse_condition(cond, start + off, out);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

bool CatalogFilter::matches(const InstanceType& t) const {
  if (gpu_only && !t.has_gpu() && t.gpu_name.empty()) return false;
  if (t.requirements.first_conflict(requirements)) return false;
  for (const auto& key : required_keys) {
    const Requirement* have = t.requirements.get(key);
    if (!have || have->effective_operator() == Operator::DoesNotExist) return false;
  }
  return true;
}

std::vector<const InstanceType*> select_instance_types(const Catalog& catalog,
                                                       const CatalogFilter& filter) {
  std::vector<const InstanceType*> out;
  for (const auto& t : catalog.types())
    if (filter.matches(t)) out.push_back(&t);
  return out;
}

}  // namespace fleetsim
