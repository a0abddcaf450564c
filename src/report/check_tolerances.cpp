// A tolerances file for fleetsim check.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "fleetsim/report/check.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"

namespace fleetsim {

namespace {

// "2%" → relative 0.02; "0.002" → absolute.
void set_amount(const YamlValue& v, Tolerance& t) {
  std::string text = v.as_string();
  const bool percent = !text.empty() && text.back() == '%';
  if (percent) text.pop_back();
  double x = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || !(x >= 0) ||
      !std::isfinite(x))
    v.fail(fmt::format("expected an amount such as 2% or 0.002, got \"{}\"",
                       v.as_string().substr(0, 40)));
  (percent ? t.relative : t.absolute) = percent ? x / 100 : x;
}

}  // namespace

std::vector<Tolerance> load_tolerances(const std::filesystem::path& file,
                                       std::vector<Tolerance> tolerances) {
  const YamlDocuments docs = load_yaml_file(file);
  if (docs.documents.size() != 1)
    throw ConfigError(SourceLocation{.file = file.string()}, "tolerances",
                      "expected one YAML document of metric: {max_rise | max_fall: amount}");
  YamlMap m(YamlValue(docs.documents[0], docs.file));
  for (const auto& e : m.entries()) {
    e.read = true;
    std::erase_if(tolerances, [&](const Tolerance& t) { return t.metric == e.key; });
    if (e.value.node().IsScalar() && e.value.as_string() == "off") continue;
    YamlMap limits(e.value);
    Tolerance t{.metric = e.key, .where = e.key_where};
    auto rise = limits.get("max_rise");
    auto fall = limits.get("max_fall");
    limits.reject_unread(std::array<std::string_view, 2>{"max_rise", "max_fall"});
    if (rise && fall) e.value.fail("give max_rise or max_fall, not both");
    if (!rise && !fall) e.value.fail("expected {max_rise: amount}, {max_fall: amount} or off");
    t.worse_when_higher = rise.has_value();
    set_amount(rise ? *rise : *fall, t);
    tolerances.push_back(std::move(t));
  }
  return tolerances;
}

}  // namespace fleetsim
