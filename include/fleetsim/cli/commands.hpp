// The fleetsim subcommands; each returns the process exit code (DESIGN.md §7).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "fleetsim/cli/progress.hpp"
#include "fleetsim/cli/warning_report.hpp"
#include "fleetsim/scenario/lint/lint.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"

namespace fleetsim {

// Exit codes (DESIGN.md §7).
inline constexpr int kExitOk = 0;
inline constexpr int kExitCheckFailed = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitInternal = 3;

struct RunCommandOptions {
  std::filesystem::path scenario;
  std::filesystem::path out_dir = "out";
  std::optional<std::uint64_t> seed;  // overrides the scenario's
  bool quiet = false;                 // no progress or summary
  ProgressMode progress = ProgressMode::Auto;
  WarningDetail warnings = WarningDetail::Auto;
  ReadOptions reading;                               // --lenient, --suppress
  std::optional<std::filesystem::path> metrics_out;  // OpenMetrics text of the run
};

struct CatalogOptions {
  std::optional<std::filesystem::path> catalog_dir;  // default: the bundled one for the region
  std::string region = "us-east-1";
  std::optional<std::string> filter;  // absent: every type
  bool gpu_only = false;
  std::string sort = "name";  // name | price | spot
};

struct ModelsOptions {
  std::optional<std::filesystem::path> catalog;  // default: the bundled models/models.csv
  std::string format = "table";                  // table | json
};

// `fleetsim serving-table`: the model and the load every row is measured at.
struct ServingTableOptions {
  std::string model;                           // a catalog name, alias or Hugging Face id
  std::optional<std::string> dtype;            // nullopt: bf16 (fp16 without bf16), as vLLM's auto
  std::optional<std::string> kv_dtype;         // nullopt: as the weights compute
  std::string engine = "vllm";                 // vllm | tensorrt-llm | sglang
  std::uint32_t input = 1020;                  // the Azure conversation trace's median prompt
  std::uint32_t output = 129;                  // and median output
  std::optional<std::uint32_t> max_model_len;  // default: input + output
  std::optional<std::uint32_t> max_num_seqs;   // default: the engine's
  std::optional<std::string> ttft_slo;         // durations ("500ms"): on the mean TTFT
  std::optional<std::string> tpot_slo;         // on the mean TPOT
  std::optional<std::string> filter;           // as `catalog --filter`
  std::optional<std::filesystem::path> catalog_dir;  // default: the bundled us-east-1
  std::string format = "table";                      // table | json
};

struct AutoscaleOptions {
  std::filesystem::path manifest;                // a file with exactly one HPA or ScaledObject
  std::filesystem::path metrics;                 // CSV time_s,value
  std::optional<std::int32_t> initial_replicas;  // default: the autoscaler's minimum
  std::optional<std::string> duration;           // default: the last sample + 5 minutes
  WarningDetail warnings = WarningDetail::Auto;
  ReadOptions reading;  // --lenient, --suppress
};

struct LintOptions {
  std::filesystem::path scenario;
  // A finding at or above this severity exits 1; nullopt: never.
  std::optional<LintSeverity> fail_on = LintSeverity::Warning;
  WarningDetail warnings = WarningDetail::Auto;
  ReadOptions reading;                         // --lenient, --suppress
  std::optional<std::filesystem::path> sarif;  // SARIF 2.1.0 for GitHub code scanning
};

struct ExplainOptions {
  std::filesystem::path out_dir;
  std::optional<std::string> pod;  // exactly one of pod and node
  std::optional<std::string> node;
};

struct CheckOptions {
  std::optional<std::filesystem::path> scenario;  // run it; else read `report`
  std::optional<std::filesystem::path> report;
  std::filesystem::path baseline;
  std::optional<std::filesystem::path> tolerances;
  std::optional<std::filesystem::path> markdown;
  std::optional<std::filesystem::path> junit;
  bool update_baseline = false;
  ProgressMode progress = ProgressMode::Auto;  // of the run, when it runs the scenario
  WarningDetail warnings = WarningDetail::Auto;
  ReadOptions reading;  // --lenient, --suppress
};

struct CompareOptions {
  std::vector<std::filesystem::path> inputs;  // report.json files, or scenarios to run
  std::uint64_t seeds = 1;                    // runs per scenario: its seed and the next ones
  WarningDetail warnings = WarningDetail::Auto;
  ReadOptions reading;                        // --lenient, --suppress
  std::string format = "table";               // table | csv | json | markdown
  unsigned jobs = 1;                          // runs at once
  std::optional<std::filesystem::path> keep;  // where to keep the reports of the runs
};

struct SweepCommandOptions {
  std::filesystem::path study;
  std::filesystem::path out_dir;
  unsigned jobs = 1;
  std::optional<std::string> shard;  // "I/N" or "auto/N"
  ReadOptions reading;               // --lenient, --suppress
  ProgressMode progress = ProgressMode::Auto;
  WarningDetail warnings = WarningDetail::Auto;
};

struct MergeOptions {
  std::vector<std::filesystem::path> inputs;  // shard folders or results-shard files
  std::filesystem::path out_dir;
  bool allow_partial = false;  // merge what is there when shards or runs are missing
};

int run_command(const RunCommandOptions& options);
int validate_command(const std::filesystem::path& scenario, WarningDetail warnings,
                     const ReadOptions& reading);
int catalog_command(const CatalogOptions& options);
// Lists the model catalog: architecture, KV cache per token and weight sizes.
int models_command(const ModelsOptions& options);
// Prints the lint findings; exit 1 when one is at or above --fail-on.
int lint_command(const LintOptions& options);
// A report against a baseline and the scenario's gates: exit 0 within tolerance, 1 on a
// regression.
int check_command(const CheckOptions& options);
// Headline metrics side by side, per scenario the mean and 95% interval over its seeds.
int compare_command(const CompareOptions& options);
// A study's points × seeds, resumable, shardable; then its summary and frontier.
int sweep_command(const SweepCommandOptions& options);
// Joins shards' results into the results.csv a single sweep writes.
int merge_command(const MergeOptions& options);
// A pod's or a node's story from a run's events.jsonl.
int explain_command(const ExplainOptions& options);
// Per GPU type and TP degree that holds a model: its speed, batch and cost per output token.
int serving_table_command(const ServingTableOptions& options);
// Replays a metric series through one HPA or ScaledObject; CSV time_s,replicas on stdout.
int autoscale_command(const AutoscaleOptions& options);

// The directory holding the bundled catalogs as aws/<region>/: $FLEETSIM_CATALOG_ROOT, else an
// instance-catalog/ folder beside or above the executable, else the source tree's.
std::filesystem::path bundled_catalog_root();

}  // namespace fleetsim
