// The contract every fuzz target checks: any input ends in a result or a located error
// (InputError, or PromQL's own syntax error). Anything else escapes and libFuzzer reports it: an
// InternalError (a failed FLEETSIM_ASSERT), a crash, a sanitizer finding, a hang (-timeout) or
// unbounded memory (-rss_limit_mb).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fleetsim/core/error.hpp"

namespace fleetsim::fuzz {

inline std::string_view text_of(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

template <typename F>
void expect_result_or_located_error(F&& f) {
  try {
    f();
  } catch (const InputError&) {
    // A located error is a correct answer to bad input.
  }
}

}  // namespace fleetsim::fuzz
