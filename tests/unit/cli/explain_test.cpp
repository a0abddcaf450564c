#include <catch2/catch.hpp>
#include <string>

#include "cli_harness.hpp"

using fleetsim::test::Run;
using fleetsim::test::Scratch;

// `fleetsim explain OUT_DIR --pod NAME | --node NAME` (issue 12, item 9).
TEST_CASE("fleetsim explain: a run's pod, and the errors", "[cli]") {
  Scratch s("explain-cli");
  s.write("out/events.jsonl",
          "{\"t\":0.0,\"kind\":\"pod_created\",\"pod\":\"p\",\"workload\":\"w\"}\n");
  const std::string out = (s.dir / "out").string();
  Run pod = s.fleetsim("explain " + out + " --pod p");
  CHECK(pod.exit_code == 0);
  CHECK(pod.out ==
        "pod p (workload w)\n             0s  created\n  still running when the run ended\n");
  Run neither = s.fleetsim("explain " + out);
  CHECK(neither.exit_code == 2);
  CHECK(neither.err == "error: explain: give --pod NAME or --node NAME\n");
  CHECK(s.fleetsim("explain " + out + " --pod p --node n").exit_code == 2);
  Run missing = s.fleetsim("explain " + (s.dir / "none").string() + " --node n");
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.err, Catch::EndsWith("none/events.jsonl: OUT_DIR: cannot read the run's "
                                          "events (run `fleetsim run --out DIR` first)\n"));
}

// An empty name would match every event that names no pod (issue 25, item 8).
TEST_CASE("fleetsim explain refuses an empty name", "[cli]") {
  Scratch s("explain-empty-cli");
  s.write("out/events.jsonl", "{\"t\":0.0,\"kind\":\"node_launched\",\"node\":\"n\"}\n");
  Run empty = s.fleetsim("explain " + (s.dir / "out").string() + " --pod ''");
  CHECK(empty.exit_code == 2);
  CHECK(empty.err == "error: command line: --pod: the pod name is empty\n");
}
