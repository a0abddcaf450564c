// fleetsim: offline simulator of GPU fleets on Kubernetes. Parses the command line and maps
// errors to exit codes (DESIGN.md §7).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <charconv>
#include <iostream>
#include <limits>
#include <optional>
#include <string_view>

#include "fleetsim/cli/commands.hpp"
#include "fleetsim/core/error.hpp"
#include "fleetsim/core/version.hpp"
#include "fleetsim/report/check.hpp"
#include "fleetsim/scenario/name_hint.hpp"

namespace fleetsim {
namespace {

constexpr std::array<std::string_view, 12> kCommands{
    "run",  "validate", "check",   "compare", "sweep",         "merge",
    "lint", "explain",  "catalog", "models",  "serving-table", "autoscale"};

// A seed is a whole number in [0, 2^64): CLI11 would wrap "-1" and clamp what overflows, making
// two different seeds give the same run.
std::optional<std::uint64_t> parse_seed(std::string_view text) {
  std::uint64_t seed = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seed);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return seed;
}

// Every subcommand's options as parsed, and the subcommands, to tell which one was given.
struct CommandLine {
  RunCommandOptions run;
  std::string seed_text;
  std::string serving_mode_text;  // run, check, compare and sweep
  std::string warnings_text;
  std::string progress_text = "auto";
  std::filesystem::path validate_path;
  CheckOptions check;
  CompareOptions compare;
  SweepCommandOptions sweep;
  MergeOptions merge;
  LintOptions lint;
  std::string fail_on = "warning";
  ExplainOptions explain;
  CatalogOptions catalog;
  ModelsOptions models;
  ServingTableOptions serving_table;
  AutoscaleOptions autoscale;
  WarningDetail validate_warnings = WarningDetail::Auto;
  ReadOptions validate_reading;
  bool lenient = false;
  std::vector<std::string> suppress_text;

  CLI::App* run_cmd = nullptr;
  CLI::App* validate_cmd = nullptr;
  CLI::App* check_cmd = nullptr;
  CLI::App* compare_cmd = nullptr;
  CLI::App* sweep_cmd = nullptr;
  CLI::App* merge_cmd = nullptr;
  CLI::App* lint_cmd = nullptr;
  CLI::App* explain_cmd = nullptr;
  CLI::App* catalog_cmd = nullptr;
  CLI::App* models_cmd = nullptr;
  CLI::App* serving_table_cmd = nullptr;
  CLI::App* autoscale_cmd = nullptr;
};

// The first argument must be a command (or an option such as --help): CLI11's own message for a
// mistyped command does not list them.
std::optional<std::string> command_name_problem(int argc, char** argv) {
  if (argc >= 2 && (argv[1][0] == '-' ||
                    std::find(kCommands.begin(), kCommands.end(), argv[1]) != kCommands.end()))
    return std::nullopt;
  return fmt::format(
      "error: {}; the commands are run, validate, check, compare, sweep, merge, lint, explain, "
      "catalog, models, serving-table and autoscale "
      "(fleetsim COMMAND --help)\n",
      argc < 2 ? "no command given"
               : fmt::format("unknown command \"{}\"", std::string_view(argv[1]).substr(0, 40)));
}

// --progress, for the commands that run scenarios.
void add_progress_option(CLI::App* cmd, CommandLine& cl) {
  cmd->add_option("--progress", cl.progress_text,
                  "auto | plain | none, on stderr: auto draws a line in place on a terminal and "
                  "prints a plain line per tenth of the work elsewhere (CI logs)")
      ->check(CLI::IsMember({"auto", "plain", "none"}))
      ->capture_default_str();
}

void add_warnings_option(CLI::App* cmd, CommandLine& cl) {
  cmd->add_option("--warnings", cl.warnings_text,
                  "all | summary | none. summary shows warnings about behaviour in full and names "
                  "the ignored fields on one line; the default is all for up to 5 warnings, "
                  "summary above")
      ->check(CLI::IsMember({"all", "summary", "none"}));
}

// --serving-mode, for the commands that run scenarios.
CLI::Option* add_serving_mode_option(CLI::App* cmd, CommandLine& cl) {
  return cmd
      ->add_option("--serving-mode", cl.serving_mode_text,
                   "requests (each request through its replica's engine) or fluid (as rates), in "
                   "place of the scenario's serving_mode; a service's own simulation: stays")
      ->check(CLI::IsMember({"requests", "fluid"}));
}

// --lenient and --suppress, for every command that reads a scenario or a manifest.
void add_reading_options(CLI::App* cmd, CommandLine& cl) {
  cmd->add_flag("--lenient", cl.lenient,
                "Read manifest fields their API does not have (a newer API, or a typo) as "
                "warnings, not errors (as the scenario's manifest_validation: lenient)");
  cmd->add_option("--suppress", cl.suppress_text,
                  "Drop the warnings of these codes (printed in brackets after each warning), "
                  "as the scenario's warnings: {suppress: [...]}")
      ->delimiter(',');
}

void add_run_and_validate(CLI::App& app, CommandLine& cl) {
  cl.run_cmd = app.add_subcommand(
      "run", "Run a scenario and write report.json, events.jsonl, timeseries.csv");
  cl.run_cmd->add_option("scenario", cl.run.scenario, "Scenario YAML file")->required();
  cl.run_cmd->add_option("--out", cl.run.out_dir, "Output directory (created if missing)")
      ->capture_default_str();
  cl.run_cmd->add_option("--seed", cl.seed_text, "Override the scenario's seed (0 to 2^64 - 1)");
  add_serving_mode_option(cl.run_cmd, cl);
  cl.run_cmd->add_flag("--quiet,-q", cl.run.quiet, "No progress or summary (see --warnings)");
  add_progress_option(cl.run_cmd, cl);
  cl.run_cmd->add_option(
      "--metrics-out", cl.run.metrics_out,
      "Write the run as OpenMetrics text (Karpenter, DCGM, kube-state-metrics and "
      "vLLM names) for promtool tsdb create-blocks-from openmetrics");
  add_warnings_option(cl.run_cmd, cl);
  add_reading_options(cl.run_cmd, cl);

  cl.validate_cmd = app.add_subcommand(
      "validate", "Check a scenario, its manifests, traces and catalog without running");
  cl.validate_cmd->add_option("scenario", cl.validate_path, "Scenario YAML file")->required();
  add_warnings_option(cl.validate_cmd, cl);
  add_reading_options(cl.validate_cmd, cl);
}

void add_check(CLI::App& app, CommandLine& cl) {
  CheckOptions& check = cl.check;
  cl.check_cmd = app.add_subcommand(
      "check",
      "Hold a scenario's new report to a baseline report and the scenario's gates: exit 0 "
      "within tolerance, 1 on a regression (for CI)");
  auto* scenario = cl.check_cmd->add_option("scenario", check.scenario, "Scenario YAML to run");
  auto* report = cl.check_cmd->add_option("--report", check.report,
                                          "A report.json to check, instead of running");
  scenario->excludes(report);
  add_serving_mode_option(cl.check_cmd, cl)->excludes(report);
  cl.check_cmd->add_option("--baseline", check.baseline, "The committed baseline report.json")
      ->required();
  cl.check_cmd->add_option("--tolerances", check.tolerances,
                           "YAML: METRIC: {max_rise: 2%} | {max_fall: 0.02} | off; replaces the "
                           "defaults it names");
  cl.check_cmd->add_option("--markdown", check.markdown,
                           "Write the table as Markdown (a PR comment)");
  cl.check_cmd->add_option("--junit", check.junit,
                           "Write JUnit XML, a test case per metric and gate");
  cl.check_cmd->add_flag("--update-baseline", check.update_baseline,
                         "Write the new report to --baseline instead of checking");
  add_progress_option(cl.check_cmd, cl);
  add_warnings_option(cl.check_cmd, cl);
  add_reading_options(cl.check_cmd, cl);
  std::string tolerance_help = "Default tolerances (the direction that is worse):\n";
  for (const Tolerance& t : default_tolerances())
    tolerance_help += fmt::format(
        "  {}: may {} by {}{}\n", t.metric, t.worse_when_higher ? "rise" : "fall",
        t.relative > 0 ? fmt::format("{:g}%", t.relative * 100) : "",
        t.absolute > 0 ? fmt::format("{}{:g}", t.relative > 0 ? " or " : "", t.absolute) : "");
  cl.check_cmd->footer(tolerance_help);
}

void add_compare_sweep_and_merge(CLI::App& app, CommandLine& cl) {
  cl.compare_cmd = app.add_subcommand(
      "compare",
      "Headline metrics of reports or scenarios side by side, with changes against the "
      "first; reports of one scenario name are one side (mean and 95% interval)");
  cl.compare_cmd
      ->add_option("inputs", cl.compare.inputs, "report.json files, or scenario YAML to run")
      ->required();
  cl.compare_cmd
      ->add_option("--seeds", cl.compare.seeds, "Runs per scenario (its seed and the next)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cl.compare_cmd->add_option("--format", cl.compare.format, "table | csv | json | markdown")
      ->check(CLI::IsMember({"table", "csv", "json", "markdown"}))
      ->capture_default_str();
  cl.compare_cmd
      ->add_option("-j,--jobs", cl.compare.jobs, "Runs at once (the output is the same for any)")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cl.compare_cmd->add_option("--keep", cl.compare.keep,
                             "Keep the reports of the runs in this directory "
                             "(SCENARIO-seed-N.json)");
  add_serving_mode_option(cl.compare_cmd, cl);
  add_warnings_option(cl.compare_cmd, cl);
  add_reading_options(cl.compare_cmd, cl);

  cl.sweep_cmd = app.add_subcommand(
      "sweep",
      "Run a study's parameter points × seeds; resumable (rerun the same command) and "
      "shardable (--shard I/N); prints the cost / SLO frontier");
  cl.sweep_cmd->add_option("study", cl.sweep.study, "Study YAML")->required();
  cl.sweep_cmd->add_option("--out", cl.sweep.out_dir, "Output directory (results.csv, reports/)")
      ->required();
  cl.sweep_cmd->add_option("-j,--jobs", cl.sweep.jobs, "Runs at once")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cl.sweep_cmd->add_option("--shard", cl.sweep.shard,
                           "I/N: run every N-th point from point I (auto/N: I from "
                           "$JOB_COMPLETION_INDEX, for a Kubernetes Indexed Job)");
  add_serving_mode_option(cl.sweep_cmd, cl);
  add_progress_option(cl.sweep_cmd, cl);
  add_warnings_option(cl.sweep_cmd, cl);
  add_reading_options(cl.sweep_cmd, cl);

  cl.merge_cmd = app.add_subcommand(
      "merge", "Join sweep shards into the results.csv one sweep would write, with its summary");
  cl.merge_cmd->add_option("inputs", cl.merge.inputs, "Shard output folders or results-shard files")
      ->required();
  cl.merge_cmd->add_option("--out", cl.merge.out_dir, "Output directory")->required();
  cl.merge_cmd->add_flag("--allow-partial", cl.merge.allow_partial,
                         "Merge the runs there are when shards or runs are missing; the summary "
                         "says so and the frontier goes to frontier-partial.csv");
}

void add_lint_and_explain(CLI::App& app, CommandLine& cl) {
  cl.lint_cmd = app.add_subcommand(
      "lint",
      "Find the pitfalls of the GPU guides in a scenario: where, what will happen, the fix");
  cl.lint_cmd->add_option("scenario", cl.lint.scenario, "Scenario YAML file")->required();
  cl.lint_cmd
      ->add_option("--fail-on", cl.fail_on,
                   "warning | info | never: exit 1 on a finding at or above it")
      ->check(CLI::IsMember({"warning", "info", "never"}))
      ->capture_default_str();
  cl.lint_cmd->add_option("--sarif", cl.lint.sarif,
                          "Also write the findings (accepted ones marked suppressed) as SARIF "
                          "2.1.0, for GitHub code scanning");
  add_warnings_option(cl.lint_cmd, cl);
  add_reading_options(cl.lint_cmd, cl);
  std::string rules = "Rules:\n";
  for (const LintRule& r : kLintRules)
    rules += fmt::format("  {} ({}): {}\n", r.id, to_string(r.severity), r.summary);
  cl.lint_cmd->footer(rules);

  cl.explain_cmd = app.add_subcommand(
      "explain",
      "Tell a pod's or a node's story from a run's events.jsonl: why a pod waited and "
      "where it went, why a node was launched and how it ended");
  cl.explain_cmd->add_option("out_dir", cl.explain.out_dir, "The run's output directory (--out)")
      ->required();
  auto* pod = cl.explain_cmd->add_option("--pod", cl.explain.pod, "Pod name");
  auto* node = cl.explain_cmd->add_option("--node", cl.explain.node, "Node name");
  pod->excludes(node);
}

void add_catalog(CLI::App& app, CommandLine& cl) {
  CatalogOptions& catalog = cl.catalog;
  cl.catalog_cmd = app.add_subcommand("catalog", "List instance types as the simulator sees them");
  cl.catalog_cmd->add_flag(
      "--gpu", catalog.gpu_only,
      "Only types with GPUs or accelerators, with their GPUs' memory, bandwidth, "
      "tensor peaks and interconnect");
  cl.catalog_cmd->add_option(
      "--filter", catalog.filter,
      "Conditions, comma-separated: family=g5|g6, gpu-count>=4, gpu-name=a10g, "
      "cpu<=16, zone=us-east-1a");
  cl.catalog_cmd->add_option("--catalog", catalog.catalog_dir,
                             "Catalog directory (instance-types.csv, offerings.csv)");
  cl.catalog_cmd->add_option("--region", catalog.region, "Bundled catalog region")
      ->capture_default_str()
      ->check(
          [](const std::string& r) -> std::string {
            // It names a directory: AWS's region alphabet only, so it cannot leave the catalog.
            const bool ok =
                !r.empty() && r.size() <= 40 &&
                r.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") == std::string::npos;
            return ok ? std::string() : "invalid region \"" + r.substr(0, 40) + "\"";
          },
          "REGION");
  cl.catalog_cmd->add_option("--sort", catalog.sort, "name | price | spot")
      ->check(CLI::IsMember({"name", "price", "spot"}))
      ->capture_default_str();
}

void add_models(CLI::App& app, CommandLine& cl) {
  cl.models_cmd = app.add_subcommand(
      "models",
      "List the model catalog: parameters, layers, heads, KV cache per token, weight sizes");
  cl.models_cmd->add_option("--format", cl.models.format, "table | json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  cl.models_cmd->add_option("--catalog", cl.models.catalog,
                            "A models.csv to list instead of the bundled one");
}

void add_serving_table(CLI::App& app, CommandLine& cl) {
  ServingTableOptions& o = cl.serving_table;
  CLI::App* cmd = cl.serving_table_cmd = app.add_subcommand(
      "serving-table",
      "For one model, every GPU instance type and tensor-parallel degree that holds it: batch-1 "
      "TTFT and TPOT, the batch the KV cache holds, the throughput at the largest batch meeting "
      "the SLOs and the cost per million output tokens, on demand and on spot");
  cmd->add_option("--model", o.model, "A catalog model (`fleetsim models` lists them)")->required();
  cmd->add_option("--dtype", o.dtype,
                  "Weights: bf16, fp16, fp8, int8, int4/awq/gptq (default: "
                  "bf16, fp16 on a GPU without bf16)");
  cmd->add_option("--kv-dtype", o.kv_dtype, "KV cache format (default: as the weights compute)");
  cmd->add_option("--engine", o.engine, "vllm | tensorrt-llm | sglang")->capture_default_str();
  cmd->add_option("--input", o.input, "Prompt tokens of every request")
      ->check(CLI::Range(1, 10'000'000))
      ->capture_default_str();
  cmd->add_option("--output", o.output, "Output tokens of every request (at least 2)")
      ->check(CLI::Range(2, 10'000'000))
      ->capture_default_str();
  cmd->add_option("--max-model-len", o.max_model_len,
                  "The engine's max_model_len (default: input + output)")
      ->check(CLI::Range(1, 100'000'000));
  cmd->add_option("--max-num-seqs", o.max_num_seqs, "The engine's max_num_seqs (default: its own)")
      ->check(CLI::Range(1, 100'000));
  cmd->add_option("--ttft-slo", o.ttft_slo, "Mean time to first token at most this (500ms, 2s)");
  cmd->add_option("--tpot-slo", o.tpot_slo, "Mean time per output token at most this (50ms)");
  cmd->add_option("--filter", o.filter,
                  "Instance types, as catalog --filter: family=g5|g6e, gpu-count>=4");
  cmd->add_option("--catalog", o.catalog_dir,
                  "Catalog directory (instance-types.csv, offerings.csv, gpu-hardware.csv)");
  cmd->add_option("--format", o.format, "table | json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
}

void add_autoscale(CLI::App& app, CommandLine& cl) {
  AutoscaleOptions& autoscale = cl.autoscale;
  cl.autoscale_cmd = app.add_subcommand(
      "autoscale",
      "Replay a metric series through one HPA or ScaledObject manifest; prints CSV time_s,replicas "
      "(a row at t=0 and one per change)");
  cl.autoscale_cmd
      ->add_option("manifest", autoscale.manifest,
                   "YAML file with exactly one HorizontalPodAutoscaler or ScaledObject "
                   "(other kinds in it are ignored)")
      ->required();
  cl.autoscale_cmd
      ->add_option("--metrics", autoscale.metrics,
                   "CSV with columns time_s,value: the value in effect at a sync is the last "
                   "sample at or before it (none yet: the metric is missing). Pods and Resource "
                   "metrics: every pod's value (Resource Utilization: percent of its request); "
                   "Object, External and prometheus triggers: the query result")
      ->required();
  cl.autoscale_cmd->add_option("--initial-replicas", autoscale.initial_replicas,
                               "Replicas at t=0 (default: minReplicas; for a ScaledObject "
                               "idleReplicaCount if set, else minReplicaCount)");
  cl.autoscale_cmd->add_option("--duration", autoscale.duration,
                               "How long to replay, e.g. 30m or 6h (default: the last sample's "
                               "time plus 5 minutes)");
  add_warnings_option(cl.autoscale_cmd, cl);
  add_reading_options(cl.autoscale_cmd, cl);
  cl.autoscale_cmd->footer(
      "Replicas become Ready at once. The HPA syncs at t = 0, 15, 30 ... s; KEDA polls at t = 0, "
      "pollingInterval, ... and a poll runs before an HPA sync at the same time, so a KEDA "
      "activation and the HPA's first step can give two rows at one time. A prometheus trigger "
      "reads a missing value as 0 unless its ignoreNullValues is \"false\".");
}

// What CLI11 cannot check or convert: options that depend on one another, the seed, and the
// options every command shares. A message for stderr when the command line is wrong.
std::optional<std::string> finish_options(CommandLine& cl) {
  if (*cl.check_cmd && !cl.check.scenario && !cl.check.report)
    return "error: check: give a SCENARIO to run or --report REPORT.json\n";
  if (*cl.explain_cmd && !cl.explain.pod && !cl.explain.node)
    return "error: explain: give --pod NAME or --node NAME\n";
  if (*cl.run_cmd && !cl.seed_text.empty()) {
    cl.run.seed = parse_seed(cl.seed_text);
    if (!cl.run.seed) {
      return fmt::format("error: --seed: expected a whole number from 0 to {}, got \"{}\"\n",
                         std::numeric_limits<std::uint64_t>::max(), cl.seed_text.substr(0, 40));
    }
  }
  const WarningDetail warnings =
      parse_warning_detail(cl.warnings_text).value_or(WarningDetail::Auto);
  cl.run.warnings = cl.validate_warnings = cl.autoscale.warnings = cl.lint.warnings =
      cl.check.warnings = cl.compare.warnings = cl.sweep.warnings = warnings;
  cl.run.progress = cl.check.progress = cl.sweep.progress =
      parse_progress_mode(cl.progress_text).value_or(ProgressMode::Auto);
  ReadOptions reading{
      .validation = cl.lenient ? FieldValidation::Lenient : FieldValidation::Strict,
      .serving_mode = cl.serving_mode_text.empty()
                          ? std::nullopt
                          : std::optional(cl.serving_mode_text == "fluid" ? ServingMode::Fluid
                                                                          : ServingMode::Requests)};
  for (const std::string& name : cl.suppress_text) {
    const std::optional<WarningCode> code = parse_warning_code(name);
    if (!code)
      return fmt::format("error: --suppress: unknown warning code \"{}\"{}; the codes are {}\n",
                         name.substr(0, 40), did_you_mean(name, warning_code_names()),
                         fmt::join(warning_code_names(), ", "));
    reading.suppress.push_back(*code);
  }
  cl.run.reading = cl.validate_reading = cl.autoscale.reading = cl.lint.reading = cl.check.reading =
      cl.compare.reading = cl.sweep.reading = reading;
  cl.lint.fail_on = cl.fail_on == "never"  ? std::nullopt
                    : cl.fail_on == "info" ? std::optional(LintSeverity::Info)
                                           : std::optional(LintSeverity::Warning);
  return std::nullopt;
}

int run_chosen_command(const CommandLine& cl) {
  if (*cl.run_cmd) return run_command(cl.run);
  if (*cl.validate_cmd)
    return validate_command(cl.validate_path, cl.validate_warnings, cl.validate_reading);
  if (*cl.check_cmd) return check_command(cl.check);
  if (*cl.compare_cmd) return compare_command(cl.compare);
  if (*cl.sweep_cmd) return sweep_command(cl.sweep);
  if (*cl.merge_cmd) return merge_command(cl.merge);
  if (*cl.lint_cmd) return lint_command(cl.lint);
  if (*cl.explain_cmd) return explain_command(cl.explain);
  if (*cl.catalog_cmd) return catalog_command(cl.catalog);
  if (*cl.models_cmd) return models_command(cl.models);
  if (*cl.serving_table_cmd) return serving_table_command(cl.serving_table);
  if (*cl.autoscale_cmd) return autoscale_command(cl.autoscale);
  return kExitInternal;
}

// Errors to exit codes (DESIGN.md §7): bad input 2, a fleetsim bug 3.
int exit_code_of(const CommandLine& cl) {
  try {
    return run_chosen_command(cl);
  } catch (const InputError& e) {
    std::cerr << "error: " << e.what() << '\n';
    return kExitBadInput;
  } catch (const InternalError& e) {
    std::cerr << e.what() << "\nplease report this as a fleetsim bug\n";
    return kExitInternal;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << '\n';
    return kExitInternal;
  }
}

}  // namespace
}  // namespace fleetsim

int main(int argc, char** argv) {
  using namespace fleetsim;
  if (const std::optional<std::string> problem = command_name_problem(argc, argv)) {
    std::cerr << *problem;
    return kExitBadInput;
  }
  CLI::App app{"fleetsim: simulate GPU fleets on Kubernetes (Karpenter) before you change them"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "fleetsim " + std::string(kFleetsimVersion));
  CommandLine cl;
  add_run_and_validate(app, cl);
  add_check(app, cl);
  add_compare_sweep_and_merge(app, cl);
  add_lint_and_explain(app, cl);
  add_catalog(app, cl);
  add_models(app, cl);
  add_serving_table(app, cl);
  add_autoscale(app, cl);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kExitOk : kExitBadInput;
  }
  if (const std::optional<std::string> problem = finish_options(cl)) {
    std::cerr << *problem;
    return kExitBadInput;
  }
  return exit_code_of(cl);
}
