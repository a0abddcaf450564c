#include "fleetsim/scenario/warning_log.hpp"

namespace fleetsim {

void WarningLog::add(SourceLocation where, std::string field, std::string message) {
  if (!seen_.insert(field).second) return;
  warnings_.push_back(
      Warning{.where = std::move(where), .field = std::move(field), .message = std::move(message)});
}

}  // namespace fleetsim
