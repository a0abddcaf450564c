// Errors raised at the input boundary (scenario, manifests, catalog, traces), with a location.
#pragma once

#include <stdexcept>
#include <string>

namespace fleetsim {

// Where a value came from. line and col are 1-based; 0 means unknown.
struct SourceLocation {
  std::string file;
  int line = 0;
  int col = 0;

  std::string to_string() const;  // "file:line:col", omitting unknown parts
};

// Bad user input. what() reads "file:line:col: field: message".
class InputError : public std::runtime_error {
 public:
  InputError(SourceLocation where, std::string field, std::string message);
  const SourceLocation& where() const { return where_; }
  const std::string& field() const { return field_; }
  const std::string& message() const { return message_; }

 private:
  SourceLocation where_;
  std::string field_;
  std::string message_;
};

// A scenario or manifest is wrong.
class ConfigError : public InputError {
 public:
  using InputError::InputError;
};

// An instance catalog is wrong.
class CatalogError : public InputError {
 public:
  using InputError::InputError;
};

// A trace file is wrong.
class TraceError : public InputError {
 public:
  using InputError::InputError;
};

// An internal invariant failed: a bug in fleetsim, never a consequence of user input.
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

[[noreturn]] void assertion_failed(const char* expr, const char* file, int line);

}  // namespace fleetsim

#define FLEETSIM_ASSERT(expr) \
  ((expr) ? static_cast<void>(0) : ::fleetsim::assertion_failed(#expr, __FILE__, __LINE__))
