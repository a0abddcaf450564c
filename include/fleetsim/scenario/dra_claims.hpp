// A scenario's DRA objects resolved against one another and against the pods that name them:
// each pod's spec.resourceClaims becomes the requests kube-scheduler allocates devices for.
#pragma once

#include <string>
#include <vector>

#include "fleetsim/k8s/pod_spec.hpp"
#include "fleetsim/scenario/dra_decoder.hpp"
#include "fleetsim/scenario/scenario_config.hpp"
#include "fleetsim/scenario/warning_log.hpp"

namespace fleetsim {

class DraCatalog {
 public:
  // The NVIDIA driver's DeviceClasses, replaced by a user's of the same name, and `classes`;
  // every request's deviceClassName must name one (exit 2 otherwise).
  DraCatalog(std::vector<DeviceClassObject> classes, std::vector<ResourceClaimObject> claims);

  // Fills pod.spec.resource_claims from pod.claim_refs (in `namespace_name`); a claim or template
  // that does not exist fails at the reference. `kind` names the workload's kind for warnings.
  void resolve(PodTemplate& pod, const std::string& namespace_name) const;

  const std::vector<DeviceClassObject>& classes() const { return classes_; }

 private:
  std::vector<DeviceClassObject> classes_;
  std::vector<ResourceClaimObject> claims_;
};

// What each provisioner will do for the scenario's pods with claims, said at load: Karpenter and
// EKS Auto Mode never provision for them (--ignore-dra-requests, true upstream), the Cluster
// Autoscaler reads no claims with enable_dynamic_resource_allocation off; a NodeOverlay does not
// describe DRA devices.
void warn_dra_pods(const ScenarioConfig& cfg, WarningLog& warnings);

}  // namespace fleetsim
