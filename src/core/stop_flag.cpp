#include "fleetsim/core/stop_flag.hpp"

#include <atomic>

namespace fleetsim {

namespace stop_flag_detail {
constinit std::atomic<int> g_stop_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);
}  // namespace stop_flag_detail

using stop_flag_detail::g_stop_signal;

void request_stop(int signal) noexcept { g_stop_signal.store(signal, std::memory_order_relaxed); }

void clear_stop_request() noexcept { g_stop_signal.store(0, std::memory_order_relaxed); }

}  // namespace fleetsim
