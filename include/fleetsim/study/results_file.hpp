// A sweep's results.csv: one row per (point, seed), appended as each run finishes, so that a
// stopped sweep resumes where it was; rewritten in (point, seed) order when the sweep ends, so
// that any thread count, any resume and any sharding give the same bytes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace fleetsim {

class ResultsFile {
 public:
  // Opens `path`, or creates it with `header`. A row cut short (a kill mid-write) is dropped;
  // a file of another header is an error (another study wrote it).
  ResultsFile(std::filesystem::path path, std::string header);
  ~ResultsFile();
  ResultsFile(const ResultsFile&) = delete;
  ResultsFile& operator=(const ResultsFile&) = delete;

  bool has(std::size_t point, std::uint64_t seed) const;
  // Appends one row (without its newline) in a single write, and keeps it.
  void append(std::size_t point, std::uint64_t seed, const std::string& row);
  // Rewrites the file in (point, seed) order through a temporary and a rename.
  void finish();

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  std::string header_;
  std::map<std::pair<std::size_t, std::uint64_t>, std::string> rows_;
  int fd_ = -1;
};

// The (point, seed) of a results row: its first two fields.
std::pair<std::size_t, std::uint64_t> row_key(const std::string& row, const std::string& file);

// Joins the rows of `inputs` (shards of one study: the same header) into `out`, in the order a
// single run writes them.
void merge_results(const std::vector<std::filesystem::path>& inputs,
                   const std::filesystem::path& out);

}  // namespace fleetsim
