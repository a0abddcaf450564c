// The scenario's `lint: {accept: [...]}` applied to the findings.
#include "fleetsim/core/output_path.hpp"
#include "fleetsim/scenario/lint/lint.hpp"

namespace fleetsim {

namespace {

bool matches(const LintAcceptance& a, const LintFinding& f) {
  if (a.rule != f.rule) return false;
  if (a.line != 0 && a.line != f.where.line) return false;
  // Written relative to the scenario, the finding's path as the loader joined it: the same file
  // however each is spelt.
  return !a.file || same_file(*a.file, f.where.file);
}

}  // namespace

std::vector<std::size_t> accept_findings(std::span<const LintAcceptance> accepts,
                                         std::vector<LintFinding>& findings) {
  std::vector<bool> used(accepts.size(), false);
  for (LintFinding& f : findings) {
    for (std::size_t i = 0; i < accepts.size(); ++i) {
      if (!matches(accepts[i], f)) continue;
      used[i] = true;
      if (!f.accepted_by) f.accepted_by = i;
    }
  }
  std::vector<std::size_t> stale;
  for (std::size_t i = 0; i < accepts.size(); ++i)
    if (!used[i]) stale.push_back(i);
  return stale;
}

}  // namespace fleetsim
