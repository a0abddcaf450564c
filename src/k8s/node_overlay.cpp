#include "fleetsim/k8s/node_overlay.hpp"

#include <cctype>
#include <charconv>

namespace fleetsim {

namespace {

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// `\d*\.?\d+`: digits, digits.digits or .digits.
bool is_amount(std::string_view s) {
  const std::size_t dot = s.find('.');
  if (dot == std::string_view::npos) return all_digits(s);
  const std::string_view head = s.substr(0, dot);
  return (head.empty() || all_digits(head)) && all_digits(s.substr(dot + 1));
}

// `\d+(\.\d+)?`.
bool is_decimal(std::string_view s) {
  const std::size_t dot = s.find('.');
  if (dot == std::string_view::npos) return all_digits(s);
  return all_digits(s.substr(0, dot)) && all_digits(s.substr(dot + 1));
}

double parse_unsigned(std::string_view s) {
  double v = 0.0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

}  // namespace

double adjusted_price(double price, const OverlayPrice& change) {
  double out = price;
  switch (change.kind) {
    case OverlayPrice::Kind::None:
      return price;
    case OverlayPrice::Kind::Set:
      return change.value;  // AdjustedPrice returns an unsigned price as it is
    case OverlayPrice::Kind::Add:
      out = price + change.value;
      break;
    case OverlayPrice::Kind::Percent:
      out = price * (1 + change.value / 100);
      break;
  }
  return out >= 0 ? out : 0.0;
}

std::optional<OverlayPrice> parse_overlay_price(std::string_view text) {
  if (!is_decimal(text)) return std::nullopt;
  return OverlayPrice{
      .kind = OverlayPrice::Kind::Set, .value = parse_unsigned(text), .text = std::string(text)};
}

std::optional<OverlayPrice> parse_price_adjustment(std::string_view text) {
  if (text.size() < 2 || (text[0] != '+' && text[0] != '-')) return std::nullopt;
  const double sign = text[0] == '-' ? -1.0 : 1.0;
  std::string_view body = text.substr(1);
  if (body.ends_with('%')) {
    body.remove_suffix(1);
    bool ok = false;
    if (sign > 0) {
      ok = is_amount(body);
    } else {
      // `-\d{1,2}(\.\d+)?%` or `-100%`: a cut of at most 100%.
      const std::size_t dot = body.find('.');
      const std::string_view whole = body.substr(0, dot);
      ok = (all_digits(whole) && whole.size() <= 2 &&
            (dot == std::string_view::npos || all_digits(body.substr(dot + 1)))) ||
           body == "100";
    }
    if (!ok) return std::nullopt;
    return OverlayPrice{.kind = OverlayPrice::Kind::Percent,
                        .value = sign * parse_unsigned(body),
                        .text = std::string(text)};
  }
  if (!is_amount(body)) return std::nullopt;
  return OverlayPrice{.kind = OverlayPrice::Kind::Add,
                      .value = sign * parse_unsigned(body),
                      .text = std::string(text)};
}

}  // namespace fleetsim
