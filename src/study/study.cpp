#include "fleetsim/study/study.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "fleetsim/scenario/input_digest.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"
#include "fleetsim/study/point_error.hpp"
#include "fleetsim/study/study_digest.hpp"
#include "study_parameters.hpp"

namespace fleetsim {

namespace {

constexpr std::int64_t kMaxSeeds = 1000;

std::vector<std::size_t> decode_point(const YamlValue& item, Study& study) {
  YamlMap m(item);
  std::vector<std::size_t> point;
  for (StudyParameter& p : study.parameters) {
    YamlValue v = m.require(p.name);
    const std::string text = text_of(v.node());
    auto it = std::find(p.texts.begin(), p.texts.end(), text);
    if (it == p.texts.end()) {  // a listed point may use a value the list does not have
      add_value(p, v);
      it = p.texts.end() - 1;
    }
    point.push_back(static_cast<std::size_t>(it - p.texts.begin()));
  }
  std::vector<std::string_view> names;
  for (const StudyParameter& p : study.parameters) names.push_back(p.name);
  m.reject_unread(names);
  return point;
}

void decode_points(const YamlValue& points, Study& study) {
  const std::vector<YamlValue> items = points.items();
  if (items.empty()) points.fail("no points; leave points: out to run the grid of the values");
  if (items.size() > kMaxPoints)
    points.fail(fmt::format("{} points; a study takes at most {}", items.size(), kMaxPoints));
  std::map<std::vector<std::size_t>, std::size_t> seen;
  for (const YamlValue& item : items) {
    std::vector<std::size_t> point = decode_point(item, study);
    if (auto [it, fresh] = seen.emplace(point, study.points.size()); !fresh)
      item.fail(fmt::format("the same values as points[{}]: each would run twice", it->second));
    study.points.push_back(std::move(point));
  }
}

void make_grid(Study& study) {
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

std::vector<std::uint64_t> decode_seeds(const std::optional<YamlValue>& seeds,
                                        std::uint64_t base_seed) {
  std::vector<std::uint64_t> out;
  if (!seeds) return {base_seed};
  if (seeds->is_scalar()) {
    const std::int64_t n = seeds->as_int(1, kMaxSeeds);
    for (std::int64_t i = 0; i < n; ++i) out.push_back(base_seed + static_cast<std::uint64_t>(i));
    return out;
  }
  const std::vector<YamlValue> items = seeds->items();
  if (items.empty()) seeds->fail("no seeds");
  if (items.size() > static_cast<std::size_t>(kMaxSeeds))
    seeds->fail(fmt::format("{} seeds; a study takes at most {}", items.size(), kMaxSeeds));
  for (const YamlValue& s : items) {
    const auto seed =
        static_cast<std::uint64_t>(s.as_int(0, std::numeric_limits<std::int64_t>::max()));
    if (std::find(out.begin(), out.end(), seed) != out.end())
      s.fail(fmt::format("seed {} is listed twice: its runs would be the same", seed));
    out.push_back(seed);
  }
  return out;
}

// Loads every point, so that a bad value stops the study before anything runs; keeps each
// warning once and the digests of the inputs (read once per distinct set of files).
std::uint64_t load_points(Study& study, const std::filesystem::path& catalog_root,
                          std::vector<std::pair<std::string, std::string>>& inputs) {
  std::uint64_t base_seed = 0;
  std::set<std::string> warned, file_sets;
  for (std::size_t p = 0; p < study.points.size(); ++p) {
    try {
      const ScenarioConfig config =
          load_scenario(study.scenario, catalog_root, study.overrides(p), study.reading);
      base_seed = config.seed;
      for (const Warning& w : config.warnings)
        if (warned.insert(fmt::format("{}\n{}\n{}", w.where.to_string(), w.field, w.message))
                .second)
          study.warnings.push_back(w);
      std::string files = config.catalog_dir.string();
      for (const auto& f : config.input_files) {
        files += '\n';
        files += f.string();
      }
      if (file_sets.insert(files).second)
        for (auto& digest : input_digests(config)) inputs.push_back(std::move(digest));
    } catch (const InputError& e) {
      throw point_error(study, p, e);
    }
  }
  std::sort(inputs.begin(), inputs.end());
  inputs.erase(std::unique(inputs.begin(), inputs.end()), inputs.end());
  return base_seed;
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
                 const std::filesystem::path& default_catalog_root, const ReadOptions& reading) {
  const YamlDocuments docs = load_yaml_file(file);
  if (docs.documents.size() != 1)
    throw ConfigError(SourceLocation{.file = *docs.file}, "", "a study file holds one document");
  YamlMap top{YamlValue(docs.documents[0], docs.file)};
  Study study{.file = file, .reading = reading};
  YamlValue scenario = top.require("scenario");
  study.scenario = std::filesystem::absolute(file.parent_path() / scenario.as_string());
  if (auto params = top.get("parameters")) {
    YamlMap m(*params);
    for (const auto& e : m.entries()) {
      e.read = true;
      study.parameters.push_back(decode_parameter(e));
    }
  }
  check_targets(study.parameters, reading);
  auto points = top.get("points");
  auto seeds = top.get("seeds");
  top.reject_unread(std::array<std::string_view, 4>{"scenario", "seeds", "parameters", "points"});
  if (points)
    decode_points(*points, study);
  else
    make_grid(study);
  std::vector<std::pair<std::string, std::string>> inputs;
  study.seeds = decode_seeds(seeds, load_points(study, default_catalog_root, inputs));
  study.digest = study_digest(study, inputs);
  return study;
}

}  // namespace fleetsim
