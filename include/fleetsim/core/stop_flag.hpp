// A request to stop the process's runs, set from a SIGINT or SIGTERM handler and checked by the
// event loop and by inner loops that can run long within one event (placement, the solver), so a
// signal is honoured within a moment even when simulated time does not advance.
#pragma once

#include <atomic>

namespace fleetsim {

namespace stop_flag_detail {
// Lock-free, so that a signal handler may store it; atomic, so that a sweep's threads may read it.
// Declared here so that stop_signal() is inline: the event loop asks once per event.
extern std::atomic<int> g_stop_signal;
}  // namespace stop_flag_detail

// Thrown by throw_if_stop_requested to unwind a run. Not a std::exception, so that handlers of
// bad input do not take it for one.
struct StopRequested {
  int signal = 0;
};

// Async-signal-safe: records `signal` (non-zero) as the request.
void request_stop(int signal) noexcept;
// The signal that asked to stop, or 0.
inline int stop_signal() noexcept {
  return stop_flag_detail::g_stop_signal.load(std::memory_order_relaxed);
}
// Forgets a request (a new run, or a test).
void clear_stop_request() noexcept;

inline void throw_if_stop_requested() {
  if (const int signal = stop_signal(); signal != 0) throw StopRequested{signal};
}

}  // namespace fleetsim
