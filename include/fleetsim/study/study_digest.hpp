// What identifies a study's results: a digest of everything a row depends on but its seed.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "fleetsim/study/study.hpp"

namespace fleetsim {

// "fnv1a64:<16 hex digits>" of fleetsim's version, the scenario's input files (name and digest,
// as input_digests gives them), each parameter's name and target, and each point's values.
// Seeds are left out: a row names its seed, so adding a seed keeps the rows already run.
std::string study_digest(const Study& study,
                         const std::vector<std::pair<std::string, std::string>>& inputs);

}  // namespace fleetsim
