// The CSV readers: job traces, request traces (Azure, Mooncake, simple) and metric series, each
// read to the end. Traces are read from files, as the run reads them.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "fleetsim/autoscaling/metric_series.hpp"
#include "fleetsim/traffic/traffic_replay.hpp"
#include "fleetsim/workload/job_trace.hpp"
#include "fuzz_contract.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fleetsim;
  static const std::filesystem::path file =
      std::filesystem::temp_directory_path() /
      ("fleetsim-fuzz-" + std::to_string(::getpid()) + ".csv");
  const std::string_view text = fuzz::text_of(data, size);
  std::ofstream(file, std::ios::binary | std::ios::trunc)
      .write(text.data(), static_cast<std::streamsize>(size));
  fuzz::expect_result_or_located_error([&] {
    JobTraceReader jobs(file);
    while (jobs.next()) {
    }
  });
  fuzz::expect_result_or_located_error([&] { scan_request_trace(file); });
  fuzz::expect_result_or_located_error([&] { MetricSeries::parse(std::string(text), "m.csv"); });
  return 0;
}
