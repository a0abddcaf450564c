#include "fleetsim/report/event_writer.hpp"

#include "fleetsim/report/number_format.hpp"
#include "fleetsim/report/reason_names.hpp"

namespace fleetsim {

void EventWriter::append_key(std::string_view key) {
  line_.push_back(',');
  append_json_string(line_, key);
  line_.push_back(':');
}

void EventWriter::append_node(const Node& node, bool with_price) {
  append_key("node");
  append_json_string(line_, node.name);
  append_key(node.nodepool() != nullptr ? "nodepool" : "node_group");
  append_json_string(line_, node.owner_name());
  append_key("instance_type");
  append_json_string(line_, node.instance_type);
  append_key("capacity_type");
  append_json_string(line_, to_string(node.capacity_type));
  append_key("zone");
  append_json_string(line_, node.zone);
  if (with_price) {
    append_key("price_usd_per_hour");
    append_decimal(line_, node.price_per_hour, /*keep_point=*/true);
  }
}

void EventWriter::append_decision(const DisruptionDecision& d, const Cluster& cluster) {
  append_key("method");
  append_json_string(line_, d.method);
  append_key("nodes");
  line_.push_back('[');
  for (std::size_t i = 0; i < d.nodes.size(); ++i) {
    if (i > 0) line_.push_back(',');
    append_json_string(line_, cluster.node(d.nodes[i]).name);
  }
  line_ += "],\"replacements\":[";
  for (std::size_t i = 0; i < d.replacements.size(); ++i) {
    line_ += i > 0 ? ",[" : "[";
    for (std::size_t k = 0; k < d.replacements[i].size(); ++k) {
      if (k > 0) line_.push_back(',');
      append_json_string(line_, d.replacements[i][k]);
    }
    line_.push_back(']');
  }
  line_.push_back(']');
  append_key("savings_usd_per_hour");
  append_decimal(line_, d.savings_per_hour, /*keep_point=*/true);
  append_key("pods");
  line_ += std::to_string(d.pods);
}

void EventWriter::append_scale_up_options(std::string_view key,
                                          std::span<const ScaleUpDecision::Option> options,
                                          bool with_pods) {
  append_key(key);
  line_.push_back('[');
  for (std::size_t i = 0; i < options.size(); ++i) {
    line_ += i > 0 ? ",{" : "{";
    append_json_string(line_, "node_group");
    line_.push_back(':');
    append_json_string(line_, options[i].node_group);
    line_ += ",\"nodes\":" + std::to_string(options[i].nodes);
    if (with_pods) line_ += ",\"pods\":" + std::to_string(options[i].pods);
    line_.push_back('}');
  }
  line_.push_back(']');
}

void EventWriter::on_event(const SimEvent& e, const Cluster& cluster) {
  line_.clear();
  line_ += "{\"t\":";
  append_seconds(line_, e.time, /*keep_point=*/true);
  append_key("kind");
  append_json_string(line_, to_string(e.kind));

  switch (subject_of(e.kind)) {
    case EventSubject::Node:
      if (e.node != kNoNode) {
        append_node(cluster.node(e.node), e.kind == EventKind::NodeLaunched);
      }
      break;
    case EventSubject::Pod: {
      const Pod& pod = cluster.pod(e.pod);
      append_key("pod");
      append_json_string(line_, pod.name);
      append_key("workload");
      append_json_string(line_, cluster.workloads().at(pod.workload).name);
      // The event's node, not pod.node: a completed or evicted pod is already unbound, and a
      // nominated one is not bound yet.
      if (e.node != kNoNode) {
        append_key("node");
        append_json_string(line_, cluster.node(e.node).name);
      }
      break;
    }
    case EventSubject::Workload:
      append_key("workload");
      append_json_string(line_, cluster.workloads().at(e.workload).name);
      break;
    case EventSubject::Command:
      append_decision(*e.decision, cluster);
      break;
    case EventSubject::NodeGroup:
      if (e.scale_up != nullptr) {
        append_key("expander");
        append_json_string(line_, e.scale_up->expander);
        append_scale_up_options("node_groups", e.scale_up->grown, /*with_pods=*/false);
        append_scale_up_options("options", e.scale_up->options, /*with_pods=*/true);
      } else {
        append_key("node_group");
        append_json_string(line_, e.node_group);
      }
      break;
    case EventSubject::Offering:
      append_key("instance_type");
      append_json_string(line_, e.instance_type);
      append_key("capacity_type");
      append_json_string(line_, to_string(e.capacity_type));
      append_key("zone");
      append_json_string(line_, e.zone);
      if (e.kind == EventKind::SpotPriceChanged) {
        append_key("price_usd_per_hour");
        append_decimal(line_, e.price, /*keep_point=*/true);
      } else {
        append_key("capacity");
        line_ += e.capacity ? std::to_string(*e.capacity) : std::string("null");
      }
      break;
  }

  if (e.kind == EventKind::NodeClaimCreated) {
    // The first few options say what the claim kept; a pool of hundreds of types would
    // otherwise make every line long.
    constexpr std::size_t kTypesWritten = 10;
    append_key("pods");
    line_ += std::to_string(e.pods);
    append_key("instance_types");
    line_.push_back('[');
    for (std::size_t i = 0; i < e.instance_types.size() && i < kTypesWritten; ++i) {
      if (i > 0) line_.push_back(',');
      append_json_string(line_, e.instance_types[i]);
    }
    line_.push_back(']');
    append_key("instance_type_count");
    line_ += std::to_string(e.instance_types.size());
  }
  if (e.kind == EventKind::PodGroupTimeout) {
    append_key("pods");
    line_ += std::to_string(e.pods);
  }
  const std::string_view reason = e.message.empty() ? reason_name(e.reason) : e.message;
  if (e.kind == EventKind::ReplicasChanged) {
    append_key("source");
    append_json_string(line_, reason);
    append_key("from");
    line_ += std::to_string(e.from);
    append_key("to");
    line_ += std::to_string(e.to);
  } else if (e.kind == EventKind::NodeBufferPods) {
    append_key("buffer_pods");
    line_ += std::to_string(e.to);
  } else if (!reason.empty()) {
    append_key("reason");
    append_json_string(line_, reason);
  }
  line_ += "}\n";
  out_.write(line_.data(), static_cast<std::streamsize>(line_.size()));
}

}  // namespace fleetsim
