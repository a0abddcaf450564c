#include "fleetsim/disruption/disruption_controller.hpp"

#include "fleetsim/disruption/drift.hpp"
#include "fleetsim/disruption/emptiness.hpp"
#include "fleetsim/disruption/multi_node_consolidation.hpp"
#include "fleetsim/disruption/single_node_consolidation.hpp"

namespace fleetsim {

DisruptionController::DisruptionController(Inputs in)
    : in_(in),
      queue_({.sim = in.sim,
              .cluster = in.cluster,
              .bus = in.bus,
              .termination = in.termination,
              .launcher = in.provisioner.launcher(),
              .pools = in.provisioner.nodepools(),
              .start_unix_s = in.start_unix_s,
              .version = in.consolidation.version}) {
  const Consolidation::Inputs consolidation{.cluster = in.cluster,
                                            .provisioner = in.provisioner,
                                            .cloud = in.cloud,
                                            .pdbs = in.pdbs,
                                            .settings = in.consolidation,
                                            .pass = &candidate_pass_};
  const KarpenterVersion version = in.consolidation.version;
  auto emptiness =
      std::make_unique<Emptiness>(in.cluster, in.provisioner.launcher().claims(),
                                  in.provisioner.nodepools(), in.cloud, in.pdbs, version);
  auto drift = std::make_unique<Drift>(in.cluster, in.provisioner, in.cloud, in.pdbs, version);
  // controller.go NewMethods: emptiness before drift from v1.5 (#2180), drift first before it.
  if (version.emptiness_first()) {
    methods_.push_back(std::move(emptiness));
    methods_.push_back(std::move(drift));
  } else {
    methods_.push_back(std::move(drift));
    methods_.push_back(std::move(emptiness));
  }
  methods_.push_back(std::make_unique<MultiNodeConsolidation>(consolidation));
  methods_.push_back(std::make_unique<SingleNodeConsolidation>(consolidation));
}

void DisruptionController::start() {
  schedule(first_firing_after_start(in_.sim.now(), kDisruptionPollPeriod, in_.poll_offset) -
               in_.sim.now(),
           0);
}

void DisruptionController::schedule(SimDuration after, std::uint64_t tag) {
  in_.sim.schedule_after(after, Phase::Disruption, *this, tag);
}

void DisruptionController::on_event(SimTime now, std::uint64_t tag) {
  if (tag == 0) {
    run(now, 0);
    return;
  }
  // The validation wait of the method at index tag − 1 is over.
  const std::size_t waited = tag - 1;
  if (queue_.validate_and_start(*methods_[waited], std::move(pending_), now)) {
    rerun(now);
  } else {
    run(now, waited + 1);  // a command that fails validation hands over to the next method
  }
}

void DisruptionController::rerun(SimTime now) {
  // After a command starts the loop runs again at once (singleton.RequeueImmediately); a bound
  // keeps a method that starts commands without end from holding the clock.
  reruns_ = now == last_rerun_ ? reruns_ + 1 : 0;
  last_rerun_ = now;
  schedule(reruns_ < kMaxRerunsPerInstant ? SimDuration{0} : kDisruptionPollPeriod, 0);
}

void DisruptionController::run(SimTime now, std::size_t first) {
  candidate_pass_.start();
  const std::vector<NodePool>& pools = in_.provisioner.nodepools();
  for (std::size_t i = first; i < methods_.size(); ++i) {
    DisruptionMethod& method = *methods_[i];
    BudgetTracker budgets(pools, in_.cluster, method.budget_reason(), now, in_.start_unix_s);
    DisruptionCommand command = method.compute(now, budgets);
    if (command.nodes.empty()) continue;
    if (!method.validated()) {
      queue_.start(method, std::move(command), now);
      rerun(now);
      return;
    }
    // The method waits out its validation period inside the loop (validation.go).
    pending_ = std::move(command);
    schedule(kCommandValidationDelay, i + 1);
    return;
  }
  schedule(kDisruptionPollPeriod, 0);  // nothing to do: poll again
}

}  // namespace fleetsim
