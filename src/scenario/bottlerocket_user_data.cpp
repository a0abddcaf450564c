#include "fleetsim/scenario/bottlerocket_user_data.hpp"

#include <fmt/format.h>

#include <cctype>
#include <regex>
#include <string>
#include <vector>

#include "fleetsim/scenario/embedded_yaml.hpp"

namespace fleetsim {

namespace {

constexpr std::string_view kPlugin = "settings.kubelet-device-plugins.nvidia";

// One `key = value` of the TOML, its full dotted path (table and key, quotes removed).
struct TomlValue {
  std::string path;
  std::string value;  // a string's contents, or the raw text of anything else
  int line = 0;
  int col = 0;
};

bool bare_key_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_';
}

// A dotted key from `pos` ("a.\"b.c\".d"), up to `stop`; nullopt when malformed.
std::optional<std::string> dotted_key(std::string_view text, std::size_t& pos, char stop) {
  std::string out;
  bool want_part = true;
  while (pos < text.size()) {
    const char c = text[pos];
    if (c == ' ' || c == '\t') {
      ++pos;
    } else if (c == stop) {
      break;
    } else if (c == '.' && !want_part) {
      out += '.';
      want_part = true;
      ++pos;
    } else if ((c == '"' || c == '\'') && want_part) {
      const std::size_t end = text.find(c, pos + 1);
      if (end == std::string_view::npos) return std::nullopt;
      out.append(text.substr(pos + 1, end - pos - 1));
      pos = end + 1;
      want_part = false;
    } else if (bare_key_char(c) && want_part) {
      while (pos < text.size() && bare_key_char(text[pos])) out += text[pos++];
      want_part = false;
    } else {
      return std::nullopt;
    }
  }
  if (want_part || pos >= text.size()) return std::nullopt;
  return out;
}

// The TOML's values, line by line: tables ([a.b]), `key = value` with a string (basic or
// literal) or any other value on one line, comments. Arrays of tables and multi-line values are
// beyond what Bottlerocket's settings use and fail.
std::vector<TomlValue> parse_toml(const std::string& text, const TextOrigin& origin) {
  std::vector<TomlValue> out;
  std::string table;
  int line_no = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string_view line(text.data() + start, end - start);
    ++line_no;
    start = end + 1;
    std::size_t pos = line.find_first_not_of(" \t\r");
    auto fail = [&](std::string why) {
      throw ConfigError(
          origin.map({.line = line_no,
                      .col = static_cast<int>(pos == std::string_view::npos ? 0 : pos) + 1}),
          "userData", "Bottlerocket userData is TOML: " + std::move(why));
    };
    if (pos == std::string_view::npos || line[pos] == '#') {
      if (end == text.size()) break;
      continue;
    }
    if (line[pos] == '[') {
      if (pos + 1 < line.size() && line[pos + 1] == '[') fail("arrays of tables are not read");
      ++pos;
      const std::size_t header_col = pos;
      const std::optional<std::string> key = dotted_key(line, pos, ']');
      if (!key) {
        pos = header_col - 1;
        fail("a table header is [dotted.key]");
      }
      table = *key;
    } else {
      const std::size_t key_col = pos;
      const std::optional<std::string> key = dotted_key(line, pos, '=');
      if (!key) {
        pos = key_col;
        fail("expected key = value");
      }
      ++pos;
      while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
      if (pos >= line.size()) fail("a key has no value");
      std::string value;
      const char q = line[pos];
      if (q == '"' || q == '\'') {
        if (line.substr(pos, 3) == std::string(3, q)) fail("multi-line strings are not read");
        const std::size_t close = line.find(q, pos + 1);
        if (close == std::string_view::npos) fail("a string is not closed");
        value = std::string(line.substr(pos + 1, close - pos - 1));
      } else {
        std::string_view raw = line.substr(pos);
        if (const std::size_t hash = raw.find('#'); hash != std::string_view::npos)
          raw = raw.substr(0, hash);
        while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\t' || raw.back() == '\r'))
          raw.remove_suffix(1);
        value = std::string(raw);
      }
      out.push_back({.path = table.empty() ? *key : table + "." + *key,
                     .value = std::move(value),
                     .line = line_no,
                     .col = static_cast<int>(key_col) + 1});
    }
    if (end == text.size()) break;
  }
  return out;
}

// One setting, by its full dotted path ("settings.kubelet-device-plugins.nvidia.mig.profile.…").
struct Setting {
  std::string path;
  std::string value;
  SourceLocation where;
};

// The MIG settings among `settings`, or nullopt when device-partitioning-strategy is not "mig";
// the others get one warning at `where`, on `field` (errors name `key`, its last part).
std::optional<BottlerocketMig> mig_settings(const std::vector<Setting>& settings,
                                            const SourceLocation& where, std::string_view field,
                                            DecodeContext& ctx) {
  const std::string key(field.substr(field.rfind('.') + 1));
  const std::string strategy_key = std::string(kPlugin) + ".device-partitioning-strategy";
  const std::string profile_prefix = std::string(kPlugin) + ".mig.profile.";
  // The settings API's formats (nvidia-migmanager GPU_MODEL_REGEX, MIG_PROFILE_REGEX): a model
  // key, and a profile or a count.
  static const std::regex kModel(R"([A-Za-z]\d+\.\d+gb)");
  static const std::regex kValue(R"(\d+|\d+g\.\d+gb)");
  BottlerocketMig mig{.where = where};
  bool enabled = false;
  std::vector<std::string> unmodelled;
  for (const Setting& v : settings) {
    if (v.path == strategy_key) {
      if (v.value != "mig" && v.value != "none")
        throw ConfigError(v.where, key,
                          fmt::format("{}: \"{}\" is not a partitioning strategy; expected mig "
                                      "or none",
                                      strategy_key, v.value.substr(0, 40)));
      enabled = v.value == "mig";
    } else if (v.path.starts_with(profile_prefix)) {
      const std::string gpu = v.path.substr(profile_prefix.size());
      if (!std::regex_match(gpu, kModel) || !std::regex_match(v.value, kValue))
        throw ConfigError(v.where, key,
                          fmt::format("{}.mig.profile: \"{}\" = \"{}\" is not a GPU model "
                                      "(\"a100.80gb\") and a MIG profile (\"3g.40gb\") or a count "
                                      "of partitions (\"2\"), as Bottlerocket's settings API "
                                      "requires",
                                      kPlugin, gpu.substr(0, 40), v.value.substr(0, 40)));
      mig.profiles.push_back({.gpu = gpu, .value = v.value, .where = v.where});
    } else {
      unmodelled.push_back(v.path);
    }
  }
  // The other settings (the device plugin's time-slicing or MPS, the kubelet's max-pods and
  // reservations, the cluster's endpoint, …): one warning naming the first.
  if (!unmodelled.empty())
    ctx.warnings.add(WarningCode::UnmodelledField, where, ctx.kind + "." + std::string(field),
                     fmt::format("Bottlerocket's {}{} not modelled; ignored (only {}'s "
                                 "device-partitioning-strategy and mig.profile are read)",
                                 unmodelled.front(),
                                 unmodelled.size() > 1 ? fmt::format(" and {} other settings are",
                                                                     unmodelled.size() - 1)
                                                       : std::string(" is"),
                                 kPlugin));
  if (!enabled) return std::nullopt;
  return mig;
}

// eksctl's settings as the API's dotted paths: nested mappings' keys joined, under "settings".
void flatten_settings(const YamlValue& v, const std::string& path, std::vector<Setting>& out) {
  if (v.is_map()) {
    YamlMap m(v);
    for (const YamlMap::Entry& e : m.entries()) flatten_settings(e.value, path + "." + e.key, out);
    return;
  }
  out.push_back({.path = path,
                 .value = v.is_scalar() ? v.node().Scalar() : std::string(),
                 .where = v.where()});
}

}  // namespace

bool is_bottlerocket_node_class(const YamlMap& spec) {
  for (const YamlMap::Entry& e : spec.entries()) {
    const YAML::Node& n = e.value.node();
    if (e.key == "amiFamily" && n.IsScalar() && n.Scalar() == "Bottlerocket") return true;
    if (e.key != "amiSelectorTerms" || !n.IsSequence()) continue;
    for (const YAML::Node& term : n) {
      if (!term.IsMap() || !term["alias"] || !term["alias"].IsScalar()) continue;
      if (term["alias"].Scalar().starts_with("bottlerocket@")) return true;
    }
  }
  return false;
}

std::optional<BottlerocketMig> decode_bottlerocket_user_data(const YamlValue& user_data,
                                                             DecodeContext& ctx) {
  const TextOrigin origin = text_origin(user_data);
  std::vector<Setting> settings;
  for (const TomlValue& v : parse_toml(user_data.as_string(), origin))
    settings.push_back(
        {.path = v.path, .value = v.value, .where = origin.map({.line = v.line, .col = v.col})});
  return mig_settings(settings, user_data.where(), "spec.userData", ctx);
}

std::optional<BottlerocketMig> decode_bottlerocket_settings(const YamlValue& settings,
                                                            std::string_view field,
                                                            DecodeContext& ctx) {
  if (!settings.is_map()) settings.fail("Bottlerocket's settings are a mapping");
  std::vector<Setting> flat;
  flatten_settings(settings, "settings", flat);
  return mig_settings(flat, settings.where(), field, ctx);
}

}  // namespace fleetsim
