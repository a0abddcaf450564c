// An error in loading a study's point, placed where the user wrote the value that caused it.
#pragma once

#include "fleetsim/core/error.hpp"
#include "fleetsim/study/study.hpp"

namespace fleetsim {

// The edited inputs hold copies of the study's values, which carry no position, so an error in
// one would name line 1 of the scenario or manifest. When `e`'s field lies at or under a
// parameter's target, the error is moved to that value in the study file (the very key inside
// a mapping value, when it is there); otherwise it names the point and keeps `e`'s place.
ConfigError point_error(const Study& study, std::size_t point, const InputError& e);

}  // namespace fleetsim
