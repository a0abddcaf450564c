// Collects the warnings of a scenario's load, one per field path: fields read but not modelled,
// and inputs that take effect in a way the user may not expect.
#pragma once

#include <set>
#include <span>
#include <string>
#include <vector>

#include "fleetsim/core/error.hpp"
#include "fleetsim/scenario/api_fields.hpp"
#include "fleetsim/scenario/scenario_config.hpp"

namespace fleetsim {

class WarningLog {
 public:
  explicit WarningLog(FieldValidation validation = FieldValidation::Strict)
      : validation_(validation) {}
  // Goes on from `earlier`, a log's warnings: a field one of them names is not warned about again.
  explicit WarningLog(std::vector<Warning> earlier);

  // Records a warning unless one for the same field was already recorded: a fleet of fifty
  // Deployments that all set `image` should read as one line, not fifty.
  void add(WarningCode code, SourceLocation where, std::string field, std::string message);
  // The same for a field or kind fleetsim reads past; one that cannot change a simulation
  // (inert_fields.hpp) is accepted without a word.
  void add_unmodelled(SourceLocation where, std::string field, std::string message);

  // Whether a manifest field upstream does not have is an error or a warning.
  FieldValidation field_validation() const { return validation_; }
  void set_field_validation(FieldValidation v) { validation_ = v; }

  const std::vector<Warning>& warnings() const { return warnings_; }
  std::vector<Warning> take() { return std::move(warnings_); }

 private:
  std::vector<Warning> warnings_;
  std::set<std::string, std::less<>> seen_;
  FieldValidation validation_ = FieldValidation::Strict;
};

// Removes the warnings of the given codes (--suppress, warnings.suppress).
void drop_suppressed(std::span<const WarningCode> codes, std::vector<Warning>& warnings);

// The message for a manifest field fleetsim reads past.
inline constexpr std::string_view kNotModelled = "not modelled; ignored";

}  // namespace fleetsim
