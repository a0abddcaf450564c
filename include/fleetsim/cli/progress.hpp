// Progress on stderr for long commands (run, check, sweep): a line redrawn in place on a
// terminal, or, where stderr is a file or a pipe (CI logs), a plain line per tenth of the work,
// so a log shows that a long run is alive. Never on stdout.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "fleetsim/core/time.hpp"

namespace fleetsim {

// --progress: auto (a terminal line on a terminal, plain lines elsewhere), plain or none.
enum class ProgressMode { Auto, Plain, None };
std::optional<ProgressMode> parse_progress_mode(std::string_view text);

enum class ProgressStyle { None, Terminal, Plain };
// `mode` with auto resolved by whether stderr is a terminal.
ProgressStyle progress_style(ProgressMode mode);

// A run's progress in simulated time. Plain: "progress: 30% (7h12m of 24h simulated, 12.4 s
// elapsed)" once per tenth of the run, ten lines for a run that ends; only the elapsed time
// differs between two runs of a scenario.
class RunProgress {
 public:
  RunProgress(ProgressStyle style, std::string name, SimDuration duration, std::ostream& err);
  ProgressStyle style() const { return style_; }
  void update(SimTime now);
  // The run has ended: the tenths not printed yet (plain), or the line cleared (terminal).
  void finish();
  // The run stopped early: the terminal line cleared, nothing more.
  void abandon();

 private:
  ProgressStyle style_;
  std::string name_;
  SimDuration duration_;
  std::ostream& err_;
  int tenths_shown_ = 0;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  void print_tenths(int upto);
};

// A sweep's progress in runs. Plain: "progress: 30% (3 of 10 runs, 12.4 s elapsed)" each time
// the runs done reach a new tenth of the study (runs kept from before a resume count as done
// without a line).
class SweepProgress {
 public:
  SweepProgress(ProgressStyle style, std::ostream& err);
  void update(std::size_t done, std::size_t total);
  void finish();

 private:
  ProgressStyle style_;
  std::ostream& err_;
  std::optional<std::size_t> first_done_;
  std::size_t tenths_shown_ = 0;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

}  // namespace fleetsim
