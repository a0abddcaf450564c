// parallel_for: every task runs once, and a failure is reported the same on any thread count.
#include "fleetsim/core/parallel_for.hpp"

#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>
#include <vector>

using namespace fleetsim;

TEST_CASE("parallel_for runs every task once on any number of threads", "[core]") {
  for (unsigned threads : {1U, 2U, 4U, 64U}) {
    std::vector<int> ran(100, 0);
    parallel_for(ran.size(), threads, [&](std::size_t i) { ran[i] += static_cast<int>(i) + 1; });
    for (std::size_t i = 0; i < ran.size(); ++i) CHECK(ran[i] == static_cast<int>(i) + 1);
  }
  parallel_for(0, 4, [](std::size_t) { FAIL("no task to run"); });
}

TEST_CASE("parallel_for rethrows the lowest-numbered task's failure", "[core]") {
  for (unsigned threads : {1U, 2U, 8U}) {
    try {
      parallel_for(50, threads, [](std::size_t i) {
        if (i == 7 || i == 30) throw std::runtime_error("task " + std::to_string(i));
      });
      FAIL("no exception");
    } catch (const std::runtime_error& e) {
      CHECK(std::string(e.what()) == "task 7");
    }
  }
}
