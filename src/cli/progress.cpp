#include "fleetsim/cli/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>

namespace fleetsim {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// format_duration without its zero tails: "24h", "7h12m", "90s", "1h0m30s".
std::string short_duration(SimDuration d) {
  std::string text = format_duration(d);
  for (std::string_view tail : {"0s", "0m"}) {
    if (text.size() > tail.size() && text.ends_with(tail) &&
        !std::isdigit(static_cast<unsigned char>(text[text.size() - tail.size() - 1])))
      text.resize(text.size() - tail.size());
  }
  return text;
}

}  // namespace

std::optional<ProgressMode> parse_progress_mode(std::string_view text) {
  if (text == "auto") return ProgressMode::Auto;
  if (text == "plain") return ProgressMode::Plain;
  if (text == "none") return ProgressMode::None;
  return std::nullopt;
}

ProgressStyle progress_style(ProgressMode mode) {
  switch (mode) {
    case ProgressMode::None:
      return ProgressStyle::None;
    case ProgressMode::Plain:
      return ProgressStyle::Plain;
    case ProgressMode::Auto:
      break;
  }
  return isatty(STDERR_FILENO) != 0 ? ProgressStyle::Terminal : ProgressStyle::Plain;
}

RunProgress::RunProgress(ProgressStyle style, std::string name, SimDuration duration,
                         std::ostream& err)
    : style_(style), name_(std::move(name)), duration_(duration), err_(err) {}

void RunProgress::update(SimTime now) {
  if (style_ == ProgressStyle::Terminal) {
    err_ << fmt::format("\r{}: {} / {} simulated", name_, format_duration(now.time_since_epoch()),
                        format_duration(duration_))
         << std::flush;
  } else if (style_ == ProgressStyle::Plain && duration_ > SimDuration::zero()) {
    // Only whole tenths that have fully passed: the tenth the run ends in is printed by finish.
    const auto tenths = now.time_since_epoch() * 10 / duration_;
    print_tenths(static_cast<int>(std::min<std::int64_t>(tenths, 9)));
  }
}

void RunProgress::print_tenths(int upto) {
  for (; tenths_shown_ < upto; ++tenths_shown_) {
    const int tenth = tenths_shown_ + 1;
    err_ << fmt::format("progress: {}% ({} of {} simulated, {:.1f} s elapsed)\n", tenth * 10,
                        short_duration(duration_ * tenth / 10), short_duration(duration_),
                        seconds_since(started_))
         << std::flush;
  }
}

void RunProgress::finish() {
  if (style_ == ProgressStyle::Plain) print_tenths(10);
  abandon();
}

void RunProgress::abandon() {
  if (style_ == ProgressStyle::Terminal) err_ << "\r\033[K" << std::flush;
}

SweepProgress::SweepProgress(ProgressStyle style, std::ostream& err) : style_(style), err_(err) {}

void SweepProgress::update(std::size_t done, std::size_t total) {
  if (style_ == ProgressStyle::None || total == 0) return;
  const double secs = seconds_since(started_);
  if (!first_done_) {
    first_done_ = done - 1;  // runs kept from before a resume do not count
    tenths_shown_ = *first_done_ * 10 / total;
  }
  if (style_ == ProgressStyle::Terminal) {
    const double rate = static_cast<double>(done - *first_done_) / std::max(secs, 1e-3);
    const double left = static_cast<double>(total - done) / std::max(rate, 1e-9);
    err_ << fmt::format("\r{}/{} runs done, {:.2f}/s, {} left\033[K", done, total, rate,
                        format_duration(seconds(static_cast<std::int64_t>(left))))
         << std::flush;
    return;
  }
  const std::size_t tenths = done * 10 / total;
  if (tenths <= tenths_shown_) return;
  tenths_shown_ = tenths;
  err_ << fmt::format("progress: {}% ({} of {} runs, {:.1f} s elapsed)\n", done * 100 / total, done,
                      total, secs)
       << std::flush;
}

void SweepProgress::finish() {
  if (style_ == ProgressStyle::Terminal) err_ << "\r\033[K" << std::flush;
}

}  // namespace fleetsim
