#include "fleetsim/scenario/warning_log.hpp"

#include "fleetsim/scenario/inert_fields.hpp"

namespace fleetsim {

WarningLog::WarningLog(std::vector<Warning> earlier) : warnings_(std::move(earlier)) {
  for (const Warning& w : warnings_) seen_.insert(w.field);
}

void WarningLog::add(SourceLocation where, std::string field, std::string message) {
  if (!seen_.insert(field).second) return;
  warnings_.push_back(
      Warning{.where = std::move(where), .field = std::move(field), .message = std::move(message)});
}

void WarningLog::add_unmodelled(SourceLocation where, std::string field, std::string message) {
  if (is_inert(field) || !seen_.insert(field).second) return;
  warnings_.push_back(Warning{.where = std::move(where),
                              .field = std::move(field),
                              .message = std::move(message),
                              .unmodelled = true});
}

}  // namespace fleetsim
