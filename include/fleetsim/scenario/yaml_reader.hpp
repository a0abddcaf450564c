// Typed, located access to YAML: field paths, 1-based marks, unread-field tracking, and the size
// and alias-expansion guards of DESIGN.md §9. Nothing else in fleetsim touches yaml-cpp.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fleetsim/core/error.hpp"
#include "fleetsim/core/quantity.hpp"
#include "fleetsim/core/time.hpp"
#include "fleetsim/k8s/requirements.hpp"
#include "fleetsim/scenario/api_fields.hpp"
#include "fleetsim/scenario/warning_log.hpp"

namespace fleetsim {

class WarningLog;

// DESIGN.md §9: a scenario or manifest file larger than this is refused before it is parsed.
inline constexpr std::uintmax_t kMaxYamlFileBytes = 16 * 1024 * 1024;

// The bounds of Kubernetes' int32 fields, for as_int.
inline constexpr std::int64_t kInt32Min = std::numeric_limits<std::int32_t>::min();
inline constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();
// DESIGN.md §9: nodes visited per file, counting every expansion of an alias. Thousands of
// manifests stay far below it; a "billion laughs" file reaches it within milliseconds.
inline constexpr std::size_t kMaxYamlNodesPerFile = 1'000'000;

// One node of a YAML document together with where it came from: the file, its mark and its
// field path ("spec.template.spec.requirements[2].operator").
class YamlValue {
 public:
  // The root of a document. `prefix` is the path of the document inside a larger file when it is
  // embedded there (an inline manifest at "manifests[2]"); empty for a document of its own.
  YamlValue(YAML::Node node, std::shared_ptr<const std::string> file, std::string prefix = {});

  const YAML::Node& node() const { return node_; }
  const std::string& file() const { return *file_; }
  const std::shared_ptr<const std::string>& file_ptr() const { return file_; }
  // The field path used in error messages.
  const std::string& path() const { return path_; }
  // The path below the document root, without the embedding prefix; warnings are keyed on it so
  // that an inline manifest and a manifest file produce the same warning.
  std::string_view local_path() const;
  SourceLocation where() const;

  ConfigError error(std::string_view message) const;
  [[noreturn]] void fail(std::string_view message) const;

  bool is_null() const;  // null or absent
  bool is_map() const { return node_.IsMap(); }
  bool is_seq() const { return node_.IsSequence(); }
  bool is_scalar() const { return node_.IsScalar(); }
  // For messages: "a mapping", "a list", "a scalar (\"abc\")", "null".
  std::string describe() const;

  // Scalars. Each fails with the field path when the node has another shape or cannot be read.
  std::string as_string() const;
  std::int64_t as_int(std::int64_t min, std::int64_t max) const;
  bool as_bool() const;
  double as_double() const;  // finite
  SimDuration as_duration() const;
  Quantity as_quantity() const;

  // The elements of a list (null reads as an empty list).
  std::vector<YamlValue> items() const;
  // A mapping of strings to strings (labels, annotations, nodeSelector); null reads as empty.
  Labels as_string_map() const;

  // Children, with their paths extended.
  YamlValue child(const YAML::Node& node, std::string_view key) const;
  YamlValue element(const YAML::Node& node, std::size_t index) const;

 private:
  YamlValue(YAML::Node node, std::shared_ptr<const std::string> file, std::string path,
            std::size_t local_start, YAML::Mark fallback);
  void require_scalar(std::string_view expected) const;

  YAML::Node node_;
  std::shared_ptr<const std::string> file_;
  std::string path_;
  std::size_t local_start_ = 0;  // where local_path() begins within path_
  YAML::Mark fallback_mark_;     // the parent's mark, for nodes yaml-cpp gives none
};

// A mapping read field by field. Keys that were never read are reported afterwards, as
// warnings (manifests: "not modelled") or errors (the scenario's own keys).
class YamlMap {
 public:
  struct Entry {
    std::string key;
    SourceLocation key_where;
    YamlValue value;
    mutable bool read = false;
  };

  // Fails unless `value` is a mapping; null reads as an empty mapping. Duplicate keys, non-scalar
  // keys and YAML merge keys ("<<", which yaml-cpp does not expand) fail here too.
  explicit YamlMap(const YamlValue& value);

  const YamlValue& value() const { return value_; }
  const std::vector<Entry>& entries() const { return entries_; }
  bool contains(std::string_view key) const { return find(key) != nullptr; }

  // The value under `key`, marked read; nullopt when absent or null.
  std::optional<YamlValue> get(std::string_view key) const;
  // As get(), but fails with "required field is missing" when absent or null.
  YamlValue require(std::string_view key) const;
  // Marks keys read without decoding them: metadata with no effect on the simulation.
  void ignore(std::initializer_list<std::string_view> keys) const;

  // Reports each unread key of a manifest object of upstream type `type`: a field upstream has
  // gets one warning ("not modelled; ignored" unless `message` says otherwise; none when inert),
  // keyed "<kind>.<path without indices>"; any other field is an error with a "did you mean"
  // hint over `type`'s fields, or a warning when `log` reads manifests leniently.
  void check_unread(WarningLog& log, std::string_view kind, const ApiType& type,
                    std::string_view message = kNotModelled) const;
  // Fails on the first unread key, with a "did you mean" hint drawn from `known`.
  void reject_unread(std::span<const std::string_view> known) const;

 private:
  const Entry* find(std::string_view key) const;

  YamlValue value_;
  std::vector<Entry> entries_;
};

// "spec.containers[3].image" -> "spec.containers[].image": warnings repeat per field, not per item.
std::string strip_indices(std::string_view path);

// The documents of one YAML file, parsed and checked against the guards above.
struct YamlDocuments {
  std::shared_ptr<const std::string> file;
  std::vector<YAML::Node> documents;  // empty documents ("---" twice) are kept as null nodes
};

// Reads and parses a file. A missing, unreadable or oversized file fails with a ConfigError at
// `referenced_from`/`field` (where the scenario names the file), or at the file itself when
// `referenced_from` is empty.
YamlDocuments load_yaml_file(const std::filesystem::path& path,
                             const SourceLocation& referenced_from = {},
                             std::string_view field = {});
// Parses text already in memory; `file_name` is used in messages.
YamlDocuments parse_yaml(std::string_view text, std::string file_name);

}  // namespace fleetsim
