// `fleetsim compare`: headline metrics of several configurations side by side, each the mean
// over its seeds with a 95% interval, and each side's change against the first.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fleetsim {

// One configuration: its reports, one per seed.
struct CompareSide {
  std::string name;
  std::vector<nlohmann::json> reports;
};

// The report.json paths the table shows, in order.
const std::vector<std::string_view>& compared_metrics();

// Student's t at 97.5% for `df` degrees of freedom (df ≥ 1): the half-width of a 95% interval
// is t × s / √n.
double student_t975(std::size_t df);

// The mean of samples and the half-width of its 95% interval (t × s / √n; 0 for one sample).
struct MeanInterval {
  std::size_t n = 0;
  double mean = 0;
  double half_width = 0;
};
MeanInterval mean_interval(std::span<const double> xs);  // xs not empty

// One row per metric: each side's mean (± the 95% half-width with several seeds) and, from the
// second side on, the change of its mean against the first side's. A metric no report of a side
// has (or null in all) reads n/a.
std::string compare_table(const std::vector<CompareSide>& sides);

}  // namespace fleetsim
