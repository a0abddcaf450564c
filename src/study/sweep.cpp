#include "fleetsim/study/sweep.hpp"

#include <fmt/format.h>

#include <atomic>
#include <exception>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "fleetsim/core/atomic_file.hpp"
#include "fleetsim/core/csv_reader.hpp"
#include "fleetsim/report/check.hpp"
#include "fleetsim/report/compare.hpp"
#include "fleetsim/report/number_format.hpp"
#include "fleetsim/report/report_json.hpp"
#include "fleetsim/runner/run.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"
#include "fleetsim/study/results_file.hpp"

namespace fleetsim {

namespace {

std::string header(const Study& study) {
  std::string out = "point,seed";
  for (const StudyParameter& p : study.parameters) {
    out += ',';
    out += csv_field(p.name);
  }
  for (std::string_view m : compared_metrics()) out += fmt::format(",{}", m);
  return out;
}

// A run's row: its point, seed, parameter values and headline metrics (empty where null).
std::string row(const Study& study, std::size_t point, std::uint64_t seed,
                const nlohmann::json& report) {
  std::string out = fmt::format("{},{}", point, seed);
  for (std::size_t i = 0; i < study.parameters.size(); ++i) {
    out += ',';
    out += csv_field(study.parameters[i].texts[study.points[point][i]]);
  }
  for (std::string_view m : compared_metrics()) {
    out += ',';
    if (auto v = report_metric(report, m)) append_decimal(out, *v, /*keep_point=*/false);
  }
  return out;
}

}  // namespace

std::filesystem::path results_path(const SweepOptions& o) {
  if (o.shard_count <= 1) return o.out_dir / "results.csv";
  return o.out_dir / fmt::format("results-shard-{}-of-{}.csv", o.shard_index, o.shard_count);
}

std::filesystem::path run_sweep(const Study& study, const SweepOptions& options) {
  std::error_code ec;
  std::filesystem::create_directories(options.out_dir / "reports", ec);
  if (ec) throw InputError(SourceLocation{.file = options.out_dir.string()}, "--out", ec.message());
  ResultsFile results(results_path(options), header(study),
                      StudyRecord{.digest = study.digest,
                                  .points = study.points.size(),
                                  .seeds = study.seeds,
                                  .shard_index = options.shard_index,
                                  .shard_count = options.shard_count});
  if (options.note)
    for (const std::string& note : results.notes()) options.note(note);

  struct Task {
    std::size_t point;
    std::uint64_t seed;
  };
  std::vector<Task> tasks;
  std::size_t total = 0;
  for (std::size_t p = options.shard_index; p < study.points.size(); p += options.shard_count) {
    for (std::uint64_t seed : study.seeds) {
      ++total;
      if (!results.has(p, seed)) tasks.push_back({p, seed});
    }
  }

  std::atomic<std::size_t> next{0};
  std::mutex mutex;  // guards results, done and failure
  std::size_t done = total - tasks.size();
  std::exception_ptr failure;
  auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < tasks.size();) {
      const Task& t = tasks[i];
      try {
        const std::vector<Override> edits = study.overrides(t.point);
        ScenarioConfig config =
            load_scenario(study.scenario, options.catalog_root, edits, study.reading);
        config.seed = t.seed;
        const std::string report = report_json_text(run(config));
        write_file_atomically(
            options.out_dir / "reports" / fmt::format("p{}-s{}.json", t.point, t.seed), "--out",
            report);
        const std::string line = row(study, t.point, t.seed, nlohmann::json::parse(report));
        std::lock_guard lock(mutex);
        if (failure) return;
        results.append(t.point, t.seed, line);
        if (options.progress) options.progress(++done, total);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!failure) failure = std::current_exception();
        next = tasks.size();  // the others stop after their current run
        return;
      }
    }
  };
  std::vector<std::thread> threads;
  const unsigned n =
      std::max(1U, std::min<unsigned>(options.jobs, static_cast<unsigned>(tasks.size())));
  for (unsigned k = 1; k < n; ++k) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
  results.finish();
  return results.path();
}

}  // namespace fleetsim
