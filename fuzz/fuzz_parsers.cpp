// The small parsers: cron schedules (with fired_within over a year of minutes), quantities and
// durations.
#include "fleetsim/core/quantity.hpp"
#include "fleetsim/core/time.hpp"
#include "fleetsim/disruption/cron_schedule.hpp"
#include "fuzz_contract.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fleetsim;
  const std::string_view text = fuzz::text_of(data, size);
  if (auto cron = CronSchedule::parse(text)) {
    (void)cron->fired_within(28'401'120, 60 * 24 * 366);  // a year back from 2024-01-01
  }
  (void)parse_quantity(text);
  (void)parse_duration(text);
  return 0;
}
