#include "fleetsim/cli/warning_report.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace fleetsim {

std::optional<WarningDetail> parse_warning_detail(std::string_view text) {
  if (text == "all") return WarningDetail::All;
  if (text == "summary") return WarningDetail::Summary;
  if (text == "none") return WarningDetail::None;
  return std::nullopt;
}

void print_warnings(const std::vector<Warning>& warnings, WarningDetail detail, std::ostream& out) {
  if (detail == WarningDetail::None) return;
  if (detail == WarningDetail::Auto)
    detail = warnings.size() <= kWarningsShownInFull ? WarningDetail::All : WarningDetail::Summary;
  std::vector<std::string_view> unmodelled;
  for (const Warning& w : warnings) {
    if (detail == WarningDetail::Summary && w.unmodelled()) {
      unmodelled.push_back(w.field);
      continue;
    }
    out << fmt::format("warning: {}: {}: {} [{}]\n", w.where.to_string(), w.field, w.message,
                       to_string(w.code));
  }
  if (unmodelled.empty()) return;
  out << fmt::format(
      "warning: {} input{} fleetsim does not model, ignored: {} (--warnings all "
      "says where)\n",
      unmodelled.size(), unmodelled.size() == 1 ? "" : "s", fmt::join(unmodelled, ", "));
}

}  // namespace fleetsim
