// A Karpenter NodePool (and its EC2NodeClass) that launches only one instance type of one
// capacity type: the manifests the runner tests put their workloads beside.
#pragma once

#include <string>

namespace fleetsim::test {

inline std::string one_type_pool(const std::string& pool, const std::string& instance_type,
                                 const std::string& capacity_type) {
  return "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: " + pool +
         "}\nspec:\n  template:\n    spec:\n"
         "      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n"
         "      requirements:\n"
         "        - {key: node.kubernetes.io/instance-type, operator: In, values: [\"" +
         instance_type +
         "\"]}\n"
         "        - {key: karpenter.sh/capacity-type, operator: In, values: [\"" +
         capacity_type +
         "\"]}\n---\n"
         "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: default}\n"
         "spec: {role: test}\n---\n";
}

}  // namespace fleetsim::test
