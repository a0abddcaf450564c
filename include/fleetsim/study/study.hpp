// A what-if study: a base scenario, parameters that edit it, their points and the seeds each
// point runs with (`fleetsim sweep STUDY.yaml`).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "fleetsim/scenario/overrides.hpp"
#include "fleetsim/scenario/scenario_config.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"

namespace fleetsim {

struct StudyParameter {
  std::string name;  // its results.csv column
  std::string target;
  std::vector<YAML::Node> values;
  std::vector<std::string> texts;           // each value as results.csv writes it
  std::vector<SourceLocation> value_where;  // each value's place in the study file
  SourceLocation where;
};

struct Study {
  std::filesystem::path file;
  std::filesystem::path scenario;  // absolute
  std::vector<StudyParameter> parameters;
  // Each point: an index into each parameter's values, in the grid's order (the last parameter
  // varies fastest) or the listed order.
  std::vector<std::vector<std::size_t>> points;
  std::vector<std::uint64_t> seeds;
  // How every point's scenario is read (--lenient, --suppress).
  ReadOptions reading;
  // The warnings of loading its points, each once, in the order they were first met.
  std::vector<Warning> warnings;
  // Identifies what its results depend on, seeds apart: fleetsim's version, the scenario's
  // input files (their digests), the parameters' names and targets, and each point's values.
  // A results file of another digest is another study's; a seed is checked row by row.
  std::string digest;

  // The edits that make the base scenario into point `p`.
  std::vector<Override> overrides(std::size_t p) const;
};

// Reads a study file:
//   scenario: PATH                      (relative to the study file)
//   seeds: N | [s1, s2, ...]            (N: the scenario's seed and the next N - 1)
//   parameters:
//     NAME: {target: TARGET, values: [...]}  or  {target: TARGET, range: {from, to, step}}
//   points: [{NAME: value, ...}, ...]   (optional: these points instead of the grid)
// Every point is loaded once to check it before anything runs; errors name the point. A study
// that would write results one cannot trust is refused: a parameter on `seed` or on a target
// another parameter sets (or lies inside), repeated seeds or points, an empty or oversized
// `points` list, a parameter named as a results column, a value with a newline.
Study load_study(const std::filesystem::path& file,
                 const std::filesystem::path& default_catalog_root,
                 const ReadOptions& reading = {});

}  // namespace fleetsim
