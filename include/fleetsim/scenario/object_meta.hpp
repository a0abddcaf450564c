// Decoding of Kubernetes `metadata` blocks and the name and label syntax rules they follow.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "fleetsim/core/error.hpp"
#include "fleetsim/core/time.hpp"
#include "fleetsim/k8s/int_or_percent.hpp"
#include "fleetsim/k8s/requirements.hpp"
#include "fleetsim/scenario/decode_context.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"

namespace fleetsim {

struct ObjectMeta {
  std::string name;
  std::string namespace_name = "default";
  Labels labels;
  Labels annotations;
  SourceLocation where;  // of metadata.name, else of the metadata block
  // Annotations fleetsim acts on, read here so that their errors point at the annotation.
  std::optional<SimDuration> do_not_disrupt;       // karpenter.sh/do-not-disrupt (PodSpec's sense)
  std::optional<SimDuration> run_time;             // fleetsim.io/duration
  std::optional<SimDuration> checkpoint_interval;  // fleetsim.io/checkpoint-interval
  std::optional<SimDuration> restart_overhead;     // fleetsim.io/restart-overhead
};

enum class NameRule { Required, Optional };

// Decodes the `metadata` field of `owner` (a manifest or a pod template). Bookkeeping fields a
// server adds (uid, resourceVersion, creationTimestamp, managedFields, generation, selfLink) are
// accepted silently, so that manifests exported with `kubectl get -o yaml` load unchanged.
ObjectMeta decode_object_meta(const YamlMap& owner, DecodeContext& ctx, NameRule rule);

// Kubernetes' syntax checks; each returns a reason when `text` is invalid.
std::optional<std::string> dns_subdomain_problem(std::string_view text);  // object names (RFC 1123)
std::optional<std::string> label_key_problem(std::string_view key);       // qualified names
std::optional<std::string> label_value_problem(std::string_view value);

// Reads labels, failing at the offending entry when a key or value breaks the syntax rules.
Labels decode_labels(const YamlValue& map);
// An intstr: a non-negative integer, or "N%" with N from 0 to `max_percent` (100 for what
// Kubernetes caps at 100%: maxUnavailable, a PDB's figures; not a Deployment's maxSurge).
IntOrPercent decode_int_or_percent(const YamlValue& v, std::int64_t max_percent = 100);

}  // namespace fleetsim
