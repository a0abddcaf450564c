#include "fleetsim/k8s/karpenter_version.hpp"

#include <fmt/format.h>

#include <charconv>

namespace fleetsim {

std::string KarpenterVersion::to_string() const { return fmt::format("v1.{}", minor); }

std::optional<KarpenterVersion> parse_karpenter_version(std::string_view text) {
  if (text.starts_with('v')) text.remove_prefix(1);
  if (!text.starts_with("1.")) return std::nullopt;
  text.remove_prefix(2);
  const std::size_t dot = text.find('.');
  auto number = [](std::string_view s, int& out) {
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return !s.empty() && ec == std::errc{} && end == s.data() + s.size() && out >= 0;
  };
  int minor = 0, patch = 0;
  if (!number(text.substr(0, dot), minor)) return std::nullopt;
  if (dot != std::string_view::npos && !number(text.substr(dot + 1), patch)) return std::nullopt;
  if (minor < kOldestKarpenterMinor || minor > kLatestKarpenterMinor) return std::nullopt;
  return KarpenterVersion{.minor = minor};
}

}  // namespace fleetsim
