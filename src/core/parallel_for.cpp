#include "fleetsim/core/parallel_for.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace fleetsim {

void parallel_for(std::size_t count, unsigned threads,
                  const std::function<void(std::size_t)>& task) {
  std::atomic<std::size_t> next{0};
  std::mutex mutex;  // guards failure and failed_at
  std::exception_ptr failure;
  std::size_t failed_at = count;
  auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < count;) {
      try {
        task(i);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (i < failed_at) {
          failure = std::current_exception();
          failed_at = i;
        }
        next = count;  // the others stop after their current task
        return;
      }
    }
  };
  const auto n =
      static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(threads, count)));
  std::vector<std::thread> pool;
  for (unsigned k = 1; k < n; ++k) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace fleetsim
