#include "fleetsim/scenario/lint_accept.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "fleetsim/scenario/lint/lint.hpp"
#include "fleetsim/scenario/name_hint.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"

namespace fleetsim {

namespace {

// "RULE", "RULE@FILE" or "RULE@FILE:LINE"; a LINE is a whole number from 1.
LintAcceptance parse_entry(const YamlValue& item, const std::filesystem::path& base_dir) {
  LintAcceptance a{.text = item.as_string(), .where = item.where()};
  const std::size_t at = a.text.find('@');
  a.rule = a.text.substr(0, at);
  std::vector<std::string_view> rules;
  for (const LintRule& r : kLintRules) rules.push_back(r.id);
  if (std::find(rules.begin(), rules.end(), a.rule) == rules.end())
    item.fail(fmt::format("unknown lint rule \"{}\"{} (the rules: {})", a.rule.substr(0, 40),
                          did_you_mean(a.rule, rules), fmt::join(rules, ", ")));
  if (at == std::string::npos) return a;
  std::string file = a.text.substr(at + 1);
  const std::size_t colon = file.rfind(':');
  if (colon != std::string::npos) {
    const std::string_view digits = std::string_view(file).substr(colon + 1);
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), a.line);
    if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size() || a.line < 1)
      item.fail(
          fmt::format("\"{}\": expected RULE, RULE@FILE or RULE@FILE:LINE with LINE a "
                      "line number",
                      a.text.substr(0, 80)));
    file.resize(colon);
  }
  if (file.empty())
    item.fail(
        fmt::format("\"{}\": no file after @ (RULE@FILE or RULE@FILE:LINE)", a.text.substr(0, 80)));
  a.file = base_dir / file;
  return a;
}

}  // namespace

std::vector<LintAcceptance> decode_lint_accepts(const YamlValue& lint,
                                                const std::filesystem::path& base_dir) {
  YamlMap m(lint);
  std::vector<LintAcceptance> out;
  if (auto list = m.get("accept"))
    for (const YamlValue& item : list->items()) out.push_back(parse_entry(item, base_dir));
  m.reject_unread(std::array<std::string_view, 1>{"accept"});
  return out;
}

}  // namespace fleetsim
