// fleetsim: offline simulator of GPU fleets on Kubernetes. Parses the command line and maps
// errors to exit codes (DESIGN.md §7).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>

#include "fleetsim/cli/commands.hpp"
#include "fleetsim/core/error.hpp"

int main(int argc, char** argv) {
  using namespace fleetsim;
  CLI::App app{"fleetsim: simulate GPU fleets on Kubernetes (Karpenter) before you change them"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "fleetsim 0.1.0");

  RunOptions run;
  CLI::App* run_cmd = app.add_subcommand("run", "Run a scenario and write report.json, events.jsonl, timeseries.csv");
  run_cmd->add_option("scenario", run.scenario, "Scenario YAML file")->required();
  run_cmd->add_option("--out", run.out_dir, "Output directory (created if missing)")->capture_default_str();
  run_cmd->add_option("--seed", run.seed, "Override the scenario's seed");
  run_cmd->add_flag("--quiet,-q", run.quiet, "No warnings, progress or summary");

  std::filesystem::path validate_path;
  CLI::App* validate_cmd = app.add_subcommand("validate", "Check a scenario, its manifests, traces and catalog without running");
  validate_cmd->add_option("scenario", validate_path, "Scenario YAML file")->required();

  CatalogOptions catalog;
  CLI::App* catalog_cmd = app.add_subcommand("catalog", "List instance types as the simulator sees them");
  catalog_cmd->add_flag("--gpu", catalog.gpu_only, "Only types with GPUs or accelerators");
  catalog_cmd->add_option("--filter", catalog.filter,
                          "Conditions, comma-separated: family=g5|g6, gpu-count>=4, gpu-name=a10g, cpu<=16, zone=us-east-1a");
  catalog_cmd->add_option("--catalog", catalog.catalog_dir, "Catalog directory (instance-types.csv, offerings.csv)");
  catalog_cmd->add_option("--region", catalog.region, "Bundled catalog region")->capture_default_str();
  catalog_cmd->add_option("--sort", catalog.sort, "name | price | spot")
      ->check(CLI::IsMember({"name", "price", "spot"}))
      ->capture_default_str();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kExitOk : kExitBadInput;
  }

  try {
    if (*run_cmd) return run_command(run);
    if (*validate_cmd) return validate_command(validate_path);
    if (*catalog_cmd) return catalog_command(catalog);
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
