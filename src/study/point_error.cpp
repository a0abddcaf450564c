#include "fleetsim/study/point_error.hpp"

#include <fmt/format.h>

#include <optional>
#include <string_view>

namespace fleetsim {

namespace {

std::string path_text(const Override& o) {
  std::string out;
  for (const auto& step : o.path) {
    if (const auto* key = std::get_if<std::string>(&step))
      out += (out.empty() ? "" : ".") + *key;
    else
      out += fmt::format("[{}]", std::get<std::size_t>(step));
  }
  return out;
}

// What follows `path` in `field` when the field lies at or under it ("" when it is the path,
// ".x" or "[0]..." under it); nullopt otherwise. A manifest's field may carry a prefix of its
// place in the scenario ("manifests[2].spec..."), so the path may start after a '.'.
std::optional<std::string_view> below(std::string_view field, std::string_view path) {
  for (std::size_t at = field.find(path); at != std::string_view::npos;
       at = field.find(path, at + 1)) {
    if (at != 0 && field[at - 1] != '.') continue;
    const std::string_view rest = field.substr(at + path.size());
    if (rest.empty() || rest.front() == '.' || rest.front() == '[') return rest;
  }
  return std::nullopt;
}

// The mark of the node at `rest` inside `value`, or of the deepest node on the way that has one.
YAML::Mark mark_inside(const YAML::Node& value, std::string_view rest) {
  YAML::Mark mark = value.Mark();
  if (rest.starts_with('.')) rest.remove_prefix(1);
  if (rest.empty()) return mark;
  std::vector<std::variant<std::string, std::size_t>> steps;
  try {
    steps = parse_override(rest, YAML::Node(), {}).path;
  } catch (const InputError&) {
    return mark;
  }
  YAML::Node node = value;
  for (const auto& step : steps) {
    const YAML::Node& here = node;  // const: looking a key up must not add it
    YAML::Node next;
    if (const auto* key = std::get_if<std::string>(&step)) {
      if (!here.IsMap() || !here[*key]) break;
      next.reset(here[*key]);
    } else {
      const std::size_t index = std::get<std::size_t>(step);
      if (!here.IsSequence() || index >= here.size()) break;
      next.reset(here[index]);
    }
    node.reset(next);
    if (!node.Mark().is_null()) mark = node.Mark();
  }
  return mark;
}

}  // namespace

ConfigError point_error(const Study& study, std::size_t point, const InputError& e) {
  const std::vector<Override> edits = study.overrides(point);
  for (std::size_t i = 0; i < edits.size(); ++i) {
    const std::optional<std::string_view> rest = below(e.field(), path_text(edits[i]));
    if (!rest) continue;
    const StudyParameter& p = study.parameters[i];
    const std::size_t v = study.points[point][i];
    SourceLocation where = p.value_where[v];
    const YAML::Mark mark = mark_inside(p.values[v], *rest);
    if (!mark.is_null()) {
      where.line = mark.line + 1;
      where.col = mark.column + 1;
    }
    return ConfigError(where, fmt::format("points[{}].{}", point, p.name),
                       fmt::format("{}: {}", e.field(), e.message()));
  }
  return ConfigError(SourceLocation{.file = study.file.string()}, fmt::format("points[{}]", point),
                     e.what());
}

}  // namespace fleetsim
