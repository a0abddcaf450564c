// `fleetsim explain OUT_DIR --pod NAME | --node NAME`: reads the run's events.jsonl.
#include <fstream>
#include <iostream>

#include "fleetsim/cli/commands.hpp"
#include "fleetsim/core/error.hpp"
#include "fleetsim/core/input_file.hpp"
#include "fleetsim/report/explain.hpp"

namespace fleetsim {

int explain_command(const ExplainOptions& options) {
  const std::filesystem::path events = options.out_dir / "events.jsonl";
  // Read twice from the start (explain streams the file), so it must be a regular file.
  if (auto why = not_a_regular_file(events); why && *why != "file not found")
    throw InputError(SourceLocation{.file = events.string()}, "OUT_DIR", *why);
  std::ifstream in(events);
  if (!in)
    throw InputError(SourceLocation{.file = events.string()}, "OUT_DIR",
                     "cannot read the run's events (run `fleetsim run --out DIR` first)");
  std::cout << (options.pod ? explain_pod(in, events.string(), *options.pod)
                            : explain_node(in, events.string(), *options.node));
  return kExitOk;
}

}  // namespace fleetsim
