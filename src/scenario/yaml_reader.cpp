#include "fleetsim/scenario/yaml_reader.hpp"

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

#include <charconv>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>

#include "fleetsim/scenario/name_hint.hpp"
#include "fleetsim/scenario/warning_log.hpp"

namespace fleetsim {

namespace {

// Scalars shown in messages are cut short and stripped of control bytes, so that a binary or
// non-UTF-8 file still yields a readable one-line error.
constexpr std::size_t kMaxShownScalar = 40;

std::string shown(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, kMaxShownScalar)) {
    out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  }
  if (text.size() > kMaxShownScalar) out += "…";
  return out;
}

bool is_quoted(const YAML::Node& node) { return node.Tag() == "!"; }

SourceLocation location(const std::string& file, const YAML::Mark& mark) {
  if (mark.is_null()) return SourceLocation{.file = file};
  return SourceLocation{.file = file, .line = mark.line + 1, .col = mark.column + 1};
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// YamlValue

YamlValue::YamlValue(YAML::Node node, std::shared_ptr<const std::string> file, std::string prefix)
    : node_(std::move(node)),
      file_(std::move(file)),
      path_(std::move(prefix)),
      local_start_(path_.size()),
      fallback_mark_(YAML::Mark::null_mark()) {}

YamlValue::YamlValue(YAML::Node node, std::shared_ptr<const std::string> file, std::string path,
                     std::size_t local_start, YAML::Mark fallback)
    : node_(std::move(node)),
      file_(std::move(file)),
      path_(std::move(path)),
      local_start_(local_start),
      fallback_mark_(fallback) {}

std::string_view YamlValue::local_path() const {
  std::string_view p(path_);
  p.remove_prefix(std::min(local_start_, p.size()));
  if (!p.empty() && p.front() == '.') p.remove_prefix(1);
  return p;
}

SourceLocation YamlValue::where() const {
  if (node_.IsDefined()) {
    YAML::Mark m = node_.Mark();
    if (!m.is_null()) return location(*file_, m);
  }
  return location(*file_, fallback_mark_);
}

ConfigError YamlValue::error(std::string_view message) const {
  return ConfigError(where(), path_, std::string(message));
}

void YamlValue::fail(std::string_view message) const { throw error(message); }

bool YamlValue::is_null() const { return !node_.IsDefined() || node_.IsNull(); }

std::string YamlValue::describe() const {
  if (is_null()) return "null";
  if (is_map()) return "a mapping";
  if (is_seq()) return "a list";
  return fmt::format("a scalar (\"{}\")", shown(node_.Scalar()));
}

void YamlValue::require_scalar(std::string_view expected) const {
  if (!is_scalar()) fail(fmt::format("expected {}, got {}", expected, describe()));
}

std::string YamlValue::as_string() const {
  require_scalar("a string");
  return node_.Scalar();
}

std::int64_t YamlValue::as_int(std::int64_t min, std::int64_t max) const {
  require_scalar("an integer");
  const std::string& text = node_.Scalar();
  std::int64_t out = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  // A quoted number is a string to Kubernetes' decoder, which rejects it for integer fields.
  if (is_quoted(node_) || ptr != text.data() + text.size() || ec == std::errc::invalid_argument) {
    fail(fmt::format("expected an integer, got {}", describe()));
  }
  if (ec == std::errc::result_out_of_range || out < min || out > max) {
    fail(fmt::format("{} is out of range [{}, {}]", shown(text), min, max));
  }
  return out;
}

bool YamlValue::as_bool() const {
  require_scalar("true or false");
  const std::string& t = node_.Scalar();
  if (!is_quoted(node_)) {
    if (t == "true" || t == "True" || t == "TRUE") return true;
    if (t == "false" || t == "False" || t == "FALSE") return false;
  }
  fail(fmt::format("expected true or false, got {}", describe()));
}

double YamlValue::as_double() const {
  require_scalar("a number");
  const std::string& t = node_.Scalar();
  double out = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
  if (t.empty() || ptr != t.data() + t.size() || ec != std::errc{} || !std::isfinite(out))
    fail(fmt::format("expected a finite number, got {}", describe()));
  return out;
}

SimDuration YamlValue::as_duration() const {
  require_scalar("a duration");
  const std::string& t = node_.Scalar();
  if (auto d = parse_duration(t)) return *d;
  fail(fmt::format("invalid duration \"{}\"; use Go forms such as 90s, 5m or 1h30m", shown(t)));
}

Quantity YamlValue::as_quantity() const {
  require_scalar("a quantity");
  const std::string& t = node_.Scalar();
  if (!t.empty() && t.front() == '-')
    fail(fmt::format("quantity \"{}\" must not be negative", shown(t)));
  QuantityProblem problem{};
  if (auto q = parse_quantity(t, problem)) return *q;
  if (problem == QuantityProblem::TooLarge)
    fail(fmt::format("quantity \"{}\" is too large: at most {}", shown(t), kMaxQuantityUnits));
  fail(fmt::format("invalid quantity \"{}\"; use Kubernetes forms such as 500m, 2 or 16Gi",
                   shown(t)));
}

std::vector<YamlValue> YamlValue::items() const {
  std::vector<YamlValue> out;
  if (is_null()) return out;
  if (!is_seq()) fail(fmt::format("expected a list, got {}", describe()));
  out.reserve(node_.size());
  std::size_t i = 0;
  for (auto it = node_.begin(); it != node_.end(); ++it, ++i) out.push_back(element(*it, i));
  return out;
}

Labels YamlValue::as_string_map() const {
  Labels out;
  YamlMap map(*this);
  for (const auto& e : map.entries()) {
    e.read = true;
    if (e.value.is_null()) {
      out.emplace(e.key, std::string());
    } else {
      out.emplace(e.key, e.value.as_string());
    }
  }
  return out;
}

YamlValue YamlValue::child(const YAML::Node& node, std::string_view key) const {
  std::string path = path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
  YAML::Mark mark = node_.IsDefined() ? node_.Mark() : fallback_mark_;
  return YamlValue(node, file_, std::move(path), local_start_, mark);
}

YamlValue YamlValue::element(const YAML::Node& node, std::size_t index) const {
  YAML::Mark mark = node_.IsDefined() ? node_.Mark() : fallback_mark_;
  return YamlValue(node, file_, fmt::format("{}[{}]", path_, index), local_start_, mark);
}

// ---------------------------------------------------------------------------------------------
// YamlMap

YamlMap::YamlMap(const YamlValue& value) : value_(value) {
  if (value.is_null()) return;
  if (!value.is_map()) value.fail(fmt::format("expected a mapping, got {}", value.describe()));
  std::set<std::string, std::less<>> seen;
  const YAML::Node& node = value.node();
  for (auto it = node.begin(); it != node.end(); ++it) {
    YamlValue key = value.child(it->first, "<key>");
    if (!it->first.IsScalar()) {
      throw ConfigError(key.where(), value.path(),
                        fmt::format("mapping keys must be strings, got {}", key.describe()));
    }
    const std::string& text = it->first.Scalar();
    YamlValue v = value.child(it->second, text);
    if (text == "<<") {
      throw ConfigError(key.where(), v.path(),
                        "YAML merge keys (<<) are not supported; write the fields out");
    }
    if (!seen.insert(text).second) {
      throw ConfigError(key.where(), v.path(), fmt::format("duplicate key \"{}\"", shown(text)));
    }
    entries_.push_back(Entry{.key = text, .key_where = key.where(), .value = std::move(v)});
  }
}

const YamlMap::Entry* YamlMap::find(std::string_view key) const {
  for (const Entry& e : entries_)
    if (e.key == key) return &e;
  return nullptr;
}

std::optional<YamlValue> YamlMap::get(std::string_view key) const {
  const Entry* e = find(key);
  if (e == nullptr) return std::nullopt;
  e->read = true;
  if (e->value.is_null()) return std::nullopt;
  return e->value;
}

YamlValue YamlMap::require(std::string_view key) const {
  if (auto v = get(key)) return *v;
  std::string path =
      value_.path().empty() ? std::string(key) : fmt::format("{}.{}", value_.path(), key);
  // A misspelt key is the likeliest reason: name it.
  for (const Entry& e : entries_) {
    if (e.read) continue;
    const std::array<std::string_view, 1> wanted{key};
    if (closest_name(e.key, wanted)) {
      throw ConfigError(value_.where(), path,
                        fmt::format("required field is missing (is \"{}\" at {}:{} a typo of it?)",
                                    shown(e.key), e.key_where.line, e.key_where.col));
    }
  }
  throw ConfigError(value_.where(), path, "required field is missing");
}

void YamlMap::ignore(std::initializer_list<std::string_view> keys) const {
  for (std::string_view k : keys)
    if (const Entry* e = find(k)) e->read = true;
}

void YamlMap::check_unread(WarningLog& log, std::string_view kind, const ApiType& type,
                           std::string_view message) const {
  for (const Entry& e : entries_) {
    if (e.read) continue;
    std::string field = fmt::format("{}.{}", kind, strip_indices(e.value.local_path()));
    if (type.has(e.key)) {
      log.add_unmodelled(e.key_where, std::move(field), std::string(message));
      continue;
    }
    std::string hint = did_you_mean(e.key, type.fields);
    if (log.field_validation() == FieldValidation::Lenient) {
      log.add(WarningCode::UnknownField, e.key_where, std::move(field),
              fmt::format("unknown field ({} has no such field{}); ignored", type.name, hint));
      continue;
    }
    throw ConfigError(
        e.key_where, e.value.path(),
        fmt::format("unknown field ({} has no such field){} (--lenient, or the scenario's "
                    "manifest_validation: lenient, reads it as a warning)",
                    type.name, hint));
  }
}

void YamlMap::reject_unread(std::span<const std::string_view> known) const {
  for (const Entry& e : entries_) {
    if (e.read) continue;
    throw ConfigError(e.key_where, e.value.path(),
                      fmt::format("unknown key; expected one of {}{}", fmt::join(known, ", "),
                                  did_you_mean(e.key, known)));
  }
}

std::string strip_indices(std::string_view path) {
  std::string out;
  out.reserve(path.size());
  for (std::size_t i = 0; i < path.size(); ++i) {
    out += path[i];
    if (path[i] != '[') continue;
    std::size_t j = i + 1;
    while (j < path.size() && path[j] >= '0' && path[j] <= '9') ++j;
    if (j < path.size() && path[j] == ']' && j > i + 1) i = j - 1;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Files

namespace {

std::string too_many_nodes_message() {
  return fmt::format("too many YAML nodes (alias expansion?); at most {} are read per file",
                     kMaxYamlNodesPerFile);
}

// Walks every document, expanding aliases as a consumer would, and stops at the budget. An
// explicit stack keeps deep or cyclic alias structures from exhausting the C++ stack.
void check_node_budget(const YamlDocuments& docs) {
  std::size_t visited = 0;
  std::vector<YAML::Node> stack;
  for (const YAML::Node& doc : docs.documents) {
    stack.push_back(doc);
    while (!stack.empty()) {
      YAML::Node n = stack.back();
      stack.pop_back();
      if (++visited > kMaxYamlNodesPerFile) {
        YAML::Mark m = doc.Mark();
        throw ConfigError(location(*docs.file, m), "", too_many_nodes_message());
      }
      if (n.IsSequence()) {
        for (auto it = n.begin(); it != n.end(); ++it) stack.push_back(*it);
      } else if (n.IsMap()) {
        for (auto it = n.begin(); it != n.end(); ++it) {
          stack.push_back(it->first);
          stack.push_back(it->second);
        }
      }
    }
  }
}

// Counts parse events and stops at the node budget. yaml-cpp spends most of its time building
// nodes (seconds per million), so a 16 MiB file of tiny nodes is refused here, before any are
// built. Aliases count once: their expansion is check_node_budget's job.
class EventBudget : public YAML::EventHandler {
 public:
  explicit EventBudget(const std::string& file) : file_(file) {}
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t) override { count(m); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { count(m); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                const std::string&) override {
    count(m);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    count(m);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    count(m);
  }
  void OnMapEnd() override {}

 private:
  void count(const YAML::Mark& m) {
    if (++events_ > kMaxYamlNodesPerFile)
      throw ConfigError(location(file_, m), "", too_many_nodes_message());
  }
  const std::string& file_;
  std::size_t events_ = 0;
};

[[noreturn]] void rethrow_yaml_error(const std::string& file, const YAML::Exception& e) {
  if (dynamic_cast<const YAML::DeepRecursion*>(&e) != nullptr) {
    throw ConfigError(location(file, e.mark), "", "invalid YAML: nested too deeply");
  }
  throw ConfigError(location(file, e.mark), "", fmt::format("invalid YAML: {}", e.msg));
}

}  // namespace

YamlDocuments parse_yaml(std::string_view text, std::string file_name) {
  YamlDocuments out{.file = std::make_shared<const std::string>(std::move(file_name)),
                    .documents = {}};
  std::string input(text);
  try {
    std::istringstream in(input);
    YAML::Parser parser(in);
    EventBudget budget(*out.file);
    while (parser.HandleNextDocument(budget)) {
    }
    out.documents = YAML::LoadAll(input);
  } catch (const YAML::Exception& e) {
    rethrow_yaml_error(*out.file, e);
  }
  check_node_budget(out);
  return out;
}

YamlDocuments load_yaml_file(const std::filesystem::path& path,
                             const SourceLocation& referenced_from, std::string_view field) {
  auto failure = [&](std::string_view message) {
    if (referenced_from.file.empty())
      return ConfigError(SourceLocation{.file = path.string()}, "", std::string(message));
    return ConfigError(referenced_from, std::string(field),
                       fmt::format("{}: {}", message, path.string()));
  };
  std::error_code ec;
  auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) throw failure("file not found");
  if (std::filesystem::is_directory(status)) throw failure("is a directory, not a file");
  if (!std::filesystem::is_regular_file(status)) throw failure("not a regular file");
  auto size = std::filesystem::file_size(path, ec);
  if (ec) throw failure("cannot read file");
  if (size > kMaxYamlFileBytes) {
    throw failure(fmt::format("file is larger than {} MiB", kMaxYamlFileBytes / (1024 * 1024)));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw failure("cannot open file");
  std::string text(static_cast<std::size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  if (in.bad()) throw failure("cannot read file");
  text.resize(static_cast<std::size_t>(in.gcount()));
  return parse_yaml(text, path.string());
}

}  // namespace fleetsim
