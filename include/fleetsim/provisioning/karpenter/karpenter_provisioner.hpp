// Karpenter's provisioner: batches pending pods, solves, nominates and launches NodeClaims.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fleetsim/k8s/cluster_bus.hpp"
#include "fleetsim/cloudprovider/aws/sim_cloud.hpp"
#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/scheduling/scheduler.hpp"

namespace fleetsim {

// A node that got pods in a simulation is nominated for max(2 × batch max, 10 s) = 20 s
// (core:pkg/controllers/state/statenode.go nominationWindow) and is no disruption candidate.
inline constexpr SimDuration kNominationWindow = seconds(20);

struct ProvisionerSettings {
  SimDuration batch_idle = seconds(1);  // BATCH_IDLE_DURATION
  SimDuration batch_max = seconds(10);  // BATCH_MAX_DURATION
  // Karpenter's pod controller re-triggers provisioning for pods still pending (10 s requeue).
  SimDuration retrigger = seconds(10);
};

// What a NodeClaim of a pool adds at launch besides the instance.
struct PoolLaunchInfo {
  std::int64_t ebs_bytes = 0;
  double ebs_price_per_hour = 0.0;
};

class KarpenterProvisioner : private EventHandler {
 public:
  struct Inputs {
    Simulation& sim;
    Cluster& cluster;
    ClusterBus& bus;
    SimCloud& cloud;
    const SchedulingContext* context;
    ProvisionerSettings settings;
    std::vector<PoolLaunchInfo> pools;        // per context pool
    std::vector<NodeLatency> latency_by_type;  // per catalog type
  };
  explicit KarpenterProvisioner(Inputs in);

  // A pod is provisionable: open a batch window or extend it (a pod already in the window
  // does not extend it, as in Karpenter's batcher).
  void trigger(PodId pod);

  // NodePools changed (a scripted apply): later solves use the new pools.
  void set_context(const SchedulingContext& context, std::vector<PoolLaunchInfo> pools);

  std::uint64_t solves() const { return solves_; }

 private:
  enum class Timer : std::uint64_t { CloseWindow = 1, Retrigger = 2 };
  void on_event(SimTime now, std::uint64_t tag) override;
  void provision();
  std::string node_name(const std::string& pool);

  Inputs in_;
  std::unique_ptr<Scheduler> scheduler_;
  RngStream names_;
  bool window_open_ = false;
  SimTime window_start_{};
  std::uint64_t window_id_ = 0;
  std::vector<std::uint64_t> pod_window_;  // per pod: the window that saw it last
  EventHandle close_;
  EventHandle retrigger_;
  std::uint64_t solves_ = 0;
  std::vector<std::string> used_names_;  // sorted, to keep generated names unique
};

}  // namespace fleetsim
