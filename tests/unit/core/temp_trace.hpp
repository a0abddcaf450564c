// A trace file written to the temp directory for one test, removed afterwards.
#pragma once

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace fleetsim::test {

class TempTrace {
 public:
  explicit TempTrace(const std::string& content) {
    static std::atomic<int> counter{0};
    path_ =
        std::filesystem::temp_directory_path() /
        ("fleetsim-trace-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".csv");
    std::ofstream(path_, std::ios::binary) << content;
  }
  ~TempTrace() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  TempTrace(const TempTrace&) = delete;
  TempTrace& operator=(const TempTrace&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace fleetsim::test
