#include "fleetsim/scenario/service_decoder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>

#include "fleetsim/core/rng.hpp"
#include "fleetsim/scenario/name_hint.hpp"
#include "fleetsim/scenario/trace_tail.hpp"
#include "fleetsim/serving/model_catalog.hpp"
#include "fleetsim/traffic/token_lengths.hpp"
#include "fleetsim/traffic/traffic_replay.hpp"

namespace fleetsim {

namespace {

constexpr std::array<std::string_view, 8> kPatterns{"constant", "poisson", "diurnal", "surge",
                                                    "bursty",   "replay",  "batch",   "closed"};
constexpr std::array<std::string_view, 2> kThinkShapes{"fixed", "exponential"};
constexpr std::array<std::string_view, 9> kServiceKeys{"deployment", "traffic", "serving",
                                                       "slo",        "startup", "model",
                                                       "engine",     "metrics", "simulation"};
constexpr std::array<std::string_view, 2> kServingModes{"requests", "fluid"};
constexpr std::array<std::string_view, 4> kServingKeys{"concurrency", "queue_timeout", "max_queue",
                                                       "service_time"};
constexpr std::array<std::string_view, 4> kServiceTimeModels{"llm", "fixed", "exponential",
                                                             "lognormal"};
constexpr std::array<std::string_view, 3> kStartStates{"stationary", "quiet", "burst"};

// A config field whose scenario key is spelt differently.
struct Alias {
  std::string_view config;
  std::string_view yaml;
};

double as_number(const YamlValue& v) {
  std::string text = v.as_string();
  double out = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (text.empty() || ptr != text.data() + text.size() || ec != std::errc{} ||
      !std::isfinite(out)) {
    v.fail(fmt::format("expected a finite number, got \"{}\"", text.substr(0, 40)));
  }
  return out;
}

// A service whose traffic never arrives is a mistake (a dropped digit, a unit), not a scenario;
// only a bursty pattern's quiet rate may be zero (on/off traffic).
double positive_rate(const YamlValue& v) {
  double r = as_number(v);
  if (r <= 0) v.fail(fmt::format("must be positive, got {}", r));
  return r;
}

// Marks `keys` read and rejects every other key: a typo is reported before anything it hides.
template <std::size_t N>
void only_keys(const YamlMap& m, const std::array<std::string_view, N>& keys) {
  for (std::string_view k : keys) m.ignore({k});
  m.reject_unread(keys);
}

// Re-throws a config's validate() error (located at the mapping, field named as in the config)
// at the scenario key it came from: the deepest key of the dotted field that the mapping spells
// out, or the mapping itself when the field was left at its default.
[[noreturn]] void relocate(const ConfigError& e, const YamlValue& mapping,
                           std::span<const Alias> aliases) {
  std::string field = e.field();
  for (const Alias& a : aliases) {
    if (field == a.config || field.starts_with(std::string(a.config) + ".")) {
      field = std::string(a.yaml) + field.substr(a.config.size());
      break;
    }
  }
  YamlValue at = mapping;
  bool found = false;
  std::string_view rest = field;
  while (!rest.empty()) {
    std::size_t dot = rest.find('.');
    std::string key(rest.substr(0, dot));
    rest = dot == std::string_view::npos ? std::string_view{} : rest.substr(dot + 1);
    if (!at.is_map()) break;
    const YAML::Node& parent = at.node();
    YAML::Node child = parent[key];
    if (!child.IsDefined() || child.IsNull()) break;
    at = at.child(child, key);
    found = true;
  }
  if (found) throw ConfigError(at.where(), at.path(), e.message());
  throw ConfigError(mapping.where(), mapping.path() + "." + field, e.message());
}

template <typename Config>
void validate_at(const Config& config, const YamlValue& mapping,
                 std::span<const Alias> aliases = {}) {
  try {
    validate(config);
  } catch (const ConfigError& e) {
    relocate(e, mapping, aliases);
  }
}

SimDuration positive_duration(const YamlValue& v) {
  SimDuration d = v.as_duration();
  if (d <= SimDuration{0}) v.fail("must be positive");
  return d;
}

TokenDistribution decode_token_distribution(const YamlValue& v) {
  if (v.is_map()) {
    YamlMap m(v);
    only_keys(m, std::array<std::string_view, 2>{"median", "sigma"});
    return TokenDistribution::lognormal(as_number(m.require("median")),
                                        as_number(m.require("sigma")));
  }
  return TokenDistribution::fixed(as_number(v));
}

// An existing file named relative to the scenario, made absolute.
std::filesystem::path existing_file(const YamlValue& v, const SectionContext& sc) {
  std::filesystem::path path = resolve_path(v, sc);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    v.fail(fmt::format("file not found: {}", path.string()));
  std::filesystem::path absolute = std::filesystem::absolute(path, ec).lexically_normal();
  return ec ? path : absolute;
}

TokenConfig decode_tokens(const YamlMap& traffic, const SectionContext& sc) {
  TokenConfig out;
  if (auto t = traffic.get("tokens")) {
    YamlMap m(*t);
    only_keys(m, std::array<std::string_view, 3>{"input", "output", "file"});
    auto in = m.get("input");
    auto o = m.get("output");
    if (auto f = m.get("file")) {
      if (in || o) f->fail("give either a lengths file or input and output counts, not both");
      out.file = existing_file(*f, sc);
      // Every row is checked here, so validate and run decide alike.
      scan_token_lengths(out.file);
    }
    if (in) out.input = decode_token_distribution(*in);
    if (o) out.output = decode_token_distribution(*o);
  }
  return out;
}

ThinkShape decode_think_shape(const YamlValue& v) {
  std::string s = v.as_string();
  if (s == "fixed") return ThinkShape::Fixed;
  if (s == "exponential") return ThinkShape::Exponential;
  v.fail(fmt::format("unknown think distribution \"{}\"; expected fixed or exponential{}",
                     s.substr(0, 40), did_you_mean(s, kThinkShapes)));
}

// What a replayed trace holds that never takes effect: documented columns read past, and rows
// that arrive after the run ends.
void warn_replayed_trace(const RequestTraceSummary& summary, const YamlValue& trace,
                         const ReplayConfig& c, const SectionContext& sc) {
  for (const std::string& column : summary.ignored_columns) {
    sc.warnings->add(WarningCode::IgnoredTraceColumn, trace.where(), trace.path() + "." + column,
                     fmt::format("column {} of {} is not read: fleetsim models no prefix cache, "
                                 "so requests sharing a prefix cost what others do",
                                 column, c.trace.filename().string()));
  }
  warn_rows_after_end(TraceTail{.rows = summary.rows,
                                .after_end = summary.rows_after_end,
                                .first_line = summary.first_line_after_end},
                      c.trace, trace.path(), sc.duration, *sc.warnings);
}

ReplayConfig decode_replay(const YamlMap& m, const SectionContext& sc) {
  ReplayConfig c{.where = m.value().where()};
  YamlValue trace = m.require("trace");
  c.trace = existing_file(trace, sc);
  if (auto v = m.get("time_scale")) c.time_scale = as_number(*v);
  if (auto v = m.get("rate_scale")) c.rate_scale = as_number(*v);
  if (auto v = m.get("offset")) c.trace_offset = v->as_duration();
  if (auto v = m.get("start")) c.start = v->as_duration();
  if (auto v = m.get("loop")) c.loop = v->as_bool();
  if (auto v = m.get("loop_period")) c.loop_period = v->as_duration();
  static constexpr std::array<Alias, 1> kAliases{Alias{"trace_offset", "offset"}};
  validate_at(c, m.value(), kAliases);
  // The run's own checks on the trace (every row, the replayed span, the loop period, the rate),
  // here, so that validate and run decide alike and the error names the scenario key.
  c.run_end = sc.duration;
  try {
    const ReplaySource check(c, RngStream(0, "validate"));
    if (sc.warnings != nullptr) warn_replayed_trace(check.summary(), trace, c, sc);
  } catch (const ConfigError& e) {
    relocate(e, m.value(), kAliases);
  }
  return c;
}

MmppStart decode_start_state(const YamlValue& v) {
  std::string s = v.as_string();
  if (s == "stationary") return MmppStart::Stationary;
  if (s == "quiet") return MmppStart::Quiet;
  if (s == "burst") return MmppStart::Burst;
  v.fail(fmt::format("unknown start_state \"{}\"; expected stationary, quiet or burst{}",
                     s.substr(0, 40), did_you_mean(s, kStartStates)));
}

BaseTrafficConfig to_base(TrafficConfig t) {
  return std::visit(
      [](auto&& c) -> BaseTrafficConfig {
        using C = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<C, SurgeConfig> || std::is_same_v<C, BatchConfig> ||
                      std::is_same_v<C, ClosedConfig>) {
          FLEETSIM_ASSERT(false);  // decode_traffic refuses these as a surge's base
          return PoissonConfig{};
        } else {
          return std::move(c);
        }
      },
      std::move(t));
}

TrafficConfig decode_traffic(const YamlValue& value, const SectionContext& sc, bool is_base) {
  YamlMap m(value);
  YamlValue pattern_v = m.require("pattern");
  std::string pattern = pattern_v.as_string();
  const SourceLocation where = value.where();

  if (pattern == "constant") {
    only_keys(m, std::array<std::string_view, 4>{"pattern", "rps", "first_arrival", "tokens"});
    ConstantConfig c{.rps = positive_rate(m.require("rps")), .where = where};
    if (auto v = m.get("first_arrival")) c.first_arrival = v->as_duration();
    c.tokens = decode_tokens(m, sc);
    validate_at(c, value);
    return c;
  }
  if (pattern == "poisson") {
    only_keys(m, std::array<std::string_view, 3>{"pattern", "rps", "tokens"});
    PoissonConfig c{.rps = positive_rate(m.require("rps")), .where = where};
    c.tokens = decode_tokens(m, sc);
    validate_at(c, value);
    return c;
  }
  if (pattern == "diurnal") {
    only_keys(m, std::array<std::string_view, 5>{"pattern", "mean_rps", "peak_to_trough",
                                                 "peak_hour", "tokens"});
    DiurnalConfig c{.mean_rps = positive_rate(m.require("mean_rps")), .where = where};
    if (auto v = m.get("peak_to_trough")) c.peak_to_trough = as_number(*v);
    if (auto v = m.get("peak_hour")) c.peak_hour = as_number(*v);
    c.tokens = decode_tokens(m, sc);
    validate_at(c, value);
    return c;
  }
  if (pattern == "bursty") {
    only_keys(m, std::array<std::string_view, 7>{"pattern", "quiet_rps", "burst_rps", "mean_quiet",
                                                 "mean_burst", "start_state", "tokens"});
    MmppConfig c{.quiet_rps = as_number(m.require("quiet_rps")),
                 .burst_rps = positive_rate(m.require("burst_rps")),
                 .mean_quiet = m.require("mean_quiet").as_duration(),
                 .mean_burst = m.require("mean_burst").as_duration(),
                 .where = where};
    if (auto v = m.get("start_state")) c.start = decode_start_state(*v);
    c.tokens = decode_tokens(m, sc);
    validate_at(c, value);
    return c;
  }
  if (pattern == "replay") {
    only_keys(m, std::array<std::string_view, 8>{"pattern", "trace", "time_scale", "rate_scale",
                                                 "offset", "start", "loop", "loop_period"});
    return decode_replay(m, sc);
  }
  if (is_base && (pattern == "batch" || pattern == "closed")) {
    pattern_v.fail(fmt::format(
        "a surge's base must be an open pattern (its arrivals scaled by the factor), not {}",
        pattern));
  }
  if (pattern == "batch") {
    only_keys(m, std::array<std::string_view, 4>{"pattern", "requests", "at", "tokens"});
    BatchConfig c{.requests = m.require("requests").as_int(1, kMaxBatchRequests), .where = where};
    if (auto v = m.get("at")) {
      c.at = v->as_duration();
      if (c.at >= sc.duration) {
        v->fail(
            fmt::format("{} is not before the run ends (duration {}): no request would be "
                        "served",
                        format_duration(c.at), format_duration(sc.duration)));
      }
    }
    c.tokens = decode_tokens(m, sc);
    validate_at(c, value);
    return c;
  }
  if (pattern == "closed") {
    only_keys(m, std::array<std::string_view, 6>{"pattern", "users", "think_time",
                                                 "think_distribution", "requests", "tokens"});
    ClosedConfig c{.users = m.require("users").as_int(1, kMaxClosedUsers), .where = where};
    if (auto v = m.get("think_time")) c.think_time = v->as_duration();
    if (auto v = m.get("think_distribution")) c.think = decode_think_shape(*v);
    if (auto v = m.get("requests"))
      c.requests = v->as_int(1, std::numeric_limits<std::int64_t>::max());
    c.tokens = decode_tokens(m, sc);
    validate_at(c, value);
    return c;
  }
  if (pattern == "surge") {
    if (is_base) pattern_v.fail("a surge's base cannot itself be a surge");
    only_keys(m, std::array<std::string_view, 7>{"pattern", "base", "factor", "at", "duration",
                                                 "ramp_up", "ramp_down"});
    SurgeConfig c{.base = to_base(decode_traffic(m.require("base"), sc, true)),
                  .factor = as_number(m.require("factor")),
                  .start = m.require("at").as_duration(),
                  .duration = m.require("duration").as_duration(),
                  .where = where};
    if (auto v = m.get("ramp_up")) c.ramp_up = v->as_duration();
    if (auto v = m.get("ramp_down")) c.ramp_down = v->as_duration();
    static constexpr std::array<Alias, 1> kAliases{Alias{"start", "at"}};
    validate_at(c, value, kAliases);
    return c;
  }
  pattern_v.fail(fmt::format(
      "unknown traffic pattern \"{}\"; expected constant, poisson, diurnal, surge, bursty, "
      "replay, batch or closed{}",
      pattern.substr(0, 40), did_you_mean(pattern, kPatterns)));
}

LlmRates decode_rates(const YamlValue& value) {
  YamlMap m(value);
  only_keys(m, std::array<std::string_view, 2>{"prefill_tokens_per_s", "time_per_output_token"});
  YamlValue prefill = m.require("prefill_tokens_per_s");
  LlmRates r{
      .prefill_tokens_per_s = as_number(prefill),
      .time_per_output_token_s = to_seconds(m.require("time_per_output_token").as_duration())};
  if (r.prefill_tokens_per_s <= 0) prefill.fail("must be positive");
  return r;
}

ServiceTimeModel decode_service_time(const YamlValue& value, std::optional<LlmRates>& rates) {
  YamlMap m(value);
  std::string model = "llm";
  std::optional<YamlValue> model_v = m.get("model");
  if (model_v) model = model_v->as_string();
  if (model == "llm") {
    only_keys(m, std::array<std::string_view, 3>{"model", "slowdown", "rates"});
    LlmServiceTime t;
    if (auto v = m.get("slowdown")) {
      t.slowdown_alpha = as_number(*v);
      if (t.slowdown_alpha < 0 || t.slowdown_alpha > kMaxSlowdownAlpha)
        v->fail(
            fmt::format("must be between 0 and {}, got {}", kMaxSlowdownAlpha, t.slowdown_alpha));
    }
    if (auto v = m.get("rates")) rates = decode_rates(*v);
    // Without measured rates the engine model times each step: batching is in its physics.
    if (!rates) {
      if (auto v = m.get("slowdown"))
        v->fail(
            "applies to measured rates only; without `rates` the engine model's batching "
            "sets how a replica slows as its batch grows");
      return EngineServiceTime{};
    }
    return t;
  }
  if (model == "fixed") {
    only_keys(m, std::array<std::string_view, 2>{"model", "duration"});
    return FixedServiceTime{.duration = positive_duration(m.require("duration"))};
  }
  if (model == "exponential") {
    only_keys(m, std::array<std::string_view, 2>{"model", "mean"});
    return ExponentialServiceTime{.mean = positive_duration(m.require("mean"))};
  }
  if (model == "lognormal") {
    only_keys(m, std::array<std::string_view, 3>{"model", "median", "sigma"});
    LogNormalServiceTime t{.median = positive_duration(m.require("median"))};
    YamlValue sigma = m.require("sigma");
    t.sigma = as_number(sigma);
    if (t.sigma < 0) sigma.fail(fmt::format("must not be negative, got {}", t.sigma));
    return t;
  }
  model_v->fail(fmt::format(
      "unknown service-time model \"{}\"; expected llm, fixed, exponential or lognormal{}",
      model.substr(0, 40), did_you_mean(model, kServiceTimeModels)));
}

ServingConfig decode_serving(const YamlValue& value, std::optional<LlmRates>& rates) {
  YamlMap m(value);
  only_keys(m, kServingKeys);
  ServingConfig c;
  if (auto v = m.get("concurrency"))
    c.concurrency = static_cast<std::uint32_t>(v->as_int(1, kMaxServiceConcurrency));
  if (auto v = m.get("queue_timeout")) c.queue_timeout = positive_duration(*v);
  if (auto v = m.get("max_queue"))
    c.max_queue = static_cast<std::size_t>(v->as_int(1, kMaxServiceQueue));
  if (auto v = m.get("service_time")) c.service_time = decode_service_time(*v, rates);
  return c;
}

LatencySlo decode_slo(const YamlValue& value) {
  YamlMap m(value);
  only_keys(m, std::array<std::string_view, 2>{"ttft", "e2e"});
  LatencySlo slo;
  if (auto v = m.get("ttft")) slo.ttft = positive_duration(*v);
  if (auto v = m.get("e2e")) slo.e2e = positive_duration(*v);
  if (!slo.ttft && !slo.e2e) value.fail("an slo needs ttft, e2e or both");
  return slo;
}

ServiceStartup decode_startup(const YamlValue& value) {
  YamlMap m(value);
  only_keys(m, std::array<std::string_view, 2>{"image_size", "model_load"});
  ServiceStartup out;
  if (auto v = m.get("image_size")) {
    out.image_bytes = v->as_quantity().value_ceil();
    if (out.image_bytes > kMaxImageBytes) {
      v->fail(fmt::format("{} is larger than any container image (at most {})",
                          format_bytes(out.image_bytes), format_bytes(kMaxImageBytes)));
    }
  }
  if (auto v = m.get("model_load")) {
    out.model_load = v->as_duration();
    if (out.model_load < SimDuration{0}) v->fail("must not be negative");
  }
  return out;
}

// "8B", "1.5B", "350M", "1T" or a plain count.
double parse_parameter_count(const YamlValue& v) {
  std::string text = v.as_string();
  double scale = 1;
  if (!text.empty()) {
    switch (text.back()) {
      case 'K':
        scale = 1e3;
        break;
      case 'M':
        scale = 1e6;
        break;
      case 'B':
        scale = 1e9;
        break;
      case 'T':
        scale = 1e12;
        break;
      default:
        break;
    }
    if (scale != 1) text.pop_back();
  }
  double n = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ptr != text.data() + text.size() || ec != std::errc{} || !(n > 0))
    v.fail(fmt::format("expected a parameter count such as 8B, 1.5B or 350M, got \"{}\"",
                       v.as_string().substr(0, 40)));
  n *= scale;
  if (n > 1e14) v.fail("more than 100T parameters is not a model that fits any fleet");
  return n;
}

NumberFormat decode_format(const YamlValue& v) {
  const std::string text = v.as_string();
  if (auto f = parse_number_format(text)) return *f;
  v.fail(fmt::format("unknown number format \"{}\"; expected one of {}", text.substr(0, 40),
                     number_format_names()));
}

constexpr std::array<std::string_view, 14> kArchitectureKeys{"parameters",
                                                             "active_parameters",
                                                             "layers",
                                                             "hidden_size",
                                                             "attention_heads",
                                                             "kv_heads",
                                                             "head_dim",
                                                             "vocabulary",
                                                             "max_context",
                                                             "experts",
                                                             "experts_per_token",
                                                             "kv_elements_per_token_layer",
                                                             "tied_embeddings",
                                                             "name"};

// `model: {name, dtype, kv_dtype}` names a catalog model; or the architecture itself, as its
// config.json gives it.
ServiceModel decode_model(const YamlValue& value) {
  YamlMap m(value);
  if (auto v = m.get("memory"))
    v->fail(
        "fleetsim derives a model's memory and speed from its architecture: name a catalog "
        "model (`fleetsim models` lists them) or give its config.json figures");
  if (auto v = m.get("gpu_memory_utilization"))
    v->fail("is an engine option: write it under the service's `engine:`");
  std::array<std::string_view, kArchitectureKeys.size() + 2> keys{};
  std::copy(kArchitectureKeys.begin(), kArchitectureKeys.end(), keys.begin());
  keys[kArchitectureKeys.size()] = "dtype";
  keys[kArchitectureKeys.size() + 1] = "kv_dtype";
  only_keys(m, keys);
  ServiceModel out{.where = value.where()};
  if (auto v = m.get("dtype")) out.weights = decode_format(*v);
  if (auto v = m.get("kv_dtype")) {
    out.kv_cache = decode_format(*v);
    if (*out.kv_cache == NumberFormat::Int4 || *out.kv_cache == NumberFormat::Int8)
      v->fail("a KV cache is kept in bf16, fp16 or fp8");
  }
  if (auto name = m.get("name")) {
    for (std::string_view key : kArchitectureKeys)
      if (key != "name" && m.get(key))
        m.get(key)->fail("give a catalog model's name or its architecture, not both");
    const ModelCatalog& catalog = bundled_model_catalog();
    const std::string text = name->as_string();
    const ModelSpec* spec = catalog.find(text);
    if (spec == nullptr) {
      const std::vector<std::string> names = catalog.names();
      const std::vector<std::string_view> views(names.begin(), names.end());
      name->fail(fmt::format("no model \"{}\" in the catalog (`fleetsim models` lists it){}",
                             text.substr(0, 60), did_you_mean(text, views)));
    }
    out.spec = *spec;
    return out;
  }
  std::vector<std::string_view> missing;
  for (std::string_view key : {"parameters", "layers", "hidden_size", "attention_heads"})
    if (!m.get(key)) missing.push_back(key);
  if (!missing.empty())
    value.fail(
        fmt::format("{} missing: fleetsim derives speed and memory from the architecture; "
                    "name a catalog model (`name: llama-3.1-8b`; `fleetsim models` lists "
                    "them) or give its config.json figures",
                    fmt::join(missing, ", ")));
  ModelSpec& spec = out.spec;
  auto count = [&](std::string_view key, std::int64_t min, std::int64_t max) {
    return static_cast<std::uint32_t>(m.get(key)->as_int(min, max));
  };
  spec.name = "the model given";
  spec.total_parameters = parse_parameter_count(*m.get("parameters"));
  spec.active_parameters = m.get("active_parameters")
                               ? parse_parameter_count(*m.get("active_parameters"))
                               : spec.total_parameters;
  if (spec.active_parameters > spec.total_parameters)
    m.get("active_parameters")->fail("must not exceed parameters");
  spec.layers = count("layers", 1, 1000);
  spec.hidden_size = count("hidden_size", 1, 1 << 20);
  spec.attention_heads = count("attention_heads", 1, 4096);
  spec.kv_heads =
      m.get("kv_heads") ? count("kv_heads", 1, spec.attention_heads) : spec.attention_heads;
  if (spec.attention_heads % spec.kv_heads != 0)
    m.get("kv_heads")->fail(fmt::format("must divide attention_heads ({})", spec.attention_heads));
  spec.head_dim =
      m.get("head_dim") ? count("head_dim", 1, 4096) : spec.hidden_size / spec.attention_heads;
  if (spec.head_dim == 0) m.get("hidden_size")->fail("is smaller than attention_heads");
  if (m.get("vocabulary")) spec.vocabulary = count("vocabulary", 1, 1 << 24);
  if (m.get("max_context")) spec.max_context = count("max_context", 1, kMaxTokens);
  if (m.get("experts")) {
    spec.experts = count("experts", 2, 4096);
    spec.experts_per_token = count("experts_per_token", 1, spec.experts - 1);
  } else if (auto v = m.get("experts_per_token")) {
    v->fail("applies to a mixture of experts: give experts too");
  }
  spec.kv_elements_per_token_layer = m.get("kv_elements_per_token_layer")
                                         ? count("kv_elements_per_token_layer", 1, 1 << 20)
                                         : 2 * spec.kv_heads * spec.head_dim;
  if (auto v = m.get("tied_embeddings")) spec.tied_embeddings = v->as_bool();
  return out;
}

EngineOptions decode_engine(const YamlValue& value) {
  YamlMap m(value);
  only_keys(
      m, std::array<std::string_view, 8>{"name", "max_num_seqs", "max_num_batched_tokens",
                                         "gpu_memory_utilization", "tensor_parallel_size",
                                         "enable_chunked_prefill", "max_model_len", "calibration"});
  EngineOptions out;
  if (auto v = m.get("name")) {
    const std::string text = v->as_string();
    const auto kind = parse_engine_kind(text);
    constexpr std::array<std::string_view, 3> kEngines{"vllm", "tensorrt-llm", "sglang"};
    if (!kind)
      v->fail(fmt::format("unknown engine \"{}\"; expected vllm, tensorrt-llm or sglang{}",
                          text.substr(0, 40), did_you_mean(text, kEngines)));
    out.kind = *kind;
  }
  auto count = [&](std::string_view key, std::int64_t max) -> std::optional<std::uint32_t> {
    if (auto v = m.get(key)) return static_cast<std::uint32_t>(v->as_int(1, max));
    return std::nullopt;
  };
  out.max_num_seqs = count("max_num_seqs", 1 << 16);
  out.max_num_batched_tokens = count("max_num_batched_tokens", 1 << 22);
  out.tensor_parallel_size = count("tensor_parallel_size", 64);
  out.max_model_len = count("max_model_len", kMaxTokens);
  if (out.max_num_seqs && out.max_num_batched_tokens &&
      *out.max_num_batched_tokens < *out.max_num_seqs)
    m.get("max_num_batched_tokens")
        ->fail(fmt::format("max_num_batched_tokens ({}) must be greater than or equal to "
                           "max_num_seqs ({}), as vLLM requires",
                           *out.max_num_batched_tokens, *out.max_num_seqs));
  if (auto v = m.get("gpu_memory_utilization")) {
    const double u = as_number(*v);
    if (!(u > 0 && u <= 1)) v->fail(fmt::format("must be above 0 and at most 1, got {}", u));
    out.gpu_memory_utilization = u;
  }
  if (auto v = m.get("enable_chunked_prefill")) out.enable_chunked_prefill = v->as_bool();
  if (auto v = m.get("calibration")) {
    YamlMap c(*v);
    only_keys(c, std::array<std::string_view, 5>{"bandwidth_efficiency", "compute_efficiency",
                                                 "step_overhead", "per_sequence_overhead",
                                                 "activation_reserve"});
    EngineCalibration& o = out.calibration_override;
    auto fraction = [&](std::string_view key) {
      if (auto x = c.get(key)) {
        const double f = as_number(*x);
        if (!(f > 0 && f <= 1)) x->fail(fmt::format("must be above 0 and at most 1, got {}", f));
        return f;
      }
      return 0.0;
    };
    o.bandwidth_efficiency = fraction("bandwidth_efficiency");
    o.compute_efficiency = fraction("compute_efficiency");
    if (auto x = c.get("step_overhead")) o.step_overhead_s = to_seconds(positive_duration(*x));
    if (auto x = c.get("per_sequence_overhead"))
      o.per_sequence_overhead_s = to_seconds(positive_duration(*x));
    if (auto x = c.get("activation_reserve"))
      o.activation_reserve_bytes = static_cast<double>(x->as_quantity().value_ceil());
  }
  return out;
}

double share(const YamlValue& v) {
  const double x = as_number(v);
  if (!(x >= 0 && x <= 1)) v.fail(fmt::format("must be between 0 and 1, got {}", x));
  return x;
}

ServiceMetricsSettings decode_metrics(const YamlValue& value) {
  YamlMap m(value);
  only_keys(m, std::array<std::string_view, 2>{"idle_cpu_share", "memory_share"});
  ServiceMetricsSettings out;
  if (auto v = m.get("idle_cpu_share")) out.idle_cpu_share = share(*v);
  if (auto v = m.get("memory_share")) out.memory_share = share(*v);
  return out;
}

// Users whose requests a full queue rejects send again a think time later: at zero, at the same
// instant, for ever.
void check_closed_loop(const ServiceConfig& s, const YamlValue& traffic) {
  const auto* closed = std::get_if<ClosedConfig>(&s.traffic);
  if (closed == nullptr || closed->think_time > SimDuration::zero() || s.serving.max_queue == 0 ||
      static_cast<std::int64_t>(s.serving.max_queue) >= closed->users) {
    return;
  }
  throw ConfigError(closed->where, traffic.path() + ".think_time",
                    fmt::format("a closed loop of {} users with no think time needs serving."
                                "max_queue of at least {} (it is {}): the users a full queue "
                                "turns away would send again at the same instant, for ever",
                                closed->users, closed->users, s.serving.max_queue));
}

// Which model times the service's requests: measured rates, a fixed-time model, or (the default
// for an LLM service) the engine model on its model, which is the default one when not named.
void settle_speed_model(ServiceConfig& s, const YamlMap& m) {
  if (std::holds_alternative<LlmServiceTime>(s.serving.service_time) && !s.rates)
    s.serving.service_time = EngineServiceTime{};
  const bool engine = std::holds_alternative<EngineServiceTime>(s.serving.service_time);
  const bool llm = engine || std::holds_alternative<LlmServiceTime>(s.serving.service_time);
  if (!llm) {
    for (std::string_view key : {"model", "engine"})
      if (auto v = m.get(key))
        v->fail(
            "sets an LLM's speed; this service's serving.service_time times its requests "
            "itself");
    return;
  }
  if (!engine) {
    if (auto v = m.get("engine"))
      v->fail(
          "sets the engine model's speed; measured rates (serving.service_time.rates) "
          "replace it");
    return;
  }
  if (auto v = m.get("serving"); v && YamlMap(*v).get("concurrency"))
    YamlMap(*v)
        .get("concurrency")
        ->fail(
            "under the engine model a replica batches up to engine.max_num_seqs requests; set "
            "that");
  s.serving.concurrency = 0;  // the runtime sets it from the engines' max_num_seqs
}

// The fluid mode runs on the engine model's steady state, and counts arrivals it does not wait
// for: a closed loop's users, who send again only once answered, need each request simulated.
void check_fluid(const ServiceConfig& s, const YamlValue& where) {
  if (s.simulation != ServingMode::Fluid) return;
  if (std::holds_alternative<ClosedConfig>(s.traffic))
    where.fail(
        "a closed loop's users send again only once answered: the fluid mode cannot run them; "
        "use simulation: requests");
  if (!std::holds_alternative<EngineServiceTime>(s.serving.service_time))
    where.fail(
        "the fluid mode runs on the engine model (a service with `model:`); this service's "
        "serving.service_time times its requests itself: use simulation: requests");
}

}  // namespace

ServingMode decode_serving_mode(const YamlValue& v) {
  const std::string mode = v.as_string();
  if (mode == "fluid") return ServingMode::Fluid;
  if (mode != "requests")
    v.fail(fmt::format("must be requests or fluid, got \"{}\"{}", mode.substr(0, 40),
                       did_you_mean(mode, kServingModes)));
  return ServingMode::Requests;
}

void apply_serving_mode(std::vector<ServiceConfig>& services, const YamlValue& v,
                        WarningLog& warnings) {
  apply_serving_mode(services, decode_serving_mode(v), warnings);
}

void apply_serving_mode(std::vector<ServiceConfig>& services, ServingMode mode,
                        WarningLog& warnings) {
  for (std::size_t i = 0; i < services.size(); ++i) {
    ServiceConfig& s = services[i];
    if (s.simulation_named) continue;
    s.simulation = ServingMode::Requests;
    if (mode == ServingMode::Requests) continue;
    // Services that cannot run as rates stay request by request, and say so.
    const bool closed = std::holds_alternative<ClosedConfig>(s.traffic);
    if (closed || !std::holds_alternative<EngineServiceTime>(s.serving.service_time)) {
      warnings.add(WarningCode::FluidModeNotApplied, s.where, fmt::format("services[{}]", i),
                   closed ? "a closed loop's users send again only once answered: this service "
                            "runs request by request"
                          : "its serving.service_time times its requests itself, not the engine "
                            "model: this service runs request by request");
      continue;
    }
    s.simulation = mode;
  }
}

std::vector<ServiceConfig> decode_services(const YamlValue& list, const SectionContext& sc) {
  std::vector<ServiceConfig> out;
  for (const YamlValue& item : list.items()) {
    YamlMap m(item);
    only_keys(m, kServiceKeys);
    ServiceConfig s;
    s.where = item.where();
    YamlValue deployment = m.require("deployment");
    s.deployment = deployment.as_string();
    s.deployment_where = deployment.where();
    if (s.deployment.empty()) deployment.fail("the deployment name must not be empty");
    const YamlValue traffic = m.require("traffic");
    s.traffic = decode_traffic(traffic, sc, false);
    if (auto v = m.get("serving")) s.serving = decode_serving(*v, s.rates);
    check_closed_loop(s, traffic);
    if (auto v = m.get("slo")) s.slo = decode_slo(*v);
    if (auto v = m.get("startup")) s.startup = decode_startup(*v);
    if (auto v = m.get("model")) s.model = decode_model(*v);
    s.engine_where = item.where();
    if (auto v = m.get("engine")) {
      s.engine = decode_engine(*v);
      s.engine_where = v->where();
      s.engine_named = YamlMap(*v).get("name").has_value();
    }
    settle_speed_model(s, m);
    if (auto v = m.get("metrics")) s.metrics = decode_metrics(*v);
    if (auto v = m.get("simulation")) {
      s.simulation = decode_serving_mode(*v);
      s.simulation_named = true;
      check_fluid(s, *v);
    }
    out.push_back(std::move(s));
  }
  return out;
}

void resolve_service_deployments(std::vector<ServiceConfig>& services,
                                 const std::vector<Workload>& workloads) {
  std::vector<std::string_view> names;
  for (const Workload& w : workloads)
    if (w.kind == WorkloadKind::Deployment) names.push_back(w.name);
  std::vector<const Workload*> bound(services.size(), nullptr);
  for (std::size_t i = 0; i < services.size(); ++i) {
    ServiceConfig& s = services[i];
    const std::string field = fmt::format("services[{}].deployment", i);
    std::string_view ns, name = s.deployment;
    if (auto slash = name.find('/'); slash != std::string_view::npos) {
      ns = name.substr(0, slash);
      name = name.substr(slash + 1);
    }
    const Workload* match = nullptr;
    for (const Workload& w : workloads) {
      if (w.kind != WorkloadKind::Deployment || w.name != name) continue;
      if (!ns.empty() && w.namespace_name != ns) continue;
      if (match != nullptr) {
        throw ConfigError(s.deployment_where, field,
                          fmt::format("Deployments named \"{}\" exist in namespaces {} and {}; "
                                      "write NAMESPACE/NAME",
                                      name, match->namespace_name, w.namespace_name));
      }
      match = &w;
    }
    if (match == nullptr) {
      throw ConfigError(s.deployment_where, field,
                        fmt::format("no Deployment named \"{}\" in the scenario's manifests{}",
                                    s.deployment.substr(0, 60), did_you_mean(name, names)));
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (bound[j] == match) {
        throw ConfigError(s.deployment_where, field,
                          fmt::format("Deployment \"{}\" already has a service (services[{}])",
                                      s.deployment.substr(0, 60), j));
      }
    }
    // An LLM replica's speed is its GPU's: pods that ask for none would pack onto CPU nodes and
    // serve at a rate no GPU gives.
    if (std::holds_alternative<LlmServiceTime>(s.serving.service_time) &&
        match->pod.spec.requests.gpus() == 0) {
      throw ConfigError(
          s.where, fmt::format("services[{}].serving.service_time", i),
          fmt::format("the llm service time runs on a GPU, but the pods of Deployment \"{}\" "
                      "request none; give its container resources.limits nvidia.com/gpu (or "
                      "another accelerator), or a fixed, exponential or lognormal service time",
                      s.deployment.substr(0, 60)));
    }
    bound[i] = match;
    s.deployment_namespace = match->namespace_name;
    s.deployment_name = match->name;
  }
}

}  // namespace fleetsim
