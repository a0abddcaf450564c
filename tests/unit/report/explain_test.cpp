// fleetsim explain (issue 12, item 9): a pod's and a node's story from a run's events.
#include "fleetsim/report/explain.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "fleetsim/core/error.hpp"

using namespace fleetsim;

namespace {

std::string golden_events() {
  return std::string(FLEETSIM_SOURCE_DIR) + "/tests/scenarios/llm-inference/events.jsonl";
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("explain tells a golden run's pod and node from launch to termination", "[report]") {
  std::ifstream pod_events(golden_events());
  CHECK(explain_pod(pod_events, "events.jsonl", "llm-ksvdbndrnd-f8f5f") ==
        "pod llm-ksvdbndrnd-f8f5f (workload llm)\n"
        "     17m26.546s  created\n"
        "     17m27.546s  nominated to a new NodeClaim gpu-inference-fqnct of NodePool "
        "gpu-inference, with 1 pod of a batch of 1 pod; the claim kept 4 instance types, cheapest "
        "first: g5.2xlarge, g5.4xlarge, g5.8xlarge, g5.16xlarge\n"
        "   17m30.81514s  gpu-inference-fqnct launched as g5.2xlarge on-demand in us-east-1a at "
        "$1.212/h: the cheapest offering with capacity, in the first capacity type the claim "
        "allows (reserved, then spot, then on-demand)\n"
        "  18m13.313959s  bound to gpu-inference-fqnct after 46.767959s pending, as soon as its "
        "new node was ready (launch 3.26914s, registration 26.153119s, initialization 16.3457s)\n"
        "  22m13.313959s  ready\n"
        "  22m35.299739s  deleted from gpu-inference-fqnct: scale_down\n");
  std::ifstream node_events(golden_events());
  CHECK(explain_node(node_events, "events.jsonl", "gpu-inference-fqnct") ==
        "node gpu-inference-fqnct (NodePool gpu-inference)\n"
        "     17m27.546s  NodeClaim created for 1 pod pending in a batch (llm-ksvdbndrnd-f8f5f); "
        "it kept 4 instance types, cheapest first: g5.2xlarge, g5.4xlarge, g5.8xlarge, "
        "g5.16xlarge\n"
        "   17m30.81514s  launched as g5.2xlarge on-demand in us-east-1a at $1.212/h: the "
        "cheapest offering with capacity, in the first capacity type the claim allows (reserved, "
        "then spot, then on-demand)\n"
        "  17m56.968259s  registered\n"
        "  18m13.313959s  ready: initialized, GPUs advertised\n"
        "  18m13.313959s  pod bound: llm-ksvdbndrnd-f8f5f\n"
        "  22m35.299739s  pod llm-ksvdbndrnd-f8f5f deleted: scale_down\n"
        "     27m41.904s  disruption: emptiness (Empty) of 1 node, saving $1.212/h, no "
        "replacement\n"
        "     27m41.904s  cordoned and draining: empty\n"
        "  27m51.926323s  terminated: empty (ran 10m21.111183s at $1.212/h)\n");
}

TEST_CASE("explain says why a pod found no place, and when it joined a node already there",
          "[report]") {
  std::istringstream events(
      R"({"t":0.0,"kind":"pod_created","pod":"p","workload":"w"}
{"t":1.0,"kind":"pod_unschedulable","pod":"p","workload":"w","reason":"nodepool gpu: did not tolerate dedicated=gpu:NoSchedule"}
{"t":9.0,"kind":"pod_nominated","pod":"p","workload":"w","node":"gpu-abcde"}
{"t":9.0,"kind":"pod_nominated","pod":"q","workload":"w","node":"gpu-abcde"}
{"t":9.5,"kind":"pod_scheduled","pod":"p","workload":"w","node":"gpu-abcde"}
)");
  CHECK(explain_pod(events, "events.jsonl", "p") ==
        "pod p (workload w)\n"
        "             0s  created\n"
        "             1s  no place: nodepool gpu: did not tolerate dedicated=gpu:NoSchedule\n"
        "             9s  nominated to gpu-abcde, a node that exists or is starting, with room "
        "for it (a batch of 2 pods)\n"
        "           9.5s  bound to gpu-abcde after 9.5s pending\n"
        "  still running when the run ended\n");
}

TEST_CASE("explain tells a spot node's rebalance recommendation and interruption", "[report]") {
  std::istringstream events(
      R"({"t":0.0,"kind":"capacity_changed","instance_type":"g5.xlarge","capacity_type":"spot","zone":"us-east-1b","capacity":0}
{"t":5.0,"kind":"node_launched","node":"n","nodepool":"gpu","instance_type":"g5.xlarge","capacity_type":"spot","zone":"us-east-1a","price_usd_per_hour":0.4}
{"t":600.0,"kind":"spot_rebalance_recommendation","node":"n","nodepool":"gpu","instance_type":"g5.xlarge","capacity_type":"spot","zone":"us-east-1a","reason":"no_action"}
{"t":1200.0,"kind":"spot_interruption_notice","node":"n","nodepool":"gpu","instance_type":"g5.xlarge","capacity_type":"spot","zone":"us-east-1a"}
)");
  const std::string story = explain_node(events, "events.jsonl", "n");
  CHECK_THAT(story, Catch::Contains("          10m0s  rebalance recommendation: EC2 sees a raised "
                                    "risk of interruption; Karpenter takes no action on it\n"
                                    "          20m0s  spot interruption notice: the instance "
                                    "goes in two minutes\n"));
}

TEST_CASE("explain tells a node group's node", "[report]") {
  std::istringstream events(
      R"({"t":35.0,"kind":"node_launched","node":"gpu-x7k2p","node_group":"gpu","instance_type":"g5.xlarge","capacity_type":"on-demand","zone":"us-east-1a","price_usd_per_hour":1.006}
)");
  const std::string story = explain_node(events, "events.jsonl", "gpu-x7k2p");
  CHECK_THAT(story, Catch::StartsWith("node gpu-x7k2p (node group gpu)\n"));
  CHECK_THAT(story, Catch::Contains("its Auto Scaling group's next instance"));
}

TEST_CASE("explain names what it cannot find", "[report]") {
  std::ifstream events(golden_events());
  CHECK(error_of([&] { explain_pod(events, "events.jsonl", "llm-ksvdbndrnd-f8f5g"); }) ==
        "events.jsonl: --pod: no pod named \"llm-ksvdbndrnd-f8f5g\" in the events; did you mean "
        "\"llm-ksvdbndrnd-f8f5f\"?");
  std::istringstream not_events("name,value\n");
  CHECK(error_of([&] { explain_node(not_events, "out.csv", "n"); }) ==
        "out.csv:1: events: not a fleetsim event (one JSON object per line with t and kind)");
}

TEST_CASE("explain tells a balloon pod preempted for a replica", "[report]") {
  const std::string events =
      std::string(FLEETSIM_SOURCE_DIR) + "/tests/scenarios/headroom/karpenter-balloon/events.jsonl";
  std::ifstream pod_events(events);
  const std::string pod = explain_pod(pod_events, "events.jsonl", "headroom-btcc6lssnz-4znrh");
  CHECK(pod.ends_with(
      "       5m5.728s  preempted on gpu-x7w2k for the higher-priority pod llm-xmhjgqh672-lq2tn\n"
      "       5m5.728s  deleted from gpu-x7w2k: preempted\n"));
  std::ifstream node_events(events);
  const std::string node = explain_node(node_events, "events.jsonl", "gpu-x7w2k");
  CHECK(node.find("       5m5.728s  pod headroom-btcc6lssnz-4znrh preempted for "
                  "llm-xmhjgqh672-lq2tn\n"
                  "       5m5.728s  pod headroom-btcc6lssnz-4znrh deleted: preempted\n"
                  "       5m6.728s  pod bound: llm-xmhjgqh672-lq2tn\n") != std::string::npos);
}
