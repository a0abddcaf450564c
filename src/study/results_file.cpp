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

[[noreturn]] void fail(const std::filesystem::path& p, const std::string& why) {
  throw InputError(SourceLocation{.file = p.string()}, "results", why);
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The header and the complete rows of a results file; a last line without its newline was cut
// short by a kill and is left out.
std::pair<std::string, std::vector<std::string>> read_rows(const std::filesystem::path& p) {
  const std::string text = slurp(p);
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
    lines.push_back(text.substr(start, nl - start));
  if (lines.empty()) return {};
  std::string header = std::move(lines.front());
  lines.erase(lines.begin());
  return {std::move(header), std::move(lines)};
}

std::string file_text(const std::string& header,
                      const std::map<std::pair<std::size_t, std::uint64_t>, std::string>& rows) {
  std::string text = header + '\n';
  for (const auto& [key, row] : rows) text += row + '\n';
  return text;
}

}  // namespace

std::pair<std::size_t, std::uint64_t> row_key(const std::string& row, const std::string& file) {
  std::size_t point = 0;
  std::uint64_t seed = 0;
  const char* end = row.data() + row.size();
  auto [p1, e1] = std::from_chars(row.data(), end, point);
  if (e1 != std::errc{} || p1 == end || *p1 != ',')
    fail(file, "a row without its point: " + row.substr(0, 60));
  auto [p2, e2] = std::from_chars(p1 + 1, end, seed);
  if (e2 != std::errc{} || (p2 != end && *p2 != ','))
    fail(file, "a row without its seed: " + row.substr(0, 60));
  return {point, seed};
}

ResultsFile::ResultsFile(std::filesystem::path path, std::string header)
    : path_(std::move(path)), header_(std::move(header)) {
  std::error_code ec;
  if (std::filesystem::exists(path_, ec)) {
    auto [found, rows] = read_rows(path_);
    if (!found.empty() && found != header_)
      fail(path_, "written by another study (its header differs); use another --out");
    for (std::string& row : rows) rows_.emplace(row_key(row, path_.string()), std::move(row));
  }
  // Rewritten first, so that a torn row is gone before new ones follow it.
  write_file_atomically(path_, "results", file_text(header_, rows_));
  fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd_ < 0) fail(path_, std::strerror(errno));
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
    fail(path_, "writing a row failed");
  rows_.emplace(std::pair{point, seed}, row);
}

void ResultsFile::finish() {
  ::close(fd_);
  fd_ = -1;
  write_file_atomically(path_, "results", file_text(header_, rows_));
}

void merge_results(const std::vector<std::filesystem::path>& inputs,
                   const std::filesystem::path& out) {
  std::string header;
  std::map<std::pair<std::size_t, std::uint64_t>, std::string> rows;
  for (const std::filesystem::path& in : inputs) {
    auto [found, lines] = read_rows(in);
    if (found.empty()) fail(in, "not a results file (no header)");
    if (header.empty()) header = found;
    if (found != header) fail(in, "its header differs from the other shards': another study");
    for (std::string& line : lines) rows.emplace(row_key(line, in.string()), std::move(line));
  }
  if (header.empty()) fail(out, "no shard results to merge");
  write_file_atomically(out, "results", file_text(header, rows));
}

}  // namespace fleetsim
