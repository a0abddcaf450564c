#include "study_parameters.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "fleetsim/report/compare.hpp"
#include "fleetsim/study/range_values.hpp"

namespace fleetsim {

namespace {

// A parameter named as a column results.csv has anyway would make its header ambiguous.
void check_name(const YamlMap::Entry& e) {
  const auto& metrics = compared_metrics();
  if (e.key == "point" || e.key == "seed" ||
      std::find(metrics.begin(), metrics.end(), e.key) != metrics.end())
    throw ConfigError(e.key_where, "parameters",
                      fmt::format("\"{}\" is a results.csv column already (point, seed and the "
                                  "headline metrics); name the parameter otherwise",
                                  e.key));
  if (e.key.empty() || e.key.find_first_of(",\"\n\r") != std::string::npos)
    e.value.fail("a parameter's name is a results.csv column: no commas, quotes or newlines");
}

bool is_prefix(const Override& a, const Override& b) {
  return a.kind == b.kind && a.name == b.name && a.path.size() <= b.path.size() &&
         std::equal(a.path.begin(), a.path.end(), b.path.begin());
}

}  // namespace

std::string text_of(const YAML::Node& v) {
  if (v.IsScalar()) return v.Scalar();
  YAML::Emitter out;
  out << YAML::Flow << v;
  return out.c_str();
}

// Each value is a results.csv field, which resume and merge read line by line. The node is the
// study's own, with its marks, so that an error in it can name its line.
void add_value(StudyParameter& p, const YamlValue& v) {
  YAML::Node node = v.node();
  std::string text = text_of(node);
  if (text.find_first_of("\n\r") != std::string::npos)
    v.fail("a value is written to one results.csv line: it cannot hold a newline");
  p.texts.push_back(std::move(text));
  p.values.push_back(std::move(node));
  p.value_where.push_back(v.where());
}

StudyParameter decode_parameter(const YamlMap::Entry& e) {
  check_name(e);
  StudyParameter p{.name = e.key};
  YamlMap m(e.value);
  const YamlValue target = m.require("target");
  p.target = target.as_string();
  p.where = target.where();
  auto values = m.get("values");
  auto range = m.get("range");
  m.reject_unread(std::array<std::string_view, 3>{"target", "values", "range"});
  if (values.has_value() == range.has_value())
    e.value.fail("a parameter takes values: [...] or range: {from, to, step}");
  if (values) {
    for (const YamlValue& v : values->items()) add_value(p, v);
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
    const double count = range_count(from, to, step);
    if (count > static_cast<double>(kMaxPoints))
      range->fail(fmt::format("{} values; a study takes at most {} points", count, kMaxPoints));
    for (std::string& text : range_texts(from, step, static_cast<std::size_t>(count))) {
      p.values.emplace_back(text);
      p.texts.push_back(std::move(text));
      p.value_where.push_back(range->where());
    }
  }
  return p;
}

// The sweep sets each run's seed, and two parameters on one field would overwrite each other:
// either way a results column would name a value the run did not use.
void check_targets(const std::vector<StudyParameter>& parameters, const ReadOptions& reading) {
  std::vector<Override> targets;
  for (const StudyParameter& p : parameters) {
    Override o = parse_override(p.target, YAML::Node(), p.where);
    const auto is_key = [&](const char* key) {
      return o.kind.empty() && o.path.size() == 1 && o.path[0] == decltype(o.path)::value_type(key);
    };
    if (reading.serving_mode && is_key("serving_mode"))
      throw ConfigError(p.where, "target",
                        "the study varies serving_mode, which --serving-mode would set for every "
                        "point: drop one of the two");
    if (is_key("seed"))
      throw ConfigError(p.where, "target",
                        "the seed is not a parameter: each run's seed comes from the study's "
                        "seeds: (seeds: 5, or seeds: [1, 7, 9])");
    for (std::size_t i = 0; i < targets.size(); ++i)
      if (is_prefix(targets[i], o) || is_prefix(o, targets[i]))
        throw ConfigError(p.where, "target",
                          fmt::format("\"{}\" overlaps parameter {}'s target \"{}\": one would "
                                      "overwrite the other",
                                      p.target, parameters[i].name, targets[i].target));
    targets.push_back(std::move(o));
  }
}

}  // namespace fleetsim
