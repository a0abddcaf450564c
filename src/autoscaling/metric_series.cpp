#include "fleetsim/autoscaling/metric_series.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string_view>
#include <system_error>

#include "fleetsim/core/error.hpp"

namespace fleetsim {

namespace {

// A series spanning over ten years is a unit mix-up (milliseconds read as seconds); the bound
// also keeps microseconds far from int64 overflow.
constexpr double kMaxTimeS = 10.0 * 365.0 * 86400.0;
// Samples held in memory: a day at one sample per 10 ms. A series beyond it is not a recorded
// metric but a mistake, and would exhaust memory before it said so.
constexpr std::size_t kMaxSamples = 10'000'000;

struct Field {
  std::string_view text;
  int col = 1;  // 1-based column where the field starts
};

// Splits one line on commas, trimming blanks around each field.
std::vector<Field> split(std::string_view line) {
  std::vector<Field> out;
  std::size_t start = 0;
  while (true) {
    std::size_t end = line.find(',', start);
    std::string_view raw =
        line.substr(start, end == std::string_view::npos ? line.npos : end - start);
    std::size_t lead = raw.find_first_not_of(" \t");
    std::size_t trail = raw.find_last_not_of(" \t");
    std::string_view text =
        lead == raw.npos ? std::string_view{} : raw.substr(lead, trail - lead + 1);
    out.push_back({text, static_cast<int>(start + (lead == raw.npos ? 0 : lead)) + 1});
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return out;
}

class SeriesParser {
 public:
  explicit SeriesParser(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(int line, int col, std::string_view column, std::string message) const {
    throw TraceError(SourceLocation{.file = file_, .line = line, .col = col}, std::string(column),
                     std::move(message));
  }

  double number(int line, const Field& f, std::string_view column) const {
    if (f.text.empty()) fail(line, f.col, column, "is empty; expected a number");
    double v = 0;
    const char* end = f.text.data() + f.text.size();
    auto [ptr, ec] = std::from_chars(f.text.data(), end, v);
    if (ptr != end || (ec != std::errc{} && ec != std::errc::result_out_of_range)) {
      fail(line, f.col, column, fmt::format("expected a number, got \"{}\"", f.text.substr(0, 40)));
    }
    if (ec == std::errc::result_out_of_range || !std::isfinite(v)) {
      fail(line, f.col, column,
           fmt::format("must be a finite number, got {}", f.text.substr(0, 40)));
    }
    if (v < 0) fail(line, f.col, column, fmt::format("must not be negative, got {}", f.text));
    return v;
  }

  std::vector<MetricSample> run(std::istream& in) {
    std::vector<MetricSample> samples;
    std::string line;
    int number_of_line = 0;
    std::optional<std::size_t> time_col, value_col;
    std::size_t field_count = 0;
    std::optional<int> blank_line;
    std::string last_time_text;
    while (std::getline(in, line)) {
      ++number_of_line;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.find_first_not_of(" \t") == std::string::npos) {
        if (!blank_line) blank_line = number_of_line;
        continue;
      }
      if (blank_line) fail(*blank_line, 1, "", "blank line before the end of the series");
      std::vector<Field> fields = split(line);
      if (field_count == 0) {  // the header
        for (std::size_t i = 0; i < fields.size(); ++i) {
          std::string_view name = fields[i].text;
          std::optional<std::size_t>* slot = name == "time_s"  ? &time_col
                                             : name == "value" ? &value_col
                                                               : nullptr;
          if (slot == nullptr) continue;  // other columns are ignored
          if (*slot) fail(number_of_line, fields[i].col, name, "column named twice in the header");
          *slot = i;
        }
        field_count = fields.size();
        if (!time_col || !value_col) {
          fail(number_of_line, 1, !time_col ? "time_s" : "value",
               "missing column; the header must name time_s and value");
        }
        continue;
      }
      if (fields.size() != field_count) {
        fail(number_of_line, 1, "",
             fmt::format("{} fields, but the header has {}", fields.size(), field_count));
      }
      const Field& tf = fields[*time_col];
      double t = number(number_of_line, tf, "time_s");
      if (t > kMaxTimeS) {
        fail(number_of_line, tf.col, "time_s",
             fmt::format("must be at most {} (ten years), got {}", kMaxTimeS, tf.text));
      }
      SimTime at = fleetsim::at(from_seconds(t));
      if (!samples.empty() && at < samples.back().at) {
        fail(number_of_line, tf.col, "time_s",
             fmt::format("times must not decrease: {} follows {}", tf.text, last_time_text));
      }
      double v = number(number_of_line, fields[*value_col], "value");
      if (samples.size() >= kMaxSamples) {
        fail(number_of_line, 1, "", fmt::format("more than {} samples", kMaxSamples));
      }
      samples.push_back({at, v});
      last_time_text = std::string(tf.text);
    }
    if (field_count == 0) fail(0, 0, "", "the series is empty; expected a header time_s,value");
    if (samples.empty()) fail(number_of_line, 0, "", "the series has a header but no samples");
    return samples;
  }

 private:
  std::string file_;
};

}  // namespace

MetricSeries MetricSeries::parse(const std::string& text, const std::string& file_name) {
  std::istringstream in(text);
  MetricSeries s;
  s.samples_ = SeriesParser(file_name).run(in);
  return s;
}

MetricSeries MetricSeries::load(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw TraceError(SourceLocation{.file = path.string()}, "",
                     std::filesystem::exists(path, ec) ? "not a regular file" : "file not found");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TraceError(SourceLocation{.file = path.string()}, "", "cannot open file");
  MetricSeries s;
  s.samples_ = SeriesParser(path.string()).run(in);
  if (in.bad()) throw TraceError(SourceLocation{.file = path.string()}, "", "cannot read file");
  return s;
}

std::optional<double> MetricSeries::value_at(SimTime t) const {
  // The last sample at or before t: the first sample after t, minus one.
  auto it = std::upper_bound(samples_.begin(), samples_.end(), t,
                             [](SimTime x, const MetricSample& s) { return x < s.at; });
  if (it == samples_.begin()) return std::nullopt;
  return std::prev(it)->value;
}

}  // namespace fleetsim
