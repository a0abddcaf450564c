// explain reads events.jsonl as it streams by, checks every number it uses and refuses an empty
// name (issue 25, item 8).
#include <catch2/catch.hpp>
#include <functional>
#include <sstream>
#include <string>

#include "fleetsim/core/error.hpp"
#include "fleetsim/report/explain.hpp"

using namespace fleetsim;

namespace {

std::string pod_error(const std::string& events, const std::string& pod = "p") {
  std::istringstream in(events);
  try {
    explain_pod(in, "events.jsonl", pod);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

const std::string kCreated =
    "{\"t\":0,\"kind\":\"pod_created\",\"pod\":\"p\",\"workload\":\"w\"}\n";

}  // namespace

TEST_CASE("explain checks each number's type and range, naming the line and field", "[report]") {
  CHECK(pod_error(kCreated + "{\"t\":-1,\"kind\":\"pod_ready\",\"pod\":\"p\"}\n") ==
        "events.jsonl:2: t: expected a number from 0 to 34560000, got -1");
  CHECK(pod_error(kCreated + "{\"t\":1e300,\"kind\":\"pod_ready\",\"pod\":\"p\"}\n") ==
        "events.jsonl:2: t: expected a number from 0 to 34560000, got 1e+300");
  CHECK(pod_error("{\"t\":\"soon\",\"kind\":\"pod_created\",\"pod\":\"p\"}\n") ==
        "events.jsonl:1: t: expected a number from 0 to 34560000, got \"soon\"");
  CHECK(pod_error(kCreated +
                  "{\"t\":1,\"kind\":\"nodeclaim_created\",\"node\":\"n\",\"pods\":1.5}\n") ==
        "events.jsonl:2: pods: expected a whole number from 0 to 1000000000, got 1.5");
  CHECK(pod_error(kCreated + "{\"t\":1,\"kind\":\"nodeclaim_created\",\"node\":\"n\","
                             "\"instance_type_count\":1e20}\n") ==
        "events.jsonl:2: instance_type_count: expected a whole number from 0 to 1000000000, got "
        "1e+20");
  CHECK(pod_error(kCreated + "{\"t\":1,\"kind\":\"node_launched\",\"node\":\"n\","
                             "\"price_usd_per_hour\":\"cheap\"}\n") ==
        "events.jsonl:2: price_usd_per_hour: expected a number from 0 to 1000000000, got "
        "\"cheap\"");
  // Every line is checked, not only the pod's: the file is not fleetsim's.
  CHECK(pod_error(kCreated + "{\"t\":1,\"kind\":\"disruption_decision\","
                             "\"savings_usd_per_hour\":-1e12}\n") ==
        "events.jsonl:2: savings_usd_per_hour: expected a number from -1000000000 to "
        "1000000000, got -1000000000000.0");
}

TEST_CASE("explain refuses an empty name, which would match every event without one", "[report]") {
  CHECK(pod_error(kCreated, "") == "command line: --pod: the pod name is empty");
  std::istringstream in(kCreated);
  CHECK_THROWS_WITH(explain_node(in, "events.jsonl", ""),
                    "command line: --node: the node name is empty");
}

TEST_CASE("explain's hint is the closest name, ties to the first by name, over the stream",
          "[report]") {
  const std::string events =
      "{\"t\":0,\"kind\":\"pod_created\",\"pod\":\"web-b\"}\n"
      "{\"t\":0,\"kind\":\"pod_created\",\"pod\":\"web-a\"}\n"
      "{\"t\":0,\"kind\":\"pod_created\",\"pod\":\"db-0\"}\n";
  CHECK(pod_error(events, "web-") ==
        "events.jsonl: --pod: no pod named \"web-\" in the events; did you mean \"web-a\"?");
  CHECK(pod_error(events, "zzzzzz") ==
        "events.jsonl: --pod: no pod named \"zzzzzz\" in the events");
}

TEST_CASE("explain refuses a line longer than 1 MiB instead of holding it", "[report]") {
  CHECK(pod_error(kCreated + std::string(std::size_t{2} << 20, 'x') + "\n") ==
        "events.jsonl:2: events: a line longer than 1 MiB: not a fleetsim event");
  // The last line needs no newline.
  CHECK(pod_error("{\"t\":0,\"kind\":\"pod_created\",\"pod\":\"p\",\"workload\":\"w\"}") ==
        "no error");
}
