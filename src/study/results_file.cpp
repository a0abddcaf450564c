#include "fleetsim/study/results_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

#include "fleetsim/core/atomic_file.hpp"
#include "fleetsim/core/error.hpp"

namespace fleetsim {

namespace {

std::string file_text(const std::string& header,
                      const std::map<std::pair<std::size_t, std::uint64_t>, std::string>& rows) {
  std::string text = header + '\n';
  for (const auto& [key, row] : rows) text += row + '\n';
  return text;
}

}  // namespace

void fail_results(const std::filesystem::path& path, const std::string& why, std::size_t line) {
  throw InputError(SourceLocation{.file = path.string(), .line = static_cast<int>(line)}, "results",
                   why);
}

ResultsText read_results(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) fail_results(p, "cannot read this file");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  ResultsText out;
  std::size_t start = 0;
  // A last line without its newline was cut short by a kill and is left out.
  for (std::size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) {
    if (start == 0)
      out.header = text.substr(0, nl);
    else
      out.rows.push_back({.line = out.rows.size() + 2, .text = text.substr(start, nl - start)});
  }
  return out;
}

std::pair<std::size_t, std::uint64_t> row_key(const std::string& row, const std::string& file,
                                              std::size_t line) {
  const SourceLocation where{.file = file, .line = static_cast<int>(line)};
  std::size_t point = 0;
  std::uint64_t seed = 0;
  const char* end = row.data() + row.size();
  auto [p1, e1] = std::from_chars(row.data(), end, point);
  if (e1 != std::errc{} || p1 == end || *p1 != ',')
    throw InputError(where, "results", "a row without its point: " + row.substr(0, 60));
  auto [p2, e2] = std::from_chars(p1 + 1, end, seed);
  if (e2 != std::errc{} || (p2 != end && *p2 != ','))
    throw InputError(where, "results", "a row without its seed: " + row.substr(0, 60));
  return {point, seed};
}

ResultsFile::ResultsFile(std::filesystem::path path, std::string header, StudyRecord record)
    : path_(std::move(path)), header_(std::move(header)) {
  std::error_code ec;
  if (std::filesystem::exists(path_, ec)) {
    ResultsText found = read_results(path_);
    if (!found.header.empty()) keep_rows(found, record);
  }
  write_record(path_, record);
  // Rewritten first, so that a torn row is gone before new ones follow it.
  write_file_atomically(path_, "results", file_text(header_, rows_));
  fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd_ < 0) fail_results(path_, std::strerror(errno));
}

// Rows are kept only from a file of this study (the same digest and header), and only for runs
// the study still has: a changed seed list drops the rows of the seeds it no longer lists.
void ResultsFile::keep_rows(ResultsText& found, const StudyRecord& record) {
  const std::optional<StudyRecord> before = read_record(path_);
  if (!before)
    fail_results(path_, fmt::format("no study record ({}) beside it, so the study that wrote it is "
                                    "unknown; use another --out, or delete it to start over",
                                    record_path(path_).filename().string()));
  if (before->digest != record.digest || found.header != header_)
    fail_results(
        path_,
        "written by another study, or by this one before its scenario, parameters or points "
        "changed; use another --out, or delete it to start over");
  std::size_t dropped = 0;
  std::string first;
  std::map<std::pair<std::size_t, std::uint64_t>, std::size_t> line_of;
  for (ResultsRow& row : found.rows) {
    const auto key = row_key(row.text, path_.string(), row.line);
    if (!record.has_run(key.first, key.second)) {
      if (dropped++ == 0)
        first = fmt::format("line {}: point {} seed {}", row.line, key.first, key.second);
      continue;
    }
    if (auto [it, fresh] = line_of.emplace(key, row.line); !fresh) {
      if (rows_[key] != row.text)
        throw InputError(SourceLocation{.file = path_.string(), .line = static_cast<int>(row.line)},
                         "results",
                         fmt::format("a second row for point {} seed {}, unlike line {}'s",
                                     key.first, key.second, it->second));
      continue;
    }
    rows_.emplace(key, std::move(row.text));
  }
  if (dropped > 0)
    notes_.push_back(fmt::format(
        "{}: dropped {} row{} of runs the study does not have (seeds it no longer lists), from {}",
        path_.string(), dropped, dropped == 1 ? "" : "s", first));
}

ResultsFile::~ResultsFile() {
  if (fd_ >= 0) ::close(fd_);
}

bool ResultsFile::has(std::size_t point, std::uint64_t seed) const {
  return rows_.contains({point, seed});
}

void ResultsFile::append(std::size_t point, std::uint64_t seed, const std::string& row) {
  const std::string line = row + '\n';
  // One write() per row: a kill leaves whole rows and at most one torn last row.
  if (::write(fd_, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
    fail_results(path_, "writing a row failed");
  rows_.emplace(std::pair{point, seed}, row);
}

void ResultsFile::finish() {
  ::close(fd_);
  fd_ = -1;
  write_file_atomically(path_, "results", file_text(header_, rows_));
}

}  // namespace fleetsim
