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

namespace {

constexpr std::array<std::string_view, 10> kCommands{"run",     "validate", "check", "compare",
                                                     "sweep",   "merge",    "lint",  "explain",
                                                     "catalog", "autoscale"};

// A seed is a whole number in [0, 2^64): CLI11 would wrap "-1" and clamp what overflows, making
// two different seeds give the same run.
std::optional<std::uint64_t> parse_seed(std::string_view text) {
  std::uint64_t seed = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seed);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return seed;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace fleetsim;
  if (argc < 2 || (argv[1][0] != '-' &&
                   std::find(kCommands.begin(), kCommands.end(), argv[1]) == kCommands.end())) {
    std::cerr << fmt::format(
        "error: {}; the commands are run, validate, check, compare, sweep, merge, lint, explain, "
        "catalog and autoscale "
        "(fleetsim COMMAND --help)\n",
        argc < 2 ? "no command given"
                 : fmt::format("unknown command \"{}\"", std::string_view(argv[1]).substr(0, 40)));
    return kExitBadInput;
  }
  CLI::App app{"fleetsim: simulate GPU fleets on Kubernetes (Karpenter) before you change them"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "fleetsim " + std::string(kFleetsimVersion));

  RunCommandOptions run;
  CLI::App* run_cmd = app.add_subcommand(
      "run", "Run a scenario and write report.json, events.jsonl, timeseries.csv");
  run_cmd->add_option("scenario", run.scenario, "Scenario YAML file")->required();
  run_cmd->add_option("--out", run.out_dir, "Output directory (created if missing)")
      ->capture_default_str();
  std::string seed_text;
  run_cmd->add_option("--seed", seed_text, "Override the scenario's seed (0 to 2^64 - 1)");
  run_cmd->add_flag("--quiet,-q", run.quiet, "No progress or summary (see --warnings)");
  run_cmd->add_option("--metrics-out", run.metrics_out,
                      "Write the run as OpenMetrics text (Karpenter, DCGM, kube-state-metrics and "
                      "vLLM names) for promtool tsdb create-blocks-from openmetrics");
  const std::string warnings_help =
      "all | summary | none. summary shows warnings about behaviour in full and names the "
      "ignored fields on one line; the default is all for up to 5 warnings, summary above";
  std::string warnings_text;
  auto add_warnings = [&](CLI::App* cmd) {
    cmd->add_option("--warnings", warnings_text, warnings_help)
        ->check(CLI::IsMember({"all", "summary", "none"}));
  };
  add_warnings(run_cmd);

  std::filesystem::path validate_path;
  CLI::App* validate_cmd = app.add_subcommand(
      "validate", "Check a scenario, its manifests, traces and catalog without running");
  validate_cmd->add_option("scenario", validate_path, "Scenario YAML file")->required();
  add_warnings(validate_cmd);

  CheckOptions check;
  CLI::App* check_cmd = app.add_subcommand(
      "check",
      "Hold a scenario's new report to a baseline report and the scenario's gates: exit 0 "
      "within tolerance, 1 on a regression (for CI)");
  auto* check_scenario = check_cmd->add_option("scenario", check.scenario, "Scenario YAML to run");
  auto* check_report =
      check_cmd->add_option("--report", check.report, "A report.json to check, instead of running");
  check_scenario->excludes(check_report);
  check_cmd->add_option("--baseline", check.baseline, "The committed baseline report.json")
      ->required();
  check_cmd->add_option("--tolerances", check.tolerances,
                        "YAML: METRIC: {max_rise: 2%} | {max_fall: 0.02} | off; replaces the "
                        "defaults it names");
  check_cmd->add_option("--markdown", check.markdown, "Write the table as Markdown (a PR comment)");
  check_cmd->add_option("--junit", check.junit, "Write JUnit XML, a test case per metric and gate");
  check_cmd->add_flag("--update-baseline", check.update_baseline,
                      "Write the new report to --baseline instead of checking");
  add_warnings(check_cmd);
  std::string tolerance_help = "Default tolerances (the direction that is worse):\n";
  for (const Tolerance& t : default_tolerances())
    tolerance_help += fmt::format(
        "  {}: may {} by {}{}\n", t.metric, t.worse_when_higher ? "rise" : "fall",
        t.relative > 0 ? fmt::format("{:g}%", t.relative * 100) : "",
        t.absolute > 0 ? fmt::format("{}{:g}", t.relative > 0 ? " or " : "", t.absolute) : "");
  check_cmd->footer(tolerance_help);

  CompareOptions compare;
  CLI::App* compare_cmd = app.add_subcommand(
      "compare",
      "Headline metrics of reports or scenarios side by side, with changes against the "
      "first; reports of one scenario name are one side (mean and 95% interval)");
  compare_cmd->add_option("inputs", compare.inputs, "report.json files, or scenario YAML to run")
      ->required();
  compare_cmd->add_option("--seeds", compare.seeds, "Runs per scenario (its seed and the next)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  add_warnings(compare_cmd);

  SweepCommandOptions sweep;
  CLI::App* sweep_cmd = app.add_subcommand(
      "sweep",
      "Run a study's parameter points × seeds; resumable (rerun the same command) and "
      "shardable (--shard I/N); prints the cost / SLO frontier");
  sweep_cmd->add_option("study", sweep.study, "Study YAML")->required();
  sweep_cmd->add_option("--out", sweep.out_dir, "Output directory (results.csv, reports/)")
      ->required();
  sweep_cmd->add_option("-j,--jobs", sweep.jobs, "Runs at once")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  sweep_cmd->add_option("--shard", sweep.shard,
                        "I/N: run every N-th point from point I (auto/N: I from "
                        "$JOB_COMPLETION_INDEX, for a Kubernetes Indexed Job)");

  MergeOptions merge;
  CLI::App* merge_cmd = app.add_subcommand(
      "merge", "Join sweep shards into the results.csv one sweep would write, with its summary");
  merge_cmd->add_option("inputs", merge.inputs, "Shard output folders or results-shard files")
      ->required();
  merge_cmd->add_option("--out", merge.out_dir, "Output directory")->required();

  LintOptions lint;
  std::string fail_on = "warning";
  CLI::App* lint_cmd = app.add_subcommand(
      "lint",
      "Find the pitfalls of the GPU guides in a scenario: where, what will happen, the fix");
  lint_cmd->add_option("scenario", lint.scenario, "Scenario YAML file")->required();
  lint_cmd
      ->add_option("--fail-on", fail_on,
                   "warning | info | never: exit 1 on a finding at or above it")
      ->check(CLI::IsMember({"warning", "info", "never"}))
      ->capture_default_str();
  add_warnings(lint_cmd);
  std::string rules = "Rules:\n";
  for (const LintRule& r : kLintRules)
    rules += fmt::format("  {} ({}): {}\n", r.id, to_string(r.severity), r.summary);
  lint_cmd->footer(rules);

  ExplainOptions explain;
  CLI::App* explain_cmd = app.add_subcommand(
      "explain",
      "Tell a pod's or a node's story from a run's events.jsonl: why a pod waited and "
      "where it went, why a node was launched and how it ended");
  explain_cmd->add_option("out_dir", explain.out_dir, "The run's output directory (--out)")
      ->required();
  auto* pod_opt = explain_cmd->add_option("--pod", explain.pod, "Pod name");
  auto* node_opt = explain_cmd->add_option("--node", explain.node, "Node name");
  pod_opt->excludes(node_opt);

  CatalogOptions catalog;
  CLI::App* catalog_cmd =
      app.add_subcommand("catalog", "List instance types as the simulator sees them");
  catalog_cmd->add_flag("--gpu", catalog.gpu_only, "Only types with GPUs or accelerators");
  catalog_cmd->add_option("--filter", catalog.filter,
                          "Conditions, comma-separated: family=g5|g6, gpu-count>=4, gpu-name=a10g, "
                          "cpu<=16, zone=us-east-1a");
  catalog_cmd->add_option("--catalog", catalog.catalog_dir,
                          "Catalog directory (instance-types.csv, offerings.csv)");
  catalog_cmd->add_option("--region", catalog.region, "Bundled catalog region")
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
  catalog_cmd->add_option("--sort", catalog.sort, "name | price | spot")
      ->check(CLI::IsMember({"name", "price", "spot"}))
      ->capture_default_str();

  AutoscaleOptions autoscale;
  CLI::App* autoscale_cmd = app.add_subcommand(
      "autoscale",
      "Replay a metric series through one HPA or ScaledObject manifest; prints CSV time_s,replicas "
      "(a row at t=0 and one per change)");
  autoscale_cmd
      ->add_option("manifest", autoscale.manifest,
                   "YAML file with exactly one HorizontalPodAutoscaler or ScaledObject "
                   "(other kinds in it are ignored)")
      ->required();
  autoscale_cmd
      ->add_option("--metrics", autoscale.metrics,
                   "CSV with columns time_s,value: the value in effect at a sync is the last "
                   "sample at or before it (none yet: the metric is missing). Pods and Resource "
                   "metrics: every pod's value (Resource Utilization: percent of its request); "
                   "Object, External and prometheus triggers: the query result")
      ->required();
  autoscale_cmd->add_option("--initial-replicas", autoscale.initial_replicas,
                            "Replicas at t=0 (default: minReplicas; for a ScaledObject "
                            "idleReplicaCount if set, else minReplicaCount)");
  autoscale_cmd->add_option("--duration", autoscale.duration,
                            "How long to replay, e.g. 30m or 6h (default: the last sample's time "
                            "plus 5 minutes)");
  add_warnings(autoscale_cmd);
  autoscale_cmd->footer(
      "Replicas become Ready at once. The HPA syncs at t = 0, 15, 30 ... s; KEDA polls at t = 0, "
      "pollingInterval, ... and a poll runs before an HPA sync at the same time, so a KEDA "
      "activation and the HPA's first step can give two rows at one time. A prometheus trigger "
      "reads a missing value as 0 unless its ignoreNullValues is \"false\".");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kExitOk : kExitBadInput;
  }

  if (*check_cmd && !check.scenario && !check.report) {
    std::cerr << "error: check: give a SCENARIO to run or --report REPORT.json\n";
    return kExitBadInput;
  }
  if (*explain_cmd && !explain.pod && !explain.node) {
    std::cerr << "error: explain: give --pod NAME or --node NAME\n";
    return kExitBadInput;
  }
  if (*run_cmd && !seed_text.empty()) {
    run.seed = parse_seed(seed_text);
    if (!run.seed) {
      std::cerr << fmt::format("error: --seed: expected a whole number from 0 to {}, got \"{}\"\n",
                               std::numeric_limits<std::uint64_t>::max(), seed_text.substr(0, 40));
      return kExitBadInput;
    }
  }

  const WarningDetail warnings = parse_warning_detail(warnings_text).value_or(WarningDetail::Auto);
  run.warnings = autoscale.warnings = lint.warnings = check.warnings = compare.warnings = warnings;
  lint.fail_on = fail_on == "never"  ? std::nullopt
                 : fail_on == "info" ? std::optional(LintSeverity::Info)
                                     : std::optional(LintSeverity::Warning);

  try {
    if (*run_cmd) return run_command(run);
    if (*validate_cmd) return validate_command(validate_path, warnings);
    if (*check_cmd) return check_command(check);
    if (*compare_cmd) return compare_command(compare);
    if (*sweep_cmd) return sweep_command(sweep);
    if (*merge_cmd) return merge_command(merge);
    if (*lint_cmd) return lint_command(lint);
    if (*explain_cmd) return explain_command(explain);
    if (*catalog_cmd) return catalog_command(catalog);
    if (*autoscale_cmd) return autoscale_command(autoscale);
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
  return kExitInternal;
}
