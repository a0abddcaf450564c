// Beside each results file, the study that wrote it: RESULTS.study.json holds the study's digest,
// its point count, its seeds and the shard, so that a resume or a merge can tell its rows from
// another study's, and know which runs a complete file has.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace fleetsim {

struct StudyRecord {
  std::string digest;  // study_digest()
  std::size_t points = 0;
  std::vector<std::uint64_t> seeds;
  unsigned shard_index = 0;  // this file has the points p with p mod shard_count = shard_index
  unsigned shard_count = 1;
  std::size_t missing_runs = 0;  // a partial merge's: the runs it lacks

  // Whether (point, seed) is one of this file's runs.
  bool has_run(std::size_t point, std::uint64_t seed) const;
  // How many runs a complete file has.
  std::size_t runs() const;
};

// results.csv → results.study.json; results-shard-1-of-3.csv → results-shard-1-of-3.study.json.
std::filesystem::path record_path(const std::filesystem::path& results);

// The record beside `results`; nullopt when there is none. A record that cannot be read is an
// InputError naming it.
std::optional<StudyRecord> read_record(const std::filesystem::path& results);
void write_record(const std::filesystem::path& results, const StudyRecord& record);

}  // namespace fleetsim
