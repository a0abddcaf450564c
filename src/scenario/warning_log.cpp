#include "fleetsim/scenario/warning_log.hpp"

#include <algorithm>

#include "fleetsim/scenario/inert_fields.hpp"

namespace fleetsim {

WarningLog::WarningLog(std::vector<Warning> earlier) : warnings_(std::move(earlier)) {
  for (const Warning& w : warnings_) seen_.insert(w.field);
}

void WarningLog::add(WarningCode code, SourceLocation where, std::string field,
                     std::string message) {
  if (!seen_.insert(field).second) return;
  warnings_.push_back(Warning{.where = std::move(where),
                              .field = std::move(field),
                              .message = std::move(message),
                              .code = code});
}

void WarningLog::add_unmodelled(SourceLocation where, std::string field, std::string message) {
  if (is_inert(field) || !seen_.insert(field).second) return;
  // A kind alone ("ResourceQuota") or a field of one ("Pod.spec.hostNetwork").
  const WarningCode code = field.find('.') == std::string::npos ? WarningCode::UnmodelledKind
                                                                : WarningCode::UnmodelledField;
  warnings_.push_back(Warning{.where = std::move(where),
                              .field = std::move(field),
                              .message = std::move(message),
                              .code = code});
}

void drop_suppressed(std::span<const WarningCode> codes, std::vector<Warning>& warnings) {
  std::erase_if(warnings, [&](const Warning& w) {
    return std::find(codes.begin(), codes.end(), w.code) != codes.end();
  });
}

}  // namespace fleetsim
