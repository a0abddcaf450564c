// The shared pod-fits predicate: resources, taints with PreferNoSchedule, ORed node-selection
// terms.
#include "fleetsim/k8s/pod_fits.hpp"

#include <catch2/catch.hpp>

#include "unit/k8s/cluster_harness.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

Requirements labels(std::string zone, std::string type) {
  return Requirements::from_labels(Labels{{std::string(label::kZone), std::move(zone)},
                                          {std::string(label::kInstanceType), std::move(type)}});
}

Requirements zone_in(std::string zone) {
  Requirements r;
  r.add(std::string(label::kZone), Requirement::make(Operator::In, {std::move(zone)}));
  return r;
}

}  // namespace

// kube-scheduler: plugins/tainttoleration/taint_toleration_test.go TestTaintTolerationFilter,
// "The pod has no toleration, but the effect of taint on node is PreferNoSchedule. Pod can be
// scheduled onto the node". Karpenter honours the taint until it relaxes the pod (its scheduling
// suite: "should tolerate PreferNoSchedule taint only after trying to relax Affinity terms").
TEST_CASE("a PreferNoSchedule taint blocks only when honoured", "[k8s]") {
  PodSpec pod;
  pod.requests = pod_requests(100, 128);
  const std::vector<Taint> taints{
      {.key = "tier", .value = "old", .effect = TaintEffect::PreferNoSchedule}};
  const Requirements node_labels = labels("us-east-1a", "g5.xlarge");
  const NodeFacts node{
      .labels = node_labels, .taints = taints, .available = node_allocatable(4000, 16)};
  CHECK(pod_fits(pod, node, PreferNoSchedule::Ignore));
  CHECK_FALSE(pod_fits(pod, node, PreferNoSchedule::Honour));
  pod.tolerations.push_back({.key = "tier", .op = TolerationOperator::Exists});
  CHECK(pod_fits(pod, node, PreferNoSchedule::Honour));
}

// TestTaintTolerationFilter: "A pod has a toleration that keys and values match the taint on the
// node, but (non-empty) effect doesn't match, can't be scheduled onto the node".
TEST_CASE("a toleration of another effect does not tolerate a NoSchedule taint", "[k8s]") {
  PodSpec pod;
  pod.tolerations.push_back({.key = "foo",
                             .op = TolerationOperator::Equal,
                             .value = "bar",
                             .effect = TaintEffect::PreferNoSchedule});
  const std::vector<Taint> taints{
      {.key = "foo", .value = "bar", .effect = TaintEffect::NoSchedule}};
  CHECK(blocking_taint(pod, taints, PreferNoSchedule::Ignore) == &taints[0]);
  pod.tolerations[0].effect.reset();  // an empty effect tolerates every effect
  CHECK(blocking_taint(pod, taints, PreferNoSchedule::Honour) == nullptr);
}

TEST_CASE("a NoSchedule taint blocks whatever the PreferNoSchedule mode", "[k8s]") {
  PodSpec pod;
  const std::vector<Taint> taints{
      {.key = "nvidia.com/gpu", .value = "", .effect = TaintEffect::NoSchedule}};
  const Requirements node_labels = labels("us-east-1a", "g5.xlarge");
  const NodeFacts node{
      .labels = node_labels, .taints = taints, .available = node_allocatable(4000, 16)};
  CHECK_FALSE(pod_fits(pod, node, PreferNoSchedule::Ignore));
  CHECK(blocking_taint(pod, taints, PreferNoSchedule::Ignore) == &taints[0]);
}

TEST_CASE("any one of the pod's ORed node-selection terms is enough", "[k8s]") {
  PodSpec pod;
  pod.node_requirements = zone_in("us-east-1b");
  pod.alternative_node_requirements.push_back(zone_in("us-east-1a"));
  CHECK(node_selection_allows(pod, labels("us-east-1a", "g5.xlarge")));
  CHECK(node_selection_allows(pod, labels("us-east-1b", "g5.xlarge")));
  CHECK_FALSE(node_selection_allows(pod, labels("us-east-1c", "g5.xlarge")));
}

TEST_CASE("a pod fits only where its requests fit what is available", "[k8s]") {
  PodSpec pod;
  pod.requests = pod_requests(3000, 1024);
  const Requirements node_labels = labels("us-east-1a", "m5.xlarge");
  CHECK(pod_fits(pod,
                 {.labels = node_labels, .taints = {}, .available = node_allocatable(3000, 16)},
                 PreferNoSchedule::Honour));
  CHECK_FALSE(
      pod_fits(pod, {.labels = node_labels, .taints = {}, .available = node_allocatable(2999, 16)},
               PreferNoSchedule::Honour));
}
