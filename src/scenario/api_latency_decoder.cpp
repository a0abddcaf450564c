#include "fleetsim/scenario/api_latency_decoder.hpp"

#include <fmt/format.h>

#include <array>
#include <string>
#include <string_view>

namespace fleetsim {

namespace {
// Beyond a minute an API call would have timed out (the API server's default request timeout).
constexpr SimDuration kMaxApiLatency = minutes(1);
}  // namespace

ApiLatency decode_api_latency(const YamlValue& v) {
  if (!v.is_map()) {
    const std::string text = v.as_string();
    if (text == "zero") return ApiLatency{};
    if (text == "default") return kDefaultApiLatency;
    v.fail(
        fmt::format("unknown value \"{}\"; expected zero, default or {{median: 20ms, p99: 200ms}}",
                    text.substr(0, 40)));
  }
  const YamlMap m(v);
  const YamlValue median = m.require("median");
  const YamlValue p99 = m.require("p99");
  ApiLatency out{.median = median.as_duration(), .p99 = p99.as_duration()};
  if (out.median <= SimDuration{0}) median.fail("must be positive (use `api_latency: zero`)");
  if (out.p99 < out.median)
    p99.fail(fmt::format("must be at least the median ({})", format_duration(out.median)));
  if (out.p99 > kMaxApiLatency)
    p99.fail(fmt::format("must be at most {}", format_duration(kMaxApiLatency)));
  constexpr std::array<std::string_view, 2> kKeys{"median", "p99"};
  m.reject_unread(kKeys);
  return out;
}

}  // namespace fleetsim
