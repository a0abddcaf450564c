#include "fleetsim/study/study_record.hpp"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "fleetsim/core/atomic_file.hpp"
#include "fleetsim/core/error.hpp"

namespace fleetsim {

bool StudyRecord::has_run(std::size_t point, std::uint64_t seed) const {
  return point < points && point % shard_count == shard_index &&
         std::find(seeds.begin(), seeds.end(), seed) != seeds.end();
}

std::size_t StudyRecord::runs() const {
  const std::size_t mine =
      points > shard_index ? (points - shard_index + shard_count - 1) / shard_count : 0;
  return mine * seeds.size();
}

std::filesystem::path record_path(const std::filesystem::path& results) {
  std::filesystem::path p = results;
  return p.replace_extension(".study.json");
}

std::optional<StudyRecord> read_record(const std::filesystem::path& results) {
  const std::filesystem::path path = record_path(results);
  std::ifstream in(path);
  if (!in) return std::nullopt;
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  try {
    StudyRecord r{.digest = doc.at("study").get<std::string>(),
                  .points = doc.at("points").get<std::size_t>(),
                  .seeds = doc.at("seeds").get<std::vector<std::uint64_t>>(),
                  .shard_index = doc.at("shard").at("index").get<unsigned>(),
                  .shard_count = doc.at("shard").at("count").get<unsigned>(),
                  .missing_runs = doc.value("missing_runs", std::size_t{0})};
    if (r.shard_count == 0 || r.shard_index >= r.shard_count) throw std::out_of_range("shard");
    return r;
  } catch (const nlohmann::json::exception&) {
  } catch (const std::out_of_range&) {
  }
  throw InputError(SourceLocation{.file = path.string()}, "results",
                   "not a study record (study, points, seeds, shard); it was damaged or written "
                   "by something else");
}

void write_record(const std::filesystem::path& results, const StudyRecord& r) {
  nlohmann::ordered_json doc{{"study", r.digest},
                             {"points", r.points},
                             {"seeds", r.seeds},
                             {"shard", {{"index", r.shard_index}, {"count", r.shard_count}}}};
  if (r.missing_runs > 0) doc["missing_runs"] = r.missing_runs;
  write_file_atomically(record_path(results), "results", doc.dump(2) + "\n");
}

}  // namespace fleetsim
