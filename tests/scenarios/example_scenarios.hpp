// The bundled example scenarios, shared by the golden test and the efficiency bounds' property:
// scenarios/<name>/scenario.yaml, or scenarios/<name>.yaml when the name has a directory; each
// with its golden outputs in tests/scenarios/<name>/.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace fleetsim::test {

inline const std::vector<std::string> kExampleScenarios = {
    "gpu-training",
    "tiered-spot",
    "llm-inference",
    "model-pair",
    "azure-conv-replay",
    "consolidation/when-empty",
    "consolidation/when-empty-or-underutilized",
    "consolidation/balanced",
    "spot-inference/spot-first",
    "spot-inference/spot-first-stressed",
    "spot-inference/on-demand",
    "provisioner-comparison/karpenter",
    "provisioner-comparison/cluster-autoscaler",
    "provisioner-comparison/eks-auto-mode",
    "headroom/karpenter-no-headroom",
    "headroom/karpenter-balloon",
    "headroom/karpenter-capacity-buffer",
    "headroom/cluster-autoscaler-no-headroom",
    "headroom/cluster-autoscaler-balloon",
    "headroom/cluster-autoscaler-capacity-buffer",
    "reservations/on-demand",
    "reservations/capacity-block",
    "reservations/odcr",
    "gpu-sharing/whole-a10g",
    "gpu-sharing/mig-p4de",
    "gpu-sharing/time-sliced-l40s",
    "gpu-sharing/dra-mig-jobs",
    "gangs/karpenter"};

inline std::filesystem::path example_scenario_file(const std::filesystem::path& root,
                                                   const std::string& name) {
  if (name.find('/') != std::string::npos) return root / "scenarios" / (name + ".yaml");
  return root / "scenarios" / name / "scenario.yaml";
}

}  // namespace fleetsim::test
