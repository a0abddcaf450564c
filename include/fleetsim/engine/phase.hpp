// The phases that order controllers within one simulated instant.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace fleetsim {

// Events due at the same time run phase by phase, in this order; within a phase they run in the
// order they were scheduled. The order follows the flow of cause and effect inside one tick, so
// each controller sees what the controllers before it did at this instant (as a real cluster
// would a moment later), and a result never depends on which controller scheduled first.
enum class Phase : std::uint8_t {
  // Cloud and node lifecycle (launch completes, node Ready, spot termination) goes first, so
  // everything later in the tick sees the fleet as it now is.
  CloudAndNodes,
  // Pods bind, start, become Ready or terminate on the nodes as they now are.
  PodLifecycle,
  // Request arrivals and completions, served by the replicas that are Ready at this instant.
  Workload,
  // A scrape samples the state the workload left, as Prometheus would at that instant.
  MetricsScrape,
  // KEDA's scale loop polls its scalers; at an instant where an HPA also syncs, KEDA goes first
  // (activation 0↔1 before the HPA's 1↔N, as `fleetsim autoscale` orders them).
  ScalerPolls,
  // HPA and KEDA act on the scraped samples (never on unscraped truth).
  Autoscalers,
  // Karpenter / Cluster Autoscaler see the pods the autoscalers have just created.
  Provisioning,
  // Disruption runs after provisioning so it never removes a node provisioning just counted on.
  Disruption,
  // Reporting snapshots the end state of the instant, after every controller has acted.
  Reporting,
};

inline constexpr std::size_t kPhaseCount = static_cast<std::size_t>(Phase::Reporting) + 1;

std::string_view to_string(Phase phase);

}  // namespace fleetsim
