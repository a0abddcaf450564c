#include "fleetsim/catalog/auto_mode.hpp"

#include <fmt/format.h>

#include <map>
#include <string>

#include "fleetsim/core/calendar.hpp"
#include "fleetsim/core/csv_reader.hpp"

namespace fleetsim {

namespace {

constexpr std::string_view kKarpenterPrefix = "karpenter.k8s.aws/instance-";
constexpr std::string_view kAutoModePrefix = "eks.amazonaws.com/instance-";
constexpr double kMaxFeePerHour = 100.0;

bool is_date(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (i != 4 && i != 7 && (s[i] < '0' || s[i] > '9')) return false;
  return true;
}

}  // namespace

AutoModeCatalog auto_mode_catalog(const Catalog& catalog, const std::filesystem::path& dir,
                                  std::int64_t start_unix_s) {
  CsvReader csv(dir / kAutoModeFeesFile,
                {.noun = "Auto Mode fee table",
                 .example_header = "instance_type,effective_from,fee_usd_per_hour",
                 .input = CsvInput::Catalog});
  const std::size_t type_col = csv.require("instance_type");
  const std::size_t since_col = csv.require("effective_from");
  const std::size_t fee_col = csv.require("fee_usd_per_hour");
  const std::string start_date = format_rfc3339(start_unix_s).substr(0, 10);
  // Per type: the fee in force at the start, else the earliest.
  struct Pick {
    std::string since;
    double fee = 0.0;
    bool in_force = false;
  };
  std::map<std::string, Pick, std::less<>> picks;
  while (csv.next_row()) {
    const std::string name(csv.field(type_col));
    if (catalog.find(name) == nullptr)
      csv.fail(type_col,
               fmt::format("instance type \"{}\" is not in the catalog", name.substr(0, 60)));
    const std::string since(csv.field(since_col));
    if (!is_date(since))
      csv.fail(since_col,
               fmt::format("expected a date YYYY-MM-DD, got \"{}\"", since.substr(0, 40)));
    const double fee = csv.number(fee_col);
    if (!(fee >= 0 && fee <= kMaxFeePerHour))
      csv.fail(fee_col, fmt::format("a fee is from 0 to {} dollars an hour", kMaxFeePerHour));
    const bool in_force = since <= start_date;
    auto [it, fresh] = picks.try_emplace(name, Pick{since, fee, in_force});
    Pick& p = it->second;
    if (fresh) continue;
    // A later row in force replaces an earlier one; an earlier row replaces one not in force.
    if ((in_force && (!p.in_force || since > p.since)) || (!p.in_force && since < p.since))
      p = Pick{since, fee, in_force};
  }

  AutoModeCatalog out;
  std::vector<InstanceType> types;
  for (const InstanceType& t : catalog.types()) {
    const auto pick = picks.find(t.name);
    if (pick == picks.end()) continue;
    InstanceType copy = t;
    for (const auto& [key, requirement] : t.requirements.entries())
      if (key.starts_with(kKarpenterPrefix))
        copy.requirements.add(std::string(kAutoModePrefix) + key.substr(kKarpenterPrefix.size()),
                              requirement);
    copy.requirements.add("eks.amazonaws.com/compute-type", Requirement::single("auto"));
    types.push_back(std::move(copy));
    out.fee_by_type.push_back(pick->second.fee);
  }
  out.catalog = Catalog(std::move(types), catalog.source());
  return out;
}

}  // namespace fleetsim
