#include "fleetsim/scenario/selector_decoder.hpp"

#include <fmt/format.h>

#include <array>

#include "fleetsim/scenario/name_hint.hpp"
#include "fleetsim/scenario/object_meta.hpp"

namespace fleetsim {

namespace {

constexpr std::array<std::string_view, 4> kSelectorOperators{"In", "NotIn", "Exists",
                                                             "DoesNotExist"};

}  // namespace

LabelSelector decode_label_selector(const YamlValue& value, DecodeContext& ctx) {
  LabelSelector s;
  YamlMap m(value);
  if (auto labels = m.get("matchLabels")) s.match_labels = decode_labels(*labels);
  if (auto expressions = m.get("matchExpressions")) {
    for (const YamlValue& item : expressions->items()) {
      YamlMap e(item);
      SelectorExpression out{.key = e.require("key").as_string()};
      YamlValue op = e.require("operator");
      const std::string text = op.as_string();
      const std::optional<Operator> parsed = parse_operator(text);
      if (!parsed || (*parsed != Operator::In && *parsed != Operator::NotIn &&
                      *parsed != Operator::Exists && *parsed != Operator::DoesNotExist))
        op.fail(
            fmt::format("unknown operator \"{}\"; expected In, NotIn, Exists or "
                        "DoesNotExist{}",
                        text.substr(0, 40), did_you_mean(text, kSelectorOperators)));
      out.op = *parsed;
      if (auto values = e.get("values"))
        for (const YamlValue& v : values->items()) out.values.push_back(v.as_string());
      const bool set_op = out.op == Operator::In || out.op == Operator::NotIn;
      if (set_op && out.values.empty()) item.fail("In and NotIn need at least one value");
      if (!set_op && !out.values.empty()) item.fail("Exists and DoesNotExist take no values");
      e.check_unread(ctx.warnings, ctx.kind, api::LabelSelectorRequirement);
      s.match_expressions.push_back(std::move(out));
    }
  }
  m.check_unread(ctx.warnings, ctx.kind, api::LabelSelector);
  return s;
}

}  // namespace fleetsim
