#include "fleetsim/provisioning/karpenter/batcher.hpp"

#include <algorithm>

namespace fleetsim {

void Batcher::trigger(PodId pod) {
  if (pod_window_.size() <= pod) pod_window_.resize(pod + 1, 0);
  const SimTime now = sim_.now();
  if (!open_) {
    open_ = true;
    opened_ = now;
    ++window_id_;
  } else if (pod_window_[pod] == window_id_) {
    return;  // the same pod again does not extend the window
  }
  pod_window_[pod] = window_id_;
  const SimTime close = std::min(now + idle_, opened_ + max_);
  sim_.cancel(close_);
  close_ = sim_.schedule_at(close, Phase::Provisioning, *this);
}

void Batcher::on_event(SimTime, std::uint64_t) {
  open_ = false;
  on_close_();
}

}  // namespace fleetsim
