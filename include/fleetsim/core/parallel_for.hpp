// Runs independent tasks on a few threads. Each task writes only its own slot of the caller's
// output, so the result does not depend on the thread count or on which thread ran what.
#pragma once

#include <cstddef>
#include <functional>

namespace fleetsim {

// Calls task(i) for every i in [0, count) on up to `threads` threads (the caller's among them).
// After a task throws, tasks not yet started are skipped, the running ones finish, and the
// exception of the lowest-numbered failed task is rethrown, so the error reported does not
// depend on the thread count either.
void parallel_for(std::size_t count, unsigned threads,
                  const std::function<void(std::size_t)>& task);

}  // namespace fleetsim
