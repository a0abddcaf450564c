// Serializes report JSON with fixed number formatting, for byte-stable report.json files.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace fleetsim {

// Like nlohmann's dump(indent) (same layout: indent < 0 is compact, otherwise newlines and
// `indent` spaces per level, ": " after keys), except that doubles print in fixed notation with
// at most kReportDecimals decimals ("1.655806", "60.0"). nlohmann prints doubles with Grisu2,
// which is not always shortest: a value rounded to 1.655806 can come out as 1.6558059999999999.
// Non-finite doubles print as null, as nlohmann does.
std::string dump_json(const nlohmann::ordered_json& value, int indent = 2);

}  // namespace fleetsim
