#include "fleetsim/study/study.hpp"

#include <fmt/format.h>

#include <cmath>

#include "fleetsim/scenario/scenario_loader.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"

namespace fleetsim {

namespace {

// A study of more points than this is a typo in a range, not a plan.
constexpr std::size_t kMaxPoints = 100'000;
constexpr std::int64_t kMaxSeeds = 1000;

std::string text_of(const YAML::Node& v) {
  if (v.IsScalar()) return v.Scalar();
  YAML::Emitter out;
  out << YAML::Flow << v;
  return out.c_str();
}

void add_value(StudyParameter& p, YAML::Node v) {
  p.texts.push_back(text_of(v));
  p.values.push_back(std::move(v));
}

StudyParameter decode_parameter(const YamlMap::Entry& e) {
  StudyParameter p{.name = e.key, .where = e.key_where};
  if (e.key.empty() || e.key.find_first_of(",\"\n\r") != std::string::npos)
    e.value.fail("a parameter's name is a results.csv column: no commas, quotes or newlines");
  YamlMap m(e.value);
  p.target = m.require("target").as_string();
  auto values = m.get("values");
  auto range = m.get("range");
  m.reject_unread(std::array<std::string_view, 3>{"target", "values", "range"});
  if (values.has_value() == range.has_value())
    e.value.fail("a parameter takes values: [...] or range: {from, to, step}");
  if (values) {
    for (const YamlValue& v : values->items()) add_value(p, YAML::Clone(v.node()));
    if (p.values.empty()) values->fail("no values");
  } else {
    YamlMap r(*range);
    const double from = r.require("from").as_double();
    const double to = r.require("to").as_double();
    YamlValue step_v = r.require("step");
    const double step = step_v.as_double();
    r.reject_unread(std::array<std::string_view, 3>{"from", "to", "step"});
    if (!(step > 0)) step_v.fail("the step must be positive");
    if (to < from) range->fail(fmt::format("to ({}) is below from ({})", to, from));
    const double count = std::floor((to - from) / step + 1e-9) + 1;
    if (count > static_cast<double>(kMaxPoints))
      range->fail(fmt::format("{} values; a study takes at most {} points", count, kMaxPoints));
    for (std::size_t i = 0; i < static_cast<std::size_t>(count); ++i)
      add_value(p, YAML::Node(fmt::format("{:g}", from + static_cast<double>(i) * step)));
  }
  return p;
}

}  // namespace

std::vector<Override> Study::overrides(std::size_t point) const {
  std::vector<Override> out;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const StudyParameter& p = parameters[i];
    out.push_back(parse_override(p.target, p.values[points[point][i]], p.where));
  }
  return out;
}

Study load_study(const std::filesystem::path& file,
                 const std::filesystem::path& default_catalog_root) {
  const YamlDocuments docs = load_yaml_file(file);
  if (docs.documents.size() != 1)
    throw ConfigError(SourceLocation{.file = *docs.file}, "", "a study file holds one document");
  YamlMap top{YamlValue(docs.documents[0], docs.file)};
  Study study{.file = file};
  YamlValue scenario = top.require("scenario");
  study.scenario = std::filesystem::absolute(file.parent_path() / scenario.as_string());
  if (auto params = top.get("parameters")) {
    YamlMap m(*params);
    for (const auto& e : m.entries()) {
      e.read = true;
      study.parameters.push_back(decode_parameter(e));
    }
  }
  auto points = top.get("points");
  auto seeds = top.get("seeds");
  top.reject_unread(std::array<std::string_view, 4>{"scenario", "seeds", "parameters", "points"});

  if (points) {
    for (const YamlValue& item : points->items()) {
      YamlMap m(item);
      std::vector<std::size_t> point;
      for (StudyParameter& p : study.parameters) {
        YamlValue v = m.require(p.name);
        const std::string text = text_of(v.node());
        auto it = std::find(p.texts.begin(), p.texts.end(), text);
        if (it == p.texts.end()) {  // a listed point may use a value the list does not have
          add_value(p, YAML::Clone(v.node()));
          it = p.texts.end() - 1;
        }
        point.push_back(static_cast<std::size_t>(it - p.texts.begin()));
      }
      std::vector<std::string_view> names;
      for (const StudyParameter& p : study.parameters) names.push_back(p.name);
      m.reject_unread(names);
      study.points.push_back(std::move(point));
    }
  } else {
    std::size_t total = 1;
    for (const StudyParameter& p : study.parameters) {
      total *= p.values.size();
      if (total > kMaxPoints)
        throw ConfigError(p.where, "parameters",
                          fmt::format("the grid has more than {} points", kMaxPoints));
    }
    for (std::size_t n = 0; n < total; ++n) {
      std::vector<std::size_t> point(study.parameters.size());
      std::size_t rest = n;
      for (std::size_t i = study.parameters.size(); i-- > 0;) {
        point[i] = rest % study.parameters[i].values.size();
        rest /= study.parameters[i].values.size();
      }
      study.points.push_back(std::move(point));
    }
  }

  // Each point loads here, so that a bad value stops the study before anything runs.
  std::uint64_t base_seed = 0;
  for (std::size_t p = 0; p < study.points.size(); ++p) {
    try {
      const std::vector<Override> edits = study.overrides(p);
      base_seed = load_scenario(study.scenario, default_catalog_root, edits).seed;
    } catch (const InputError& e) {
      throw ConfigError(SourceLocation{.file = file.string()}, fmt::format("points[{}]", p),
                        e.what());
    }
  }
  if (!seeds) {
    study.seeds = {base_seed};
  } else if (seeds->is_scalar()) {
    const std::int64_t n = seeds->as_int(1, kMaxSeeds);
    for (std::int64_t i = 0; i < n; ++i)
      study.seeds.push_back(base_seed + static_cast<std::uint64_t>(i));
  } else {
    for (const YamlValue& s : seeds->items())
      study.seeds.push_back(
          static_cast<std::uint64_t>(s.as_int(0, std::numeric_limits<std::int64_t>::max())));
    if (study.seeds.empty()) seeds->fail("no seeds");
  }
  return study;
}

}  // namespace fleetsim
