// EC2 Auto Scaling groups (eksctl node groups): each keeps its desired capacity of instances
// running, spread evenly over its zones, in its instances distribution of on-demand and spot.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fleetsim/cloudprovider/aws/ec2_cloud.hpp"
#include "fleetsim/core/name_generator.hpp"
#include "fleetsim/core/rng.hpp"
#include "fleetsim/k8s/node_group.hpp"

namespace fleetsim {

// How often a group replaces instances that went (a spot interruption) and retries launches
// that found no capacity: EC2 Auto Scaling documents no period; its health checks run about
// this often.
inline constexpr SimDuration kAutoScalingReconcileInterval = seconds(10);

class AutoScalingGroup {
 public:
  struct Spec {
    NodeGroup group;
    std::vector<InstanceTypeOption> types;  // in the group's order, with the nodes they make
    Node node_template;                     // pool, labels, taints, EBS: copied to each node
  };

  AutoScalingGroup(Ec2Cloud& cloud, Cluster& cluster, Spec spec, RngStream names);

  const NodeGroup& group() const { return spec_.group; }
  const Spec& spec() const { return spec_; }
  int desired() const { return desired_; }
  // Instances of the group that are not going away (launching ones included), in launch order.
  const std::vector<NodeId>& instances() const { return instances_; }

  // Sets the desired capacity and launches toward it. An instance no offering had capacity for
  // stays wanted: the group retries it at every reconcile.
  void set_desired(int desired);
  // Forgets instances that went and launches toward the desired capacity. Returns how many
  // instances it still lacks.
  int reconcile();
  // TerminateInstanceInAutoScalingGroup with ShouldDecrementDesiredCapacity: the node leaves the
  // group (its termination is the caller's) and the desired capacity drops by one.
  void detach(NodeId node);

 private:
  // Launches one instance: the capacity type the distribution wants next, in the zone with the
  // fewest of the group's instances (then the others), the types in the strategy's order.
  bool launch_one();

  Ec2Cloud& cloud_;
  Cluster& cluster_;
  Spec spec_;
  NameGenerator names_;
  int desired_ = 0;
  std::vector<NodeId> instances_;
};

}  // namespace fleetsim
