// `fleetsim explain`: a pod's or a node's story, told from a run's events.jsonl: why a pod
// waited and where it went, why a node was launched and how it ended.
#pragma once

#include <istream>
#include <string>
#include <string_view>

namespace fleetsim {

// `events` is an events.jsonl stream; `file` names it in errors. Each throws InputError when the
// file is not events.jsonl or names no such pod (node).
std::string explain_pod(std::istream& events, const std::string& file, std::string_view pod);
std::string explain_node(std::istream& events, const std::string& file, std::string_view node);

}  // namespace fleetsim
