// The pod lifecycle on a node, for every pod alike: bind → image pull → model load → probes →
// Ready → terminating (grace period) → gone.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fleetsim/engine/event_tag.hpp"
#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/k8s/cluster_bus.hpp"
#include "fleetsim/kube/image_locality.hpp"
#include "fleetsim/kube/pod_startup.hpp"

namespace fleetsim {

// What starting a workload's pods takes beyond their spec (a service's `startup:`). A workload
// without one pulls nothing and its server is up as soon as the containers start.
struct PodStartupProfile {
  std::int64_t image_bytes = 0;
  SimDuration model_load{0};
};

// Who runs work inside a workload's pods (a serving runtime) and must hear how they come and go.
class PodWorkListener {
 public:
  virtual ~PodWorkListener() = default;
  // Bound: the pod's work can be set up (it takes none until Ready).
  virtual void on_pod_bound(PodId pod) = 0;
  virtual void on_pod_ready(PodId pod) = 0;
  // It left the endpoints; its work may finish until the grace period ends. The listener calls
  // Kubelet::work_done once nothing is left (at once, if nothing was running).
  virtual void on_pod_draining(PodId pod) = 0;
  // The grace period ended: whatever is still running dies with the container.
  virtual void on_pod_killed(PodId pod) = 0;
  // The containers are starting: why the server exits at once instead (vLLM refusing to start),
  // or empty. The kubelet starts them again after its back-off.
  virtual std::string start_failure(PodId) { return {}; }
};

// The image stores of every node (an image is cached per node) and the pods' start and stop.
// Pods of a workload with a start-up profile are timed by events; others start at bind and turn
// Ready then, or when their probes first pass. A pod deleted by its controller leaves its node once
// its work is done or its grace period ends; an evicted pod's grace period is cut short when its
// node goes. A container whose server exits as it starts is started again after the kubelet's
// back-off (CrashLoopBackOff: 10 s, doubled at each crash up to 5 min, back to 10 s once 10 min
// passed since the last crash), its image pulled, its model loaded and its probes run again.
class Kubelet final : private EventHandler {
 public:
  Kubelet(Simulation& sim, Cluster& cluster, ClusterBus& bus, std::int64_t image_pull_bytes_per_s)
      : sim_(sim), cluster_(cluster), bus_(bus), bytes_per_second_(image_pull_bytes_per_s) {}

  // How the workload's pods start, and who runs work in them (may be null).
  void manage(WorkloadId workload, PodStartupProfile profile, PodWorkListener* listener);

  void on_bound(PodId pod);
  // Admission on its node: the device plugin refuses more than one shared GPU when its config
  // says failRequestsGreaterThanOne. A refused pod ends Failed now (a PodDeleted event with
  // reason AdmissionFailed and the plugin's message) and returns false; its controller must have
  // been told first.
  bool admits(PodId pod) const;
  void fail_admission(PodId pod);
  // Its controller deleted the bound pod: it drains, then leaves its node.
  void on_terminating(PodId pod);
  // The pod was evicted from `node` (already off it): its work drains while the node lasts.
  void on_evicted(PodId pod, NodeId node);
  // The listener has no work left in the pod.
  void work_done(PodId pod);
  // The images each node reports as pulled (for kube-scheduler's ImageLocality).
  const NodeImages& node_images() const { return node_images_; }

 private:
  enum class Step : std::uint8_t { Started, Ready, GraceEnd };
  using Tag = EventTag<Step>;
  struct Managed {
    PodStartupProfile profile;
    PodWorkListener* listener = nullptr;
  };

  void on_event(SimTime now, std::uint64_t tag) override;
  const Managed* managed(WorkloadId workload) const;
  NodeImageStore& images(NodeId node);
  void become_ready(PodId pod);
  void drain(PodId pod, SimTime deadline);
  void exit(PodId pod);
  // The server exited as its container started: a PodCrashed event, and a start after back-off.
  void crash(PodId pod, const std::string& why);
  std::uint32_t attempt(PodId pod) const;

  Simulation& sim_;
  Cluster& cluster_;
  ClusterBus& bus_;
  std::int64_t bytes_per_second_;
  std::vector<std::optional<Managed>> managed_;        // by WorkloadId
  std::vector<std::optional<NodeImageStore>> images_;  // by NodeId
  NodeImages node_images_;
  // kubelet's flowcontrol.Backoff entry per crashing pod (its one serving container). Looked up
  // by pod, never iterated.
  struct CrashLoop {
    std::uint32_t restarts = 0;  // the container's start attempt, as the events' generation
    SimDuration backoff{0};
    SimTime last_update{};
  };
  std::map<PodId, CrashLoop> crash_loops_;
};

}  // namespace fleetsim
