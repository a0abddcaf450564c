#include "fleetsim/provisioning/karpenter/batcher.hpp"

#include <algorithm>

namespace fleetsim {

void Batcher::trigger_key(std::uint64_t key) {
  const SimTime now = sim_.now();
  if (!open_) {
    open_ = true;
    opened_ = now;
    in_window_.clear();
  }
  if (!in_window_.insert(key).second) return;  // the same pod again does not extend the window
  const SimTime close = std::min(now + idle_, opened_ + max_);
  sim_.cancel(close_);
  close_ = sim_.schedule_at(close, Phase::Provisioning, *this);
}

void Batcher::on_event(SimTime, std::uint64_t) {
  open_ = false;
  on_close_();
}

}  // namespace fleetsim
