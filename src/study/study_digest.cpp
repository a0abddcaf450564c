#include "fleetsim/study/study_digest.hpp"

#include <fmt/format.h>

#include "fleetsim/core/csv_reader.hpp"
#include "fleetsim/core/version.hpp"
#include "fleetsim/service/service_config.hpp"

namespace fleetsim {

std::string study_digest(const Study& study,
                         const std::vector<std::pair<std::string, std::string>>& inputs) {
  // One line per fact; names and values are CSV fields, so that no two studies read the same.
  std::string text = fmt::format("fleetsim,{}\n", csv_field(kFleetsimVersion));
  for (const auto& [name, digest] : inputs)
    text += fmt::format("input,{},{}\n", csv_field(name), csv_field(digest));
  // --serving-mode changes every point's runs: a resume in the other mode is another study's.
  if (study.reading.serving_mode)
    text += fmt::format("serving_mode,{}\n", to_string(*study.reading.serving_mode));
  for (const StudyParameter& p : study.parameters)
    text += fmt::format("parameter,{},{}\n", csv_field(p.name), csv_field(p.target));
  for (const std::vector<std::size_t>& point : study.points) {
    text += "point";
    for (std::size_t i = 0; i < point.size(); ++i) {
      text += ',';
      text += csv_field(study.parameters[i].texts[point[i]]);
    }
    text += '\n';
  }
  // FNV-1a, 64 bits: a change detector, not a cryptographic hash.
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return fmt::format("fnv1a64:{:016x}", h);
}

}  // namespace fleetsim
