#include "fleetsim/core/stop_flag.hpp"

#include <atomic>

namespace fleetsim {

namespace {

// Lock-free, so that a signal handler may store it; atomic, so that a sweep's threads may read it.
std::atomic<int> g_stop_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

}  // namespace

void request_stop(int signal) noexcept { g_stop_signal.store(signal, std::memory_order_relaxed); }

int stop_signal() noexcept { return g_stop_signal.load(std::memory_order_relaxed); }

void clear_stop_request() noexcept { g_stop_signal.store(0, std::memory_order_relaxed); }

}  // namespace fleetsim
