// A study's parameters as the study file writes them, and the checks that keep each results
// column true to the runs: names that are not results columns, values on one line, targets that
// do not overlap and are not the seed.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "fleetsim/scenario/yaml_reader.hpp"
#include "fleetsim/study/study.hpp"

namespace fleetsim {

// A study of more points than this is a typo in a range, not a plan.
inline constexpr std::size_t kMaxPoints = 100'000;

// A value as results.csv writes it: a scalar's text, else the value in YAML's flow style.
std::string text_of(const YAML::Node& v);
// Adds a value with its text and place; a value with a newline is an error at it.
void add_value(StudyParameter& p, const YamlValue& v);
// NAME: {target, values | range}.
StudyParameter decode_parameter(const YamlMap::Entry& e);
// No parameter on `seed`, none on `serving_mode` under --serving-mode, and no two on one field or
// one inside the other's.
void check_targets(const std::vector<StudyParameter>& parameters, const ReadOptions& reading);

}  // namespace fleetsim
