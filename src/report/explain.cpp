#include "fleetsim/report/explain.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "fleetsim/core/error.hpp"
#include "fleetsim/core/time.hpp"
#include "fleetsim/scenario/name_hint.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"

namespace fleetsim {

namespace {

using nlohmann::json;

// The most a count in an event can be (pods in a claim, types it kept), and an hourly price or
// saving: above these the file is not fleetsim's.
constexpr double kMaxCount = 1e9;
constexpr double kMaxUsdPerHour = 1e9;

// A number field of an event: absent, or a number in [min, max] (a whole one if `whole`), so
// that what explain computes from it cannot overflow.
void check_number(const json& e, const char* key, double min, double max, bool whole,
                  const std::string& file, int line) {
  auto it = e.find(key);
  if (it == e.end()) return;
  const bool ok = it->is_number() && it->get<double>() >= min && it->get<double>() <= max &&
                  (!whole || std::floor(it->get<double>()) == it->get<double>());
  if (!ok) {
    throw InputError(
        SourceLocation{.file = file, .line = line}, key,
        fmt::format("expected a {} from {} to {}, got {}", whole ? "whole number" : "number", min,
                    max, it->dump().substr(0, 40)));
  }
}

// events.jsonl read a line at a time, each event checked as it is read: memory does not grow
// with the file, which can be gigabytes. Stories need two passes (a pod's nodes are known only
// after its events), so the stream is read again from the start.
class EventStream {
 public:
  EventStream(std::istream& in, std::string file) : in_(in), file_(std::move(file)) {}

  bool next(json& e) {
    // A bounded line: a file of one endless line must not take the memory either.
    in_.getline(line_buffer_.data(), static_cast<std::streamsize>(line_buffer_.size()));
    if (in_.gcount() == 0 && in_.eof()) return false;
    ++line_;
    if (in_.fail() && !in_.eof())
      throw InputError(SourceLocation{.file = file_, .line = line_}, "events",
                       "a line longer than 1 MiB: not a fleetsim event");
    e = json::parse(std::string_view(line_buffer_.data()), nullptr, /*allow_exceptions=*/false);
    if (!e.is_object() || !e.contains("t") || !e.contains("kind") || !e["kind"].is_string())
      throw InputError(SourceLocation{.file = file_, .line = line_}, "events",
                       "not a fleetsim event (one JSON object per line with t and kind)");
    const double max_t = static_cast<double>(kMaxScenarioDuration / seconds(1));
    check_number(e, "t", 0, max_t, false, file_, line_);
    for (const char* key : {"pods", "instance_type_count"})
      check_number(e, key, 0, kMaxCount, true, file_, line_);
    check_number(e, "price_usd_per_hour", 0, kMaxUsdPerHour, false, file_, line_);
    check_number(e, "savings_usd_per_hour", -kMaxUsdPerHour, kMaxUsdPerHour, false, file_, line_);
    return true;
  }

  void rewind() {
    in_.clear();
    in_.seekg(0);
    line_ = 0;
    if (!in_)
      throw InputError(SourceLocation{.file = file_}, "events",
                       "cannot be read twice (not a regular file)");
  }

  const std::string& file() const { return file_; }

 private:
  std::istream& in_;
  std::string file_;
  std::vector<char> line_buffer_ = std::vector<char>(std::size_t{1} << 20);
  int line_ = 0;
};

// The events a story is told from, in file order (which is time order).
struct Events {
  std::vector<json> all;
};

std::string str(const json& e, const char* key) {
  auto it = e.find(key);
  return it != e.end() && it->is_string() ? it->get<std::string>() : std::string();
}

double num(const json& e, const char* key) {
  auto it = e.find(key);
  return it != e.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::string when(double t) {
  return format_duration(micros(static_cast<std::int64_t>(std::llround(t * 1e6))));
}

std::string line(double t, const std::string& text) {
  return fmt::format("  {:>13}  {}\n", when(t), text);
}

std::string plural(std::int64_t n, std::string_view what) {
  return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s");
}

// "g5.2xlarge, g5.4xlarge (3 in all)"
std::string type_list(const json& claim) {
  std::vector<std::string> names;
  if (auto it = claim.find("instance_types"); it != claim.end() && it->is_array())
    for (const json& t : *it)
      if (t.is_string()) names.push_back(t.get<std::string>());
  const auto count = static_cast<std::int64_t>(num(claim, "instance_type_count"));
  return fmt::format("{}, cheapest first: {}{}", plural(count, "instance type"),
                     fmt::join(names, ", "),
                     count > static_cast<std::int64_t>(names.size()) ? ", …" : "");
}

std::string launched_text(const json& e) {
  return fmt::format("{} {} in {} at ${}/h", str(e, "instance_type"), str(e, "capacity_type"),
                     str(e, "zone"), num(e, "price_usd_per_hour"));
}

// Karpenter's launch: the first capacity type the claim allows with an offering available
// (reserved, spot, on-demand), then the cheapest offering with capacity (launch_filters.hpp).
constexpr std::string_view kWhyThisType =
    "the cheapest offering with capacity, in the first capacity type the claim allows "
    "(reserved, then spot, then on-demand)";
// An Auto Scaling group's launch (auto_scaling_group.hpp).
constexpr std::string_view kWhyThisGroupType =
    "its Auto Scaling group's next instance: the capacity type its instances distribution "
    "wants, in the zone with the fewest of its instances, the first type in its order "
    "(on-demand) or the cheapest (spot) with capacity";

// A second pass for the hint: the closest name, ties to the first in name order, as a sorted
// list of every name would give, without holding the list.
[[noreturn]] void not_found(EventStream& events, const char* key, std::string_view name) {
  events.rewind();
  std::string best, last;
  std::vector<std::string_view> candidates;  // best so far and the next name, in name order
  json e;
  while (events.next(e)) {
    std::string n = str(e, key);
    if (n.empty() || n == last || n == best) continue;
    last = n;
    candidates.assign({std::string_view(n)});
    if (!best.empty()) candidates.insert(n < best ? candidates.end() : candidates.begin(), best);
    if (auto closest = closest_name(name, candidates)) best = std::string(*closest);
  }
  candidates.clear();
  if (!best.empty()) candidates.push_back(best);
  throw InputError(SourceLocation{.file = events.file()}, fmt::format("--{}", key),
                   fmt::format("no {} named \"{}\" in the events{}", key, name.substr(0, 80),
                               did_you_mean(name, candidates)));
}

// The story's name must be given: an empty one would match every event without it.
void require_name(std::string_view name, const char* key) {
  if (name.empty())
    throw InputError(SourceLocation{.file = "command line"}, fmt::format("--{}", key),
                     fmt::format("the {} name is empty", key));
}

const json* find_event(const Events& events, std::string_view kind, std::string_view node,
                       double at = -1) {
  for (const json& e : events.all)
    if (str(e, "kind") == kind && str(e, "node") == node && (at < 0 || num(e, "t") == at))
      return &e;
  return nullptr;
}

}  // namespace

std::string explain_pod(std::istream& in, const std::string& file, std::string_view pod) {
  require_name(pod, "pod");
  EventStream stream(in, file);
  // First pass: the nodes the pod went to and when it was nominated.
  std::set<std::string> nodes;
  std::map<double, std::size_t> batch;  // pods nominated at each time the pod was
  json e;
  bool found = false;
  while (stream.next(e)) {
    if (str(e, "pod") != pod) continue;
    found = true;
    if (std::string n = str(e, "node"); !n.empty()) nodes.insert(std::move(n));
    if (str(e, "kind") == "pod_nominated") batch[num(e, "t")] = 0;
  }
  if (!found) not_found(stream, "pod", pod);
  // Second pass: the pod's events, its nodes' start-up, and the size of its batches.
  stream.rewind();
  Events events;
  while (stream.next(e)) {
    const std::string kind = str(e, "kind");
    if (kind == "pod_nominated")
      if (auto it = batch.find(num(e, "t")); it != batch.end()) ++it->second;
    const bool startup = kind == "nodeclaim_created" || kind == "node_launched" ||
                         kind == "node_registered" || kind == "node_ready";
    if (str(e, "pod") == pod || (startup && nodes.contains(str(e, "node"))))
      events.all.push_back(std::move(e));
  }
  std::string out;
  double pending_since = -1;
  bool ended = false;
  for (const json& e : events.all) {
    if (str(e, "pod") != pod) continue;
    const std::string kind = str(e, "kind");
    const double t = num(e, "t");
    const std::string node = str(e, "node");
    if (out.empty()) out = fmt::format("pod {} (workload {})\n", pod, str(e, "workload"));
    ended |= kind == "pod_completed" || kind == "pod_evicted" || kind == "pod_deleted";
    if (kind == "pod_created") {
      pending_since = t;
      out += line(t, "created");
    } else if (kind == "pod_unschedulable") {
      out += line(t, "no place: " + str(e, "reason"));
    } else if (kind == "pod_nominated") {
      const std::size_t batch_size = batch[t];
      const json* claim = find_event(events, "nodeclaim_created", node, t);
      if (claim != nullptr) {
        out += line(t, fmt::format("nominated to a new NodeClaim {} of NodePool {}, with {} of a "
                                   "batch of {}; the claim kept {}",
                                   node, str(*claim, "nodepool"),
                                   plural(static_cast<std::int64_t>(num(*claim, "pods")), "pod"),
                                   plural(static_cast<std::int64_t>(batch_size), "pod"),
                                   type_list(*claim)));
        if (const json* launched = find_event(events, "node_launched", node))
          out += line(num(*launched, "t"), fmt::format("{} launched as {}: {}", node,
                                                       launched_text(*launched), kWhyThisType));
      } else {
        out += line(t, fmt::format("nominated to {}, a node that exists or is starting, with "
                                   "room for it (a batch of {})",
                                   node, plural(static_cast<std::int64_t>(batch_size), "pod")));
      }
    } else if (kind == "pod_scheduled") {
      std::string text = "bound to " + node;
      if (pending_since >= 0) text += fmt::format(" after {} pending", when(t - pending_since));
      const json* claim = find_event(events, "nodeclaim_created", node);
      const json* launched = find_event(events, "node_launched", node);
      const json* registered = find_event(events, "node_registered", node);
      const json* ready = find_event(events, "node_ready", node);
      if (claim != nullptr && launched != nullptr && registered != nullptr && ready != nullptr &&
          num(*ready, "t") == t && num(*claim, "t") >= pending_since) {
        text += fmt::format(
            ", as soon as its new node was ready (launch {}, registration {}, "
            "initialization {})",
            when(num(*launched, "t") - num(*claim, "t")),
            when(num(*registered, "t") - num(*launched, "t")), when(t - num(*registered, "t")));
      }
      out += line(t, text);
    } else if (kind == "pod_ready") {
      out += line(t, "ready");
    } else if (kind == "pod_completed") {
      out += line(t, "completed on " + node);
    } else if (kind == "pod_evicted") {
      out += line(t, fmt::format("evicted from {}: {}", node, str(e, "reason")));
    } else if (kind == "pod_preempted") {
      out += line(
          t, fmt::format("preempted on {} for the higher-priority pod {}", node, str(e, "reason")));
    } else if (kind == "pod_deleted") {
      out += line(
          t, fmt::format("deleted{}: {}", node.empty() ? "" : " from " + node, str(e, "reason")));
    }
  }
  if (out.empty()) not_found(stream, "pod", pod);
  if (!ended) out += "  still running when the run ended\n";
  return out;
}

std::string explain_node(std::istream& in, const std::string& file, std::string_view node) {
  require_name(node, "node");
  EventStream stream(in, file);
  // The node's events and the disruption decisions that name it.
  Events events;
  json e;
  while (stream.next(e)) {
    bool keep = str(e, "node") == node;
    if (!keep && str(e, "kind") == "disruption_decision") {
      auto nodes = e.find("nodes");
      keep = nodes != e.end() && nodes->is_array() &&
             std::find(nodes->begin(), nodes->end(), json(node)) != nodes->end();
    }
    if (keep) events.all.push_back(std::move(e));
  }
  std::string out;
  double launched_at = -1, price = 0;
  for (std::size_t i = 0; i < events.all.size(); ++i) {
    const json& e = events.all[i];
    const std::string kind = str(e, "kind");
    const double t = num(e, "t");
    if (kind == "disruption_decision") {
      const json& nodes = e.contains("nodes") ? e["nodes"] : json::array();
      if (std::find(nodes.begin(), nodes.end(), json(node)) == nodes.end()) continue;
      out += line(
          t, fmt::format("disruption: {} ({}) of {}, saving ${}/h, {}", str(e, "method"),
                         str(e, "reason"), plural(static_cast<std::int64_t>(nodes.size()), "node"),
                         num(e, "savings_usd_per_hour"),
                         e.value("replacements", json::array()).empty() ? "no replacement"
                                                                        : "with a replacement"));
      continue;
    }
    if (str(e, "node") != node) continue;
    const bool in_group = e.contains("node_group");
    if (out.empty()) {
      out = in_group ? fmt::format("node {} (node group {})\n", node, str(e, "node_group"))
                     : fmt::format("node {} (NodePool {})\n", node, str(e, "nodepool"));
    }
    if (kind == "nodeclaim_created") {
      const auto pods = static_cast<std::int64_t>(num(e, "pods"));
      std::string why =
          fmt::format("NodeClaim created for {} pending in a batch", plural(pods, "pod"));
      if (pods == 0) why = "NodeClaim created with no pods: a replacement for a disruption command";
      std::vector<std::string> names;
      for (std::size_t k = i + 1; k < events.all.size() && num(events.all[k], "t") == t; ++k)
        if (str(events.all[k], "kind") == "pod_nominated" && str(events.all[k], "node") == node)
          names.push_back(str(events.all[k], "pod"));
      if (!names.empty()) why += fmt::format(" ({})", fmt::join(names, ", "));
      out += line(t, fmt::format("{}; it kept {}", why, type_list(e)));
    } else if (kind == "node_launched") {
      launched_at = t;
      price = num(e, "price_usd_per_hour");
      out += line(t, fmt::format("launched as {}: {}", launched_text(e),
                                 in_group ? kWhyThisGroupType : kWhyThisType));
    } else if (kind == "node_registered") {
      out += line(t, "registered");
    } else if (kind == "node_ready") {
      out += line(t, "ready: initialized, GPUs advertised");
    } else if (kind == "pod_scheduled") {
      out += line(t, "pod bound: " + str(e, "pod"));
    } else if (kind == "pod_completed" || kind == "pod_evicted" || kind == "pod_deleted") {
      const std::string how = kind == "pod_completed" ? "completed"
                              : kind == "pod_evicted" ? "evicted: " + str(e, "reason")
                                                      : "deleted: " + str(e, "reason");
      out += line(t, fmt::format("pod {} {}", str(e, "pod"), how));
    } else if (kind == "pod_preempted") {
      out += line(t, fmt::format("pod {} preempted for {}", str(e, "pod"), str(e, "reason")));
    } else if (kind == "spot_interruption_notice") {
      out += line(t, "spot interruption notice: the instance goes in two minutes");
    } else if (kind == "spot_rebalance_recommendation") {
      out += line(t,
                  "rebalance recommendation: EC2 sees a raised risk of interruption; "
                  "Karpenter takes no action on it");
    } else if (kind == "node_deleting") {
      out += line(t, "cordoned and draining: " + str(e, "reason"));
    } else if (kind == "node_terminated") {
      std::string text = "terminated: " + str(e, "reason");
      if (launched_at >= 0) text += fmt::format(" (ran {} at ${}/h)", when(t - launched_at), price);
      out += line(t, text);
    }
  }
  if (out.empty() || out.find(fmt::format("node {} (", node)) != 0) not_found(stream, "node", node);
  if (out.find("terminated: ") == std::string::npos) out += "  still running when the run ended\n";
  return out;
}

}  // namespace fleetsim
