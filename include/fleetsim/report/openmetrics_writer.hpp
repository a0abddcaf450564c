// `fleetsim run --metrics-out FILE.om`: the run as OpenMetrics text under the names users'
// dashboards and alert rules already query (Karpenter v1's and the older nodepool names, the
// DCGM exporter's, kube-state-metrics', vLLM's), sampled every report interval and timestamped
// from the scenario's start, for `promtool tsdb create-blocks-from openmetrics`.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "fleetsim/autoscaling/metrics_store.hpp"
#include "fleetsim/catalog/catalog.hpp"
#include "fleetsim/k8s/nodepool.hpp"
#include "fleetsim/k8s/sim_event.hpp"

namespace fleetsim {

class OpenMetricsWriter final : public EventSink, public MetricSampleSink {
 public:
  // Families are spooled to files in `spool_dir` (created, and removed with the writer) so that
  // a long run's samples never sit in memory; `pools` give the NodePool limits, `catalog` the
  // capacity that NodePool usage counts, `fee_by_type` EKS Auto Mode's management fee per catalog
  // type ($ per instance-hour; empty without one), part of the cost rate.
  OpenMetricsWriter(std::filesystem::path spool_dir, std::int64_t start_unix_s,
                    std::span<const NodePool> pools, const Catalog& catalog,
                    std::span<const double> fee_by_type = {});
  ~OpenMetricsWriter() override;

  void on_event(const SimEvent& e, const Cluster& cluster) override;
  void on_interval(SimTime now, const Cluster& cluster) override;
  void on_sample(std::string_view metric, const LabelSet& labels, SimTime t, double value) override;

  // Writes every family, each whole (OpenMetrics keeps a family's samples together), and
  // "# EOF"; then removes the spool.
  void finish(std::ostream& out);

  struct Family;

 private:
  void sample(std::size_t family, const std::string& labels, double value);

  std::filesystem::path spool_dir_;
  std::int64_t start_unix_s_;
  std::string timestamp_;  // of the interval being written
  std::vector<std::unique_ptr<std::ofstream>> spools_;
  std::vector<NodePool> pools_;
  const Catalog* catalog_;
  std::vector<double> fee_by_type_;
  // Counters by their label text.
  std::map<std::string, double> launched_, terminated_, disruptions_;
  // The last value of each scraped series (metric, labels) since the previous interval.
  std::map<std::pair<std::string, std::string>, double> scraped_;
};

}  // namespace fleetsim
