// Runs a loaded scenario into a typed RunResult; `fleetsim run`, the golden tests, the benchmarks
// and sweeps all start here.
#pragma once

#include <functional>
#include <vector>

#include "fleetsim/autoscaling/metrics_store.hpp"
#include "fleetsim/core/time.hpp"
#include "fleetsim/k8s/sim_event.hpp"
#include "fleetsim/runner/run_result.hpp"
#include "fleetsim/runner/timeseries_row.hpp"
#include "fleetsim/scenario/scenario_config.hpp"

namespace fleetsim {

// Observers of one run. Everything here is called on the thread that calls run(), and must
// outlive that call.
struct RunOptions {
  // Receive every event, each report interval and the end, as the run goes (events.jsonl's
  // writer, for one).
  std::vector<EventSink*> event_sinks;
  // Receive the time series' columns before the run and a row per report interval.
  std::vector<TimeseriesSink*> timeseries_sinks;
  // Receive every sample scraped into the run's metrics store (DCGM and vLLM per pod, …).
  std::vector<MetricSampleSink*> metric_sinks;
  // Called as simulated time passes, for a progress line; not per event.
  std::function<void(SimTime)> progress;
  // How much simulated time passes between progress calls; zero: a hundredth of the run, at
  // least a second.
  SimDuration progress_period{};
};

// Builds the World for `config`, runs it to its end and returns what it measured. Does no I/O
// and touches no state outside its arguments, so runs on many threads at once give the same
// results as one after another.
RunResult run(const ScenarioConfig& config, const RunOptions& options = {});

}  // namespace fleetsim
