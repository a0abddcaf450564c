// Runs on threads at once give the same bytes as the same runs one after another (DESIGN.md §3:
// no singletons, no static mutable state). Here rather than in tests/unit/runner/ because the
// bytes are report/'s: test_runner links only the runner.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <exception>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "fleetsim/report/event_writer.hpp"
#include "fleetsim/report/report_json.hpp"
#include "fleetsim/report/timeseries_writer.hpp"
#include "fleetsim/runner/run.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"

using namespace fleetsim;

namespace {

namespace fs = std::filesystem;

// The threads of the parallel pass: more than one run in flight on each of this machine's cores.
constexpr int kThreads = 4;

// Runs stop here: past model-pair's surge (2 h) and tiered-spot's first spot interruption (6 h),
// and short enough that the test takes seconds under AddressSanitizer.
constexpr SimDuration kMaxDuration = hours(8);

struct Outputs {
  std::string report, events, timeseries;
};

struct NamedRun {
  std::string name;
  ScenarioConfig config;
  std::optional<std::size_t> reseeded_from;  // the run it copies with another seed
};

Outputs run_outputs(const ScenarioConfig& config) {
  std::ostringstream events, timeseries;
  EventWriter event_writer(events);
  TimeseriesWriter timeseries_writer(timeseries);
  const RunResult result =
      run(config, {.event_sinks = {&event_writer}, .timeseries_sinks = {&timeseries_writer}});
  return {report_json_text(result), events.str(), timeseries.str()};
}

// Empty when equal; else the first differing line, numbered (the files run to 100s of kB).
std::string first_difference(const std::string& expected, const std::string& actual) {
  std::istringstream e(expected), a(actual);
  std::string le, la;
  for (int line = 1;; ++line) {
    const bool more_e = static_cast<bool>(std::getline(e, le));
    const bool more_a = static_cast<bool>(std::getline(a, la));
    if (!more_e && !more_a) return {};
    if (le != la || more_e != more_a) {
      return fmt::format("line {}:\n  sequential: {}\n  threaded:   {}", line,
                         more_e ? le : "<end of file>", more_a ? la : "<end of file>");
    }
  }
}

// The five example scenarios, and three of them again with other seeds. The reseeded ones are
// copies, so they share the loaded catalog with their originals while both run.
std::vector<NamedRun> example_runs() {
  const fs::path root = FLEETSIM_SOURCE_DIR;
  std::vector<NamedRun> runs;
  for (const char* name :
       {"gpu-training", "tiered-spot", "llm-inference", "model-pair", "azure-conv-replay"}) {
    const fs::path file = root / "scenarios" / name / "scenario.yaml";
    runs.push_back({.name = name, .config = load_scenario(file, root / "instance-catalog")});
    runs.back().config.duration = std::min(runs.back().config.duration, kMaxDuration);
  }
  // The three whose runs draw random numbers (spot victims, Poisson and diurnal arrivals).
  for (std::size_t i : {1, 2, 3}) {
    NamedRun again = runs[i];
    again.config.seed += 1000 + i;
    again.name += fmt::format(" (seed {})", again.config.seed);
    again.reseeded_from = i;
    runs.push_back(std::move(again));
  }
  return runs;
}

}  // namespace

TEST_CASE("runs on threads at once give the bytes of the same runs one after another", "[report]") {
  const std::vector<NamedRun> runs = example_runs();

  std::vector<Outputs> sequential;
  for (const NamedRun& r : runs) sequential.push_back(run_outputs(r.config));

  std::vector<Outputs> threaded(runs.size());
  std::vector<std::exception_ptr> errors(runs.size());
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (std::size_t i = next++; i < runs.size(); i = next++) {
        try {
          threaded[i] = run_outputs(runs[i].config);
        } catch (...) {
          errors[i] = std::current_exception();
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();

  for (std::size_t i = 0; i < runs.size(); ++i) {
    INFO(runs[i].name);
    if (errors[i]) std::rethrow_exception(errors[i]);
    const Outputs& s = sequential[i];
    const Outputs& t = threaded[i];
    using File = std::tuple<const char*, const std::string*, const std::string*>;
    for (auto [file, a, b] :
         {File{"report.json", &s.report, &t.report}, File{"events.jsonl", &s.events, &t.events},
          File{"timeseries.csv", &s.timeseries, &t.timeseries}}) {
      INFO(file);
      CHECK(!a->empty());
      CHECK(first_difference(*a, *b) == "");
    }
    // Another seed gives another run (else the reseeded runs would test nothing new).
    if (runs[i].reseeded_from) CHECK(s.events != sequential[*runs[i].reseeded_from].events);
  }
}
