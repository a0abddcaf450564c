#include "fleetsim/study/merge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>

#include "fleetsim/core/atomic_file.hpp"
#include "fleetsim/core/error.hpp"
#include "fleetsim/study/results_file.hpp"
#include "fleetsim/study/study_record.hpp"

namespace fleetsim {

namespace {

// (I, N) of "results-shard-I-of-N.csv", exactly; nullopt for any other name.
std::optional<std::pair<unsigned, unsigned>> shard_of(const std::filesystem::path& p) {
  const std::string name = p.filename().string();
  constexpr std::string_view prefix = "results-shard-", middle = "-of-", suffix = ".csv";
  if (!name.starts_with(prefix) || !name.ends_with(suffix)) return std::nullopt;
  const char* s = name.data() + prefix.size();
  const char* end = name.data() + name.size() - suffix.size();
  unsigned i = 0, n = 0;
  auto [after_i, e1] = std::from_chars(s, end, i);
  if (e1 != std::errc{} || after_i == s || std::string_view(after_i, end).substr(0, 4) != middle)
    return std::nullopt;
  const char* count = after_i + middle.size();
  auto [after_n, e2] = std::from_chars(count, end, n);
  if (e2 != std::errc{} || after_n != end || after_n == count || i >= n) return std::nullopt;
  // "01" would be a second name for shard 1.
  if (fmt::format("results-shard-{}-of-{}.csv", i, n) != name) return std::nullopt;
  return std::pair{i, n};
}

std::string list(const std::vector<std::string>& items, std::size_t shown = 3,
                 std::string_view separator = ", ") {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < shown; ++i) {
    if (i > 0) out += separator;
    out += items[i];
  }
  if (items.size() > shown) out += fmt::format(" and {} more", items.size() - shown);
  return out;
}

struct Shard {
  std::filesystem::path file;
  StudyRecord record;
};

// The shards' records, checked to be of one study and each shard once.
std::vector<Shard> read_shards(const std::vector<std::filesystem::path>& files) {
  std::vector<Shard> shards;
  for (const std::filesystem::path& file : files) {
    const auto name = shard_of(file);
    if (!name)
      fail_results(file, "not named results-shard-I-of-N.csv, so not a sweep shard's results");
    std::optional<StudyRecord> record = read_record(file);
    if (!record)
      fail_results(file, fmt::format("no study record ({}) beside it; rerun its sweep to write one",
                                     record_path(file).filename().string()));
    if (record->shard_index != name->first || record->shard_count != name->second)
      fail_results(file, fmt::format("its study record is of shard {} of {}, not of its name's",
                                     record->shard_index, record->shard_count));
    if (!shards.empty()) {
      const Shard& first = shards.front();
      if (record->digest != first.record.digest)
        fail_results(file,
                     fmt::format("of another study than {} (their study digests differ); merge the "
                                 "shards of one study",
                                 first.file.string()));
      if (record->shard_count != first.record.shard_count)
        fail_results(file,
                     fmt::format("a shard of {}, while {} is a shard of {}", record->shard_count,
                                 first.file.string(), first.record.shard_count));
      if (record->seeds != first.record.seeds)
        fail_results(file,
                     fmt::format("ran other seeds than {}: its study's seeds changed between them",
                                 first.file.string()));
    }
    for (const Shard& other : shards)
      if (other.record.shard_index == record->shard_index)
        fail_results(file,
                     fmt::format("shard {} of {} is given twice (also {}); give each shard once",
                                 record->shard_index, record->shard_count, other.file.string()));
    shards.push_back({file, std::move(*record)});
  }
  if (shards.empty()) throw InputError(SourceLocation{.file = "merge"}, "", "no shards to merge");
  return shards;
}

}  // namespace

std::vector<std::filesystem::path> shard_files(const std::vector<std::filesystem::path>& inputs) {
  std::vector<std::filesystem::path> out;
  for (const std::filesystem::path& in : inputs) {
    std::error_code ec;
    const auto status = std::filesystem::status(in, ec);
    if (!std::filesystem::exists(status)) fail_results(in, "no such file or folder");
    if (!std::filesystem::is_directory(status)) {
      out.push_back(in);
      continue;
    }
    std::vector<std::filesystem::path> found;
    for (std::filesystem::directory_iterator it(in, ec), end; !ec && it != end; it.increment(ec))
      if (shard_of(it->path())) found.push_back(it->path());
    if (ec) fail_results(in, ec.message());
    if (found.empty()) fail_results(in, "no results-shard-I-of-N.csv in this folder");
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

MergeOutcome merge_results(const std::vector<std::filesystem::path>& files,
                           const std::filesystem::path& out, bool allow_partial) {
  const std::vector<Shard> shards = read_shards(files);
  const StudyRecord& study = shards.front().record;
  std::string header;
  std::map<std::pair<std::size_t, std::uint64_t>, std::string> rows;
  std::vector<std::string> missing;
  MergeOutcome outcome;
  for (const Shard& shard : shards) {
    ResultsText text = read_results(shard.file);
    if (text.header.empty()) fail_results(shard.file, "not a results file (no header)");
    if (header.empty()) header = text.header;
    if (text.header != header)
      fail_results(shard.file,
                   fmt::format("its header differs from {}'s", shards.front().file.string()));
    std::map<std::pair<std::size_t, std::uint64_t>, std::size_t> line_of;
    for (ResultsRow& row : text.rows) {
      const auto key = row_key(row.text, shard.file.string(), row.line);
      if (!shard.record.has_run(key.first, key.second))
        fail_results(shard.file,
                     fmt::format("point {} seed {} is not a run of shard {} of {}", key.first,
                                 key.second, shard.record.shard_index, shard.record.shard_count),
                     row.line);
      if (auto [it, fresh] = line_of.emplace(key, row.line); !fresh) {
        if (rows[key] != row.text)
          fail_results(shard.file,
                       fmt::format("a second row for point {} seed {}, unlike line {}'s", key.first,
                                   key.second, it->second),
                       row.line);
        continue;
      }
      rows.emplace(key, std::move(row.text));
    }
    std::vector<std::string> lacks;
    for (std::size_t p = shard.record.shard_index; p < study.points; p += study.shard_count)
      for (std::uint64_t seed : study.seeds)
        if (!line_of.contains({p, seed})) lacks.push_back(fmt::format("point {} seed {}", p, seed));
    if (!lacks.empty())
      missing.push_back(
          fmt::format("{} lacks {} (its sweep stopped early)", shard.file.string(), list(lacks)));
    outcome.missing += lacks.size();
  }
  for (unsigned i = 0; i < study.shard_count; ++i) {
    if (std::any_of(shards.begin(), shards.end(),
                    [&](const Shard& s) { return s.record.shard_index == i; }))
      continue;
    StudyRecord absent = study;
    absent.shard_index = i;
    outcome.missing += absent.runs();
    missing.push_back(fmt::format("no shard {} of {} among the inputs", i, study.shard_count));
  }
  outcome.runs = study.points * study.seeds.size();
  if (outcome.missing > 0) {
    outcome.missing_text = fmt::format("{} of {} runs missing: {}", outcome.missing, outcome.runs,
                                       list(missing, 4, "; "));
    if (!allow_partial)
      throw InputError(SourceLocation{.file = "merge"}, "",
                       outcome.missing_text +
                           "; give every shard and finish each (rerun its sweep), or pass "
                           "--allow-partial to merge what is there");
  }
  write_record(out, StudyRecord{.digest = study.digest,
                                .points = study.points,
                                .seeds = study.seeds,
                                .missing_runs = outcome.missing});
  write_file_atomically(out, "results", [&](std::ostream& o) {
    o << header << '\n';
    for (const auto& [key, row] : rows) o << row << '\n';
  });
  return outcome;
}

}  // namespace fleetsim
