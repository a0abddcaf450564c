// Records a run's demand as it goes and bounds what any policy must have paid for it (the
// fluid and packing bounds), and splits the run's own node time into the parts of the gap.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fleetsim/cloudprovider/cloud_provider.hpp"
#include "fleetsim/efficiency/efficiency_result.hpp"
#include "fleetsim/efficiency/node_kinds.hpp"
#include "fleetsim/efficiency/packing_lp.hpp"
#include "fleetsim/k8s/sim_event.hpp"
#include "fleetsim/scenario/scenario_config.hpp"

namespace fleetsim {

// The bounds are summed over cells of this length or more (a run of more than 1000 minutes
// gets 1000 cells): short enough that the least demand of a cell is near its mean, few enough
// that one LP per cell stays cheap. Equal to EC2's billing minimum, by choice.
inline constexpr SimDuration kEfficiencyCell = seconds(60);
inline constexpr std::int64_t kMaxEfficiencyCells = 1000;

// The argument that each bound is a bound, step by step:
//  1. The run's instance cost is at least ∫ Σ_{billed nodes n} rate_n(t) dt (the billing
//     minimum only adds), so it is at least the sum over cells of that integral.
//  2. At any t, each running pod is on a billed node whose kind is among the pod's kinds
//     (NodeKinds::kinds_for, widened by every node a pod was seen on), whose room is at most
//     the kind's room, and whose rate is at least the kind's least price over the cell (the
//     cheapest zone's offering price at any time of the cell, or a billed node's own rate if
//     lower).
//  3. Fluid: for any one resource r, Σ_n rate_n ≥ Σ_n rate_n Σ_{p on n} req_pr / room_nr ≥
//     Σ_p req_pr min_{j of p} price_j / room_jr. Integrated over the cell for one r, it is at
//     most the cell's cost; so is the largest over r. The pods' count × time is exact.
//  4. Packing: at every t of the cell each class has at least its least count of the cell, and
//     the placement at t is a feasible point of packing_usd_per_hour's LP for those counts
//     (more pods only raise the LP), so the LP × the cell's length is at most the cell's cost.
//     The cell's packing bound is the larger of that and its fluid bound.
// Pods of DaemonSets are not demand (a node's DaemonSet overhead is outside its room).
class EfficiencyRecorder final : public EventSink {
 public:
  // `config` and `cloud` must outlive the recorder.
  EfficiencyRecorder(const ScenarioConfig& config, const CloudProvider& cloud);

  void on_event(const SimEvent& e, const Cluster& cluster) override;
  void on_end(SimTime end, const Cluster& cluster) override;

  // Call after on_end; `actual_usd` is the run's instance cost (the ledger's).
  EfficiencyResult result(double actual_usd) const;

 private:
  struct DemandClass {
    Resources request;
    std::vector<std::uint32_t> kinds;  // sorted
    std::int64_t count = 0;            // running now
    std::int64_t least = 0;            // least running in the current cell
    double pod_seconds = 0.0;          // count × time in the current cell
    SimTime since{};                   // pod_seconds is counted up to here
    // From the kinds' prices and rooms as of terms_epoch_ == epoch: per resource the least
    // price per unit of room, and one pod's cheapest fraction of a node (by its largest share).
    std::uint64_t epoch = UINT64_MAX;
    std::array<double, resource::kMaxResources> least_ratio{};
    double pod_usd_per_hour = 0.0;
    std::uint32_t cheapest = 0;  // a kind with that fraction (when it is finite)
  };
  struct NodeAccount {
    SimTime since{};  // start of the current piece
    double rate = 0.0;
    std::uint32_t kind = 0;
    bool ready = false;
    bool has_pods = false;
    double used = 0.0;         // the pods' share of the node (the cost ledger's rule)
    double spot_saving = 0.0;  // per hour: what spot would have saved on the pods' share
    double billed_usd = 0.0;   // without the minimum
  };

  void advance(SimTime now, const Cluster& cluster);
  void close_cell(SimTime end, const Cluster& cluster);
  void refresh(DemandClass& c);
  // The cell's packing LP, $/h (step 4).
  double solve_cell();
  void lower_price(std::uint32_t kind, double price);
  void count(DemandClass& c, SimTime now, std::int64_t delta);
  std::uint32_t class_of(const Pod& pod);
  void on_pod(const SimEvent& e, const Cluster& cluster);
  void on_offering(const SimEvent& e, const Cluster& cluster);
  void open_node(const Node& node, SimTime now);
  void credit(NodeAccount& a, SimTime now);
  void retake(NodeAccount& a, const Node& node, const Cluster& cluster);
  void close_node(const Node& node, SimTime now);
  double kind_price_now(std::uint32_t kind) const;
  std::uint32_t kind_of(const Node& node) const;

  // First: building the node kinds (the pool sets' solver views) counts in compute_seconds_.
  std::chrono::steady_clock::time_point created_ = std::chrono::steady_clock::now();
  const CloudProvider& cloud_;
  NodeKinds kinds_;
  SimDuration cell_length_;
  SimTime cell_start_{};
  SimTime cell_end_{};

  std::vector<double> offering_price_;  // by global offering, as prices move
  // By global offering: its capacity is not 0 (the catalog's, then as traces set it).
  std::vector<std::uint8_t> offering_open_;
  std::vector<double> kind_now_;        // by kind: its cheapest zone's price in force
  std::vector<double> kind_least_;      // by kind: the least price of the current cell
  std::vector<std::uint32_t> lowered_;  // kinds whose least is not their price in force
  std::vector<DemandClass> classes_;
  using ClassKey =
      std::pair<std::array<std::int64_t, resource::kMaxResources>, std::vector<std::uint32_t>>;
  std::map<ClassKey, std::uint32_t> class_index_;
  // Lookups only, never iterated: each template's kinds (by workload, as a workload's template
  // may be freed and its address reused; emptied when large, so memory stays flat in a job
  // trace's length), and each running pod's class.
  struct SpecKey {
    WorkloadId workload;
    const PodSpec* spec;
    bool operator==(const SpecKey&) const = default;
  };
  struct SpecKeyHash {
    std::size_t operator()(const SpecKey& k) const {
      return std::hash<const void*>()(k.spec) ^ (std::hash<WorkloadId>()(k.workload) << 1);
    }
  };
  std::unordered_map<SpecKey, std::vector<std::uint32_t>, SpecKeyHash> spec_kinds_;
  std::unordered_map<PodId, std::uint32_t> running_;
  std::unordered_map<NodeId, NodeAccount> nodes_;
  std::vector<NodeId> billed_;  // in launch order

  // Counts the changes of any kind's price or room or any class's kinds: what a class's cached
  // ratios and the LP cache depend on besides the demand.
  std::uint64_t terms_epoch_ = 0;
  std::map<std::vector<double>, double> lp_cache_;
  std::unique_ptr<PackingLp> lp_;
  std::uint64_t lp_epoch_ = 0;  // terms_epoch_ when lp_ was built
  std::size_t lp_classes_ = 0;  // the classes it has

  double fluid_usd_ = 0.0;
  double packing_usd_ = 0.0;
  EfficiencyResult::Parts parts_;  // type_choice is derived in result()
  double used_usd_ = 0.0;
  double accounted_usd_ = 0.0;
  long long kinds_added_ = 0;
  double compute_seconds_ = 0.0;
  double packing_seconds_ = 0.0;  // of compute_seconds_, in the LP
};

}  // namespace fleetsim
