#include "fleetsim/core/error.hpp"

#include <fmt/format.h>

namespace fleetsim {

std::string SourceLocation::to_string() const {
  if (file.empty()) return "<input>";
  if (line <= 0) return file;
  if (col <= 0) return fmt::format("{}:{}", file, line);
  return fmt::format("{}:{}:{}", file, line, col);
}

namespace {
std::string compose(const SourceLocation& where, const std::string& field,
                    const std::string& message) {
  if (field.empty()) return fmt::format("{}: {}", where.to_string(), message);
  return fmt::format("{}: {}: {}", where.to_string(), field, message);
}
}  // namespace

InputError::InputError(SourceLocation where, std::string field, std::string message)
    : std::runtime_error(compose(where, field, message)),
      where_(std::move(where)),
      field_(std::move(field)),
      message_(std::move(message)) {}

void assertion_failed(const char* expr, const char* file, int line) {
  throw InternalError(
      fmt::format("internal error: assertion `{}` failed at {}:{}", expr, file, line));
}

}  // namespace fleetsim
