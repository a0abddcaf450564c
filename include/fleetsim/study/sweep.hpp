// `fleetsim sweep`: runs a study's points × seeds on threads through the run API, appending each
// finished run's metrics to results.csv and keeping its report, so that a stopped sweep resumes
// without redoing finished runs, and a shard runs every N-th point.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "fleetsim/study/study.hpp"

namespace fleetsim {

struct SweepOptions {
  std::filesystem::path out_dir;
  std::filesystem::path catalog_root;
  unsigned jobs = 1;
  // Shard `index` of `count` runs the points whose number is index mod count.
  unsigned shard_index = 0;
  unsigned shard_count = 1;
  // Called after each finished run with (done, total) of this shard; may be empty.
  std::function<void(std::size_t, std::size_t)> progress;
  // Called with what a resume dropped from the results file ("dropped 3 rows ..."); may be empty.
  std::function<void(const std::string&)> note;
};

// results.csv (or results-shard-I-of-N.csv for a shard) in out_dir: its path.
std::filesystem::path results_path(const SweepOptions& options);

// Runs what is not in the results file yet. Returns the results file's path.
std::filesystem::path run_sweep(const Study& study, const SweepOptions& options);

}  // namespace fleetsim
