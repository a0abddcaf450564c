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

#include "fleetsim/study/study_record.hpp"

namespace fleetsim {

// An InputError about a results file (field "results"), at `line` when it is not 0.
[[noreturn]] void fail_results(const std::filesystem::path& path, const std::string& why,
                               std::size_t line = 0);

// A results file's header and its complete rows, each with its line number.
struct ResultsRow {
  std::size_t line = 0;
  std::string text;
};
struct ResultsText {
  std::string header;  // empty for an empty file
  std::vector<ResultsRow> rows;
};
// A row cut short (a kill mid-write: no newline) is left out.
ResultsText read_results(const std::filesystem::path& path);

class ResultsFile {
 public:
  // Opens `path`, or creates it with `header`, and writes `record` beside it. A row cut short (a
  // kill mid-write) is dropped, and so are rows of runs `record` does not have (a seed the study
  // no longer lists), with a note. A file without a record, or of another study (another
  // digest or header), is an error naming it.
  ResultsFile(std::filesystem::path path, std::string header, StudyRecord record);
  ~ResultsFile();
  ResultsFile(const ResultsFile&) = delete;
  ResultsFile& operator=(const ResultsFile&) = delete;

  bool has(std::size_t point, std::uint64_t seed) const;
  // Appends one row (without its newline) in a single write, and keeps it.
  void append(std::size_t point, std::uint64_t seed, const std::string& row);
  // Rewrites the file in (point, seed) order through a temporary and a rename.
  void finish();

  const std::filesystem::path& path() const { return path_; }
  // What opening it dropped, for the user: "results.csv: dropped 3 rows of runs ...".
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  void keep_rows(ResultsText& found, const StudyRecord& record);

  std::filesystem::path path_;
  std::string header_;
  std::map<std::pair<std::size_t, std::uint64_t>, std::string> rows_;
  std::vector<std::string> notes_;
  int fd_ = -1;
};

// The (point, seed) of a results row: its first two fields. A row without them is an error at
// file:line.
std::pair<std::size_t, std::uint64_t> row_key(const std::string& row, const std::string& file,
                                              std::size_t line);

}  // namespace fleetsim
