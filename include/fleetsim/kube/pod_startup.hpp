// How a serving pod starts once bound: image pull (serialized and cached per node), model load,
// then the startup and readiness probes (DESIGN.md §4.4).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "fleetsim/core/time.hpp"
#include "fleetsim/k8s/pod_spec.hpp"

namespace fleetsim {

// One node's image store. The kubelet pulls one image at a time (serializeImagePulls: true by
// default), so a pull waits for the ones before it; an image pulled, or being pulled, is shared
// by every later pod on the node.
class NodeImageStore {
 public:
  explicit NodeImageStore(std::int64_t bytes_per_second);

  // When `image` (of `bytes`) is on the node, for a pod that needs it at `now`. An empty name or
  // zero bytes needs no pull.
  SimTime available_at(const std::string& image, std::int64_t bytes, SimTime now);

 private:
  std::int64_t bytes_per_second_;
  SimTime puller_free_at_{};
  std::map<std::string, SimTime, std::less<>> images_;  // when each image is (or will be) present
};

// When the pod turns Ready. Probes run on the kubelet's grid `probe_origin + k × periodSeconds`
// (the probe worker starts with the pod); a probe counts once initialDelaySeconds have passed
// since the containers started, and passes once the server is up. The startup probe, if any, must
// pass before readiness probes count; a readiness probe needs successThreshold passes in a row.
// Without a readiness probe the pod is Ready once the server is up (fleetsim's reading of a
// server that accepts no connection before its model is loaded).
SimTime pod_ready_time(SimTime probe_origin, SimTime containers_started, SimTime server_up,
                       const std::optional<ProbeTiming>& startup_probe,
                       const std::optional<ProbeTiming>& readiness_probe);

}  // namespace fleetsim
