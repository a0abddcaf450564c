#include "fleetsim/scenario/overrides.hpp"

#include <fmt/format.h>

#include <charconv>

namespace fleetsim {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

}  // namespace

Override parse_override(std::string_view target, YAML::Node value, SourceLocation where) {
  Override o{.target = std::string(target), .value = std::move(value), .where = std::move(where)};
  auto fail = [&](std::string_view why) {
    throw ConfigError(o.where, "target",
                      fmt::format("\"{}\": {}; write a scenario key (services[0].traffic.mean_rps) "
                                  "or Kind/name: field.path (NodePool/gpu: spec.limits.cpu)",
                                  target.substr(0, 120), why));
  };
  std::string_view path = target;
  if (auto colon = target.find(':'); colon != std::string_view::npos) {
    const std::string_view object = trim(target.substr(0, colon));
    path = trim(target.substr(colon + 1));
    const auto slash = object.find('/');
    if (slash == std::string_view::npos || slash == 0 || slash + 1 == object.size())
      fail("a manifest is named Kind/name before the colon");
    o.kind = std::string(object.substr(0, slash));
    o.name = std::string(object.substr(slash + 1));
  }
  if (path.empty()) fail("no field path");
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '[') {
      const auto close = path.find(']', i);
      std::size_t index = 0;
      const auto digits = path.substr(i + 1, close == std::string_view::npos ? 0 : close - i - 1);
      auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
      if (close == std::string_view::npos || digits.empty() || ec != std::errc{} ||
          end != digits.data() + digits.size())
        fail("an index is a whole number in brackets, as in containers[0]");
      o.path.emplace_back(index);
      i = close + 1;
      if (i < path.size() && path[i] == '.') ++i;
      continue;
    }
    const auto end = path.find_first_of(".[", i);
    const std::string_view key = path.substr(i, end == std::string_view::npos ? end : end - i);
    if (key.empty()) fail("an empty key");
    o.path.emplace_back(std::string(key));
    i = end == std::string_view::npos ? path.size() : end + (path[end] == '.' ? 1 : 0);
  }
  return o;
}

void apply_override(YAML::Node doc, const Override& o) {
  YAML::Node node = doc;
  for (std::size_t step = 0; step < o.path.size(); ++step) {
    const bool last = step + 1 == o.path.size();
    YAML::Node next;
    if (const auto* key = std::get_if<std::string>(&o.path[step])) {
      if (!node.IsMap() && !node.IsNull())
        throw ConfigError(o.where, "target",
                          fmt::format("\"{}\": {} is not a mapping", o.target, *key));
      if (last) {
        node[*key] = YAML::Clone(o.value);
        return;
      }
      if (!node[*key]) node[*key] = YAML::Node(YAML::NodeType::Map);
      next.reset(node[*key]);
    } else {
      const std::size_t index = std::get<std::size_t>(o.path[step]);
      if (!node.IsSequence() || index >= node.size())
        throw ConfigError(o.where, "target",
                          fmt::format("\"{}\": there is no item [{}] there", o.target, index));
      if (last) {
        node[index] = YAML::Clone(o.value);
        return;
      }
      next.reset(node[index]);
    }
    node.reset(next);
  }
}

bool override_matches(const YAML::Node& manifest, const Override& o) {
  if (o.kind.empty() || !manifest.IsMap()) return false;
  const YAML::Node kind = manifest["kind"];
  const YAML::Node meta = manifest["metadata"];
  if (!kind || !kind.IsScalar() || kind.Scalar() != o.kind || !meta || !meta.IsMap()) return false;
  const YAML::Node name = meta["name"];
  return name && name.IsScalar() && name.Scalar() == o.name;
}

}  // namespace fleetsim
