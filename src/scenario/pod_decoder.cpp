#include "fleetsim/scenario/pod_decoder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>

#include "fleetsim/k8s/pod_affinity.hpp"
#include "fleetsim/kube/scheduler_profile.hpp"
#include "fleetsim/scenario/name_hint.hpp"
#include "fleetsim/scenario/requirement_decoder.hpp"
#include "fleetsim/scenario/resource_decoder.hpp"
#include "fleetsim/scenario/selector_decoder.hpp"

namespace fleetsim {

namespace {

constexpr std::array<std::string_view, 2> kTolerationOperators{"Equal", "Exists"};
constexpr std::array<std::string_view, 2> kWhenUnsatisfiable{"DoNotSchedule", "ScheduleAnyway"};
constexpr std::array<std::string_view, 2> kInclusionPolicies{"Honor", "Ignore"};
constexpr std::array<std::string_view, 3> kRestartPolicies{"Always", "OnFailure", "Never"};
// Kubernetes' bounds on preferred node-affinity and pod-affinity weights.
constexpr std::int64_t kMinPreferenceWeight = 1;
constexpr std::int64_t kMaxPreferenceWeight = 100;
// core/v1 PodResourceClaim's fields.
constexpr std::array<std::string_view, 3> kPodClaimEntryFields{"name", "resourceClaimName",
                                                               "resourceClaimTemplateName"};
const ApiType kPodClaimEntry{"PodResourceClaim", kPodClaimEntryFields};

struct ContainerRequest {
  Resources requests;
  // As kube-scheduler's scoring counts them: 100m of cpu and 200Mi of memory where the container
  // sets neither a request nor a limit (pkg/scheduler/util/pod_resources.go).
  Resources scoring_requests;
  bool sidecar = false;                        // an init container with restartPolicy: Always
  std::string image;                           // app containers only; empty when unset
  std::optional<ProbeTiming> readiness_probe;  // app containers only
  std::optional<ProbeTiming> startup_probe;    // app containers only
  std::vector<std::string> argv;               // app containers only: command, then args
  std::vector<YamlValue> claims;               // resources.claims[].name
};

// A readinessProbe or startupProbe: its timing, with Kubernetes' defaults.
ProbeTiming decode_probe(const YamlValue& value, bool startup, DecodeContext& ctx) {
  YamlMap p(value);
  // fleetsim models a probe as failing until the container's server is up and passing after, so
  // neither the handler nor the timeout and failure settings change when it first passes.
  p.ignore({"httpGet", "tcpSocket", "exec", "grpc", "timeoutSeconds", "failureThreshold",
            "terminationGracePeriodSeconds"});
  ProbeTiming out;
  if (auto v = p.get("initialDelaySeconds"))
    out.initial_delay = seconds(v->as_int(0, kMaxProbeSeconds));
  if (auto v = p.get("periodSeconds")) out.period = seconds(v->as_int(1, kMaxProbeSeconds));
  if (auto v = p.get("successThreshold")) {
    out.success_threshold =
        static_cast<std::int32_t>(v->as_int(1, std::numeric_limits<std::int32_t>::max()));
    if (startup && out.success_threshold != 1)
      v->fail("a startupProbe's successThreshold must be 1, as Kubernetes requires");
  }
  p.check_unread(ctx.warnings, ctx.kind, api::Probe);
  return out;
}

// Requests of one container. A resource with a limit but no request is requested at its limit,
// as the API server defaults it. `unset` gets 1 for each resource given neither.
Resources decode_container_resources(const YamlValue& value, DecodeContext& ctx, Resources& unset,
                                     std::vector<YamlValue>& claims) {
  YamlMap r(value);
  if (auto list = r.get("claims")) {
    // Which of the pod's claims the container sees: no bearing on scheduling (kube-scheduler
    // allocates the pod's spec.resourceClaims), so only its name is checked.
    for (const YamlValue& item : list->items()) {
      YamlMap c(item);
      claims.push_back(c.require("name"));
      c.ignore({"request"});
    }
  }
  std::optional<YamlValue> requests_value = r.get("requests");
  std::optional<YamlValue> limits_value = r.get("limits");
  ResourceList requests, limits;
  if (requests_value)
    requests = decode_resource_list(*requests_value, ctx, ResourceListUse::PodRequests);
  if (limits_value) limits = decode_resource_list(*limits_value, ctx, ResourceListUse::PodRequests);
  Resources out = requests.amounts;
  for (std::size_t i = 0; i < ctx.resources.size(); ++i) {
    auto slot = static_cast<ResourceIndex>(i);
    if (limits.set_mask[slot] == 0) continue;
    if (requests.set_mask[slot] == 0) {
      out[slot] = limits.amounts[slot];
      continue;
    }
    const std::string& name = ctx.resources.name(slot);
    YamlValue at = *YamlMap(*requests_value).get(name);
    bool overcommittable = name == "cpu" || name == "memory" || name == "ephemeral-storage";
    if (!overcommittable && requests.amounts[slot] != limits.amounts[slot]) {
      at.fail(fmt::format("the request for {} must equal its limit", name));
    }
    if (requests.amounts[slot] > limits.amounts[slot]) {
      at.fail(fmt::format("the request for {} exceeds its limit", name));
    }
  }
  for (std::size_t i = 0; i < ctx.resources.size(); ++i) {
    auto slot = static_cast<ResourceIndex>(i);
    unset[slot] = requests.set_mask[slot] == 0 && limits.set_mask[slot] == 0 ? 1 : 0;
  }
  r.check_unread(ctx.warnings, ctx.kind, api::ResourceRequirements);
  return out;
}

ContainerRequest decode_container(const YamlValue& item, bool init, DecodeContext& ctx) {
  YamlMap c(item);
  c.ignore({"name"});
  ContainerRequest out;
  Resources unset;
  unset[resource::kCpu] = unset[resource::kMemory] = 1;
  if (auto resources = c.get("resources"))
    out.requests = decode_container_resources(*resources, ctx, unset, out.claims);
  out.scoring_requests = out.requests;
  if (unset[resource::kCpu] != 0) out.scoring_requests[resource::kCpu] = kDefaultScoringCpuMillis;
  if (unset[resource::kMemory] != 0)
    out.scoring_requests[resource::kMemory] = kDefaultScoringMemoryBytes;
  if (!init) {
    if (auto image = c.get("image")) out.image = image->as_string();
    for (std::string_view key : {"command", "args"})
      if (auto list = c.get(key))
        for (const YamlValue& word : list->items()) out.argv.push_back(word.as_string());
    if (auto probe = c.get("readinessProbe"))
      out.readiness_probe = decode_probe(*probe, false, ctx);
    if (auto probe = c.get("startupProbe")) out.startup_probe = decode_probe(*probe, true, ctx);
  } else {
    if (auto policy = c.get("restartPolicy")) {
      if (policy->as_string() != "Always") {
        policy->fail("an init container's restartPolicy can only be Always (a sidecar)");
      }
      out.sidecar = true;
    }
  }
  c.check_unread(ctx.warnings, ctx.kind, api::Container);
  return out;
}

// Kubernetes' effective pod request (k8s.io/component-helpers resource.PodRequests): app
// containers and sidecars run together; each ordinary init container runs alone beside the
// sidecars started before it; the pod needs the larger of the two, plus its overhead.
Resources effective_requests(const std::vector<ContainerRequest>& app,
                             const std::vector<ContainerRequest>& init, const Resources& overhead,
                             Resources ContainerRequest::*requests = &ContainerRequest::requests) {
  Resources app_sum;
  for (const auto& c : app) app_sum += c.*requests;
  Resources sidecars, init_peak;
  for (const auto& c : init) {
    if (c.sidecar) {
      sidecars += c.*requests;
      init_peak = Resources::max(init_peak, sidecars);
    } else {
      init_peak = Resources::max(init_peak, c.*requests + sidecars);
    }
  }
  Resources total = Resources::max(app_sum + sidecars, init_peak) + overhead;
  total[resource::kPods] = 1;  // every pod takes one of the node's pod slots
  return total;
}

// One nodeSelectorTerm. An empty term matches no node in Kubernetes; refuse it rather than
// simulate a pod that can never schedule for a reason no one would guess.
Requirements decode_term(const YamlValue& value, DecodeContext& ctx) {
  YamlMap t(value);
  Requirements out;
  std::optional<YamlValue> expressions = t.get("matchExpressions");
  if (expressions) decode_requirements(*expressions, RequirementSource::Pod, ctx, out);
  if (out.empty() && !t.contains("matchFields")) {
    value.fail("an empty node selector term matches no node");
  }
  t.check_unread(ctx.warnings, ctx.kind,
                 api::NodeSelectorTerm);  // matchFields select nodes by name: not modelled
  return out;
}

void decode_node_affinity(const YamlValue& value, const Requirements& selector, PodSpec& spec,
                          DecodeContext& ctx) {
  YamlMap n(value);
  if (auto required = n.get("requiredDuringSchedulingIgnoredDuringExecution")) {
    YamlMap r(*required);
    YamlValue terms = r.require("nodeSelectorTerms");
    std::vector<YamlValue> items = terms.items();
    if (items.empty()) terms.fail("at least one node selector term is needed");
    for (std::size_t i = 0; i < items.size(); ++i) {
      Requirements term = decode_term(items[i], ctx);
      term.add(selector);  // nodeSelector and node affinity must both hold
      if (i == 0) {
        spec.node_requirements = std::move(term);
      } else {
        spec.alternative_node_requirements.push_back(std::move(term));
      }
    }
    r.check_unread(ctx.warnings, ctx.kind, api::NodeSelector);
  }
  if (auto preferred = n.get("preferredDuringSchedulingIgnoredDuringExecution")) {
    std::int64_t best_weight = 0;
    for (const YamlValue& item : preferred->items()) {
      YamlMap p(item);
      std::int64_t weight = p.require("weight").as_int(kMinPreferenceWeight, kMaxPreferenceWeight);
      Requirements term = decode_term(p.require("preference"), ctx);
      // Karpenter tries the heaviest preference first; the first of equal weights wins.
      if (weight > best_weight) {
        best_weight = weight;
        spec.preferred_node_requirements = term;
      }
      spec.preferred_node_terms.push_back(
          {.weight = static_cast<std::int32_t>(weight), .term = std::move(term)});
      p.check_unread(ctx.warnings, ctx.kind, api::PreferredSchedulingTerm);
    }
  }
  n.check_unread(ctx.warnings, ctx.kind, api::NodeAffinity);
}

// One podAffinity / podAntiAffinity term. A term without labelSelector selects no pod: a
// required affinity term of that kind could never be met, so it is refused.
PodAffinityTerm decode_affinity_term(const YamlValue& value, bool required_affinity,
                                     DecodeContext& ctx) {
  YamlMap t(value);
  PodAffinityTerm term;
  YamlValue key = t.require("topologyKey");
  term.topology_key = normalize_label_key(key.as_string());
  if (term.topology_key.empty()) key.fail("topologyKey must not be empty");
  if (auto p = label_key_problem(term.topology_key)) key.fail(*p);
  if (term.topology_key != label::kZone && term.topology_key != label::kHostname) {
    ctx.warn(WarningCode::TopologyKeyNotModelled, key,
             fmt::format("pod affinity over \"{}\" is not modelled (only {} and {} are); "
                         "the term is ignored",
                         term.topology_key, label::kZone, label::kHostname));
  }
  if (auto selector = t.get("labelSelector"); selector && !selector->is_null()) {
    term.selector = decode_label_selector(*selector, ctx);
  } else if (required_affinity) {
    value.fail(
        "a required podAffinity term without labelSelector selects no pod, so the pod "
        "could never schedule");
  } else {
    ctx.warn(WarningCode::AffinityTermWithoutSelector, value,
             "a term without labelSelector selects no pod and has no effect");
  }
  if (auto namespaces = t.get("namespaces")) {
    for (const YamlValue& ns : namespaces->items()) term.namespaces.push_back(ns.as_string());
  }
  if (auto selector = t.get("namespaceSelector"); selector && !selector->is_null()) {
    term.namespace_selector = decode_label_selector(*selector, ctx);
    const LabelSelector& s = *term.namespace_selector;
    const bool other_label =
        std::any_of(s.match_labels.begin(), s.match_labels.end(),
                    [](const auto& kv) { return kv.first != kNamespaceNameLabel; }) ||
        std::any_of(s.match_expressions.begin(), s.match_expressions.end(),
                    [](const SelectorExpression& e) { return e.key != kNamespaceNameLabel; });
    if (other_label) {
      ctx.warn(WarningCode::NamespaceLabels, *selector,
               fmt::format("fleetsim's namespaces carry only their {} label; the "
                           "selector is matched against that alone",
                           kNamespaceNameLabel));
    }
  }
  t.check_unread(ctx.warnings, ctx.kind,
                 api::PodAffinityTerm);  // matchLabelKeys, mismatchLabelKeys
  return term;
}

// podAffinity or podAntiAffinity: required terms, and preferred terms heaviest first (the order
// in which Karpenter gives them up).
PodAffinityRules decode_pod_affinity(const YamlValue& value, bool anti, DecodeContext& ctx) {
  YamlMap a(value);
  PodAffinityRules out;
  if (auto required = a.get("requiredDuringSchedulingIgnoredDuringExecution")) {
    for (const YamlValue& item : required->items())
      out.required.push_back(decode_affinity_term(item, !anti, ctx));
  }
  if (auto preferred = a.get("preferredDuringSchedulingIgnoredDuringExecution")) {
    std::vector<std::pair<std::int32_t, PodAffinityTerm>> weighted;
    for (const YamlValue& item : preferred->items()) {
      YamlMap p(item);
      auto weight = static_cast<std::int32_t>(
          p.require("weight").as_int(kMinPreferenceWeight, kMaxPreferenceWeight));
      weighted.emplace_back(weight, decode_affinity_term(p.require("podAffinityTerm"), false, ctx));
      p.check_unread(ctx.warnings, ctx.kind, api::WeightedPodAffinityTerm);
    }
    std::stable_sort(weighted.begin(), weighted.end(),
                     [](const auto& x, const auto& y) { return x.first > y.first; });
    for (auto& [weight, term] : weighted) {
      out.preferred_weights.push_back(weight);
      out.preferred.push_back(std::move(term));
    }
  }
  a.check_unread(ctx.warnings, ctx.kind, anti ? api::PodAntiAffinity : api::PodAffinity);
  return out;
}

Toleration decode_toleration(const YamlValue& item, DecodeContext& ctx) {
  YamlMap t(item);
  Toleration tol;
  if (auto key = t.get("key")) {
    tol.key = key->as_string();
    if (!tol.key.empty()) {
      if (auto p = label_key_problem(tol.key)) key->fail(*p);
    }
  }
  std::optional<YamlValue> op = t.get("operator");
  if (op) {
    std::string text = op->as_string();
    if (text == "Exists") {
      tol.op = TolerationOperator::Exists;
    } else if (text == "Equal") {
      tol.op = TolerationOperator::Equal;
    } else {
      op->fail(fmt::format("unknown toleration operator \"{}\"; expected Equal or Exists{}",
                           text.substr(0, 40), did_you_mean(text, kTolerationOperators)));
    }
  }
  if (auto value = t.get("value")) {
    tol.value = value->as_string();
    if (tol.op == TolerationOperator::Exists && !tol.value.empty()) {
      value->fail("a toleration with operator Exists takes no value");
    }
  }
  if (tol.key.empty() && tol.op != TolerationOperator::Exists) {
    (op ? *op : item).fail("a toleration without a key needs operator Exists");
  }
  if (auto effect = t.get("effect")) {
    std::string text = effect->as_string();
    if (!text.empty()) {  // empty matches every effect
      auto parsed = parse_taint_effect(text);
      if (!parsed) {
        effect->fail(
            fmt::format("unknown taint effect \"{}\"; expected NoSchedule, PreferNoSchedule "
                        "or NoExecute{}",
                        text.substr(0, 40), did_you_mean(text, kTaintEffects)));
      }
      tol.effect = parsed;
    }
  }
  // Read for validation only: fleetsim never sets NoExecute taints on running pods' nodes.
  if (auto seconds = t.get("tolerationSeconds")) {
    seconds->as_int(std::numeric_limits<std::int64_t>::min(),
                    std::numeric_limits<std::int64_t>::max());
  }
  t.check_unread(ctx.warnings, ctx.kind, api::Toleration);
  return tol;
}

InclusionPolicy decode_inclusion_policy(const YamlValue& v) {
  const std::string text = v.as_string();
  if (text == "Honor") return InclusionPolicy::Honor;
  if (text == "Ignore") return InclusionPolicy::Ignore;
  v.fail(fmt::format("unknown node inclusion policy \"{}\"; expected Honor or Ignore{}",
                     text.substr(0, 40), did_you_mean(text, kInclusionPolicies)));
}

// The API server's validation (validateTopologySpreadConstraints) refuses what is refused here.
TopologySpread decode_spread(const YamlValue& item, const Labels& pod_labels, DecodeContext& ctx) {
  YamlMap c(item);
  TopologySpread ts;
  ts.max_skew =
      static_cast<int>(c.require("maxSkew").as_int(1, std::numeric_limits<std::int32_t>::max()));
  YamlValue key = c.require("topologyKey");
  ts.topology_key = normalize_label_key(key.as_string());
  if (auto p = label_key_problem(ts.topology_key)) key.fail(*p);
  if (ts.topology_key != label::kZone && ts.topology_key != label::kHostname) {
    ctx.warn(WarningCode::TopologyKeyNotModelled, key,
             fmt::format("spreading over \"{}\" is not modelled; only zone and hostname are",
                         ts.topology_key));
  }
  YamlValue when = c.require("whenUnsatisfiable");
  std::string text = when.as_string();
  if (text == "DoNotSchedule") {
    ts.when_unsatisfiable = WhenUnsatisfiable::DoNotSchedule;
  } else if (text == "ScheduleAnyway") {
    ts.when_unsatisfiable = WhenUnsatisfiable::ScheduleAnyway;
  } else {
    when.fail(
        fmt::format("unknown whenUnsatisfiable \"{}\"; expected DoNotSchedule or ScheduleAnyway{}",
                    text.substr(0, 40), did_you_mean(text, kWhenUnsatisfiable)));
  }
  if (auto selector = c.get("labelSelector")) ts.selector = decode_label_selector(*selector, ctx);
  if (auto min = c.get("minDomains")) {
    ts.min_domains = static_cast<int>(min->as_int(1, std::numeric_limits<std::int32_t>::max()));
    if (ts.when_unsatisfiable != WhenUnsatisfiable::DoNotSchedule)
      min->fail("minDomains can only be set with whenUnsatisfiable: DoNotSchedule");
  }
  if (auto p = c.get("nodeAffinityPolicy")) ts.node_affinity_policy = decode_inclusion_policy(*p);
  if (auto p = c.get("nodeTaintsPolicy")) ts.node_taints_policy = decode_inclusion_policy(*p);
  if (auto keys = c.get("matchLabelKeys")) {
    // Each key's value in the pod's labels joins the selector (a key the pod lacks is ignored).
    for (const YamlValue& k : keys->items()) {
      const std::string name = k.as_string();
      if (auto p = label_key_problem(name)) k.fail(*p);
      if (!ts.selector) k.fail("matchLabelKeys needs a labelSelector");
      const LabelSelector& s = *ts.selector;
      if (s.match_labels.count(name) != 0 ||
          std::any_of(s.match_expressions.begin(), s.match_expressions.end(),
                      [&](const SelectorExpression& e) { return e.key == name; }))
        k.fail(fmt::format("\"{}\" is both in matchLabelKeys and in the labelSelector", name));
      if (auto it = pod_labels.find(name); it != pod_labels.end())
        ts.selector->match_expressions.push_back(
            {.key = name, .op = Operator::In, .values = {it->second}});
    }
  }
  c.check_unread(ctx.warnings, ctx.kind, api::TopologySpreadConstraint);
  return ts;
}

RestartPolicy decode_restart_policy(const YamlValue& v) {
  std::string text = v.as_string();
  if (text == "Always") return RestartPolicy::Always;
  if (text == "OnFailure") return RestartPolicy::OnFailure;
  if (text == "Never") return RestartPolicy::Never;
  v.fail(fmt::format("unknown restartPolicy \"{}\"; expected Always, OnFailure or Never{}",
                     text.substr(0, 40), did_you_mean(text, kRestartPolicies)));
}

}  // namespace

PreemptionPolicy decode_preemption_policy(const YamlValue& v) {
  static constexpr std::array<std::string_view, 2> kPolicies{"PreemptLowerPriority", "Never"};
  std::string text = v.as_string();
  if (text == kPolicies[0]) return PreemptionPolicy::PreemptLowerPriority;
  if (text == kPolicies[1]) return PreemptionPolicy::Never;
  v.fail(fmt::format("unknown preemptionPolicy \"{}\"; expected PreemptLowerPriority or Never{}",
                     text.substr(0, 40), did_you_mean(text, kPolicies)));
}

DecodedPod decode_pod(const ObjectMeta& meta, const YamlValue& spec_value, DecodeContext& ctx) {
  DecodedPod out;
  PodTemplate& pod = out.pod;
  PodSpec& spec = pod.spec;
  pod.labels = meta.labels;
  pod.annotations = meta.annotations;
  pod.where = meta.where;
  spec.do_not_disrupt = meta.do_not_disrupt;
  if (auto it = meta.annotations.find("cluster-autoscaler.kubernetes.io/safe-to-evict");
      it != meta.annotations.end())
    spec.safe_to_evict = it->second;
  out.run_time = meta.run_time;
  out.checkpoint_interval = meta.checkpoint_interval;
  out.restart_overhead = meta.restart_overhead;

  YamlMap s(spec_value);
  YamlValue containers = s.require("containers");
  std::vector<ContainerRequest> app, init;
  for (const YamlValue& c : containers.items()) app.push_back(decode_container(c, false, ctx));
  if (app.empty()) containers.fail("a pod needs at least one container");
  for (ContainerRequest& c : app) {
    if (!c.argv.empty())
      spec.command_lines.push_back({.image = c.image, .argv = std::move(c.argv)});
    if (!c.image.empty()) spec.images.push_back(std::move(c.image));
    if (!spec.readiness_probe) spec.readiness_probe = c.readiness_probe;
    if (!spec.startup_probe) spec.startup_probe = c.startup_probe;
  }
  if (auto inits = s.get("initContainers")) {
    for (const YamlValue& c : inits->items()) init.push_back(decode_container(c, true, ctx));
  }
  for (const ContainerRequest& c : init)
    if (!c.image.empty()) spec.init_images.push_back(c.image);
  Resources overhead;
  if (auto o = s.get("overhead"))
    overhead = decode_resource_list(*o, ctx, ResourceListUse::PodRequests).amounts;
  spec.requests = effective_requests(app, init, overhead);
  spec.scoring_extra =
      effective_requests(app, init, overhead, &ContainerRequest::scoring_requests) - spec.requests;
  check_pod_request_bounds(spec.requests, ctx.resources, containers);

  Requirements selector;
  if (auto ns = s.get("nodeSelector")) {
    for (const auto& [key, value] : decode_labels(*ns)) {
      selector.add(normalize_label_key(key), Requirement::single(value));
    }
  }
  spec.node_requirements = selector;
  spec.node_selector = selector;
  if (auto affinity = s.get("affinity")) {
    YamlMap a(*affinity);
    if (auto node_affinity = a.get("nodeAffinity"))
      decode_node_affinity(*node_affinity, selector, spec, ctx);
    if (auto pod_affinity = a.get("podAffinity"))
      spec.pod_affinity = decode_pod_affinity(*pod_affinity, false, ctx);
    if (auto anti = a.get("podAntiAffinity"))
      spec.pod_anti_affinity = decode_pod_affinity(*anti, true, ctx);
    a.check_unread(ctx.warnings, ctx.kind, api::Affinity);
  }
  if (auto tolerations = s.get("tolerations")) {
    for (const YamlValue& t : tolerations->items())
      spec.tolerations.push_back(decode_toleration(t, ctx));
  }
  if (auto spreads = s.get("topologySpreadConstraints")) {
    for (const YamlValue& t : spreads->items())
      spec.topology_spread.push_back(decode_spread(t, meta.labels, ctx));
  }

  out.priority.where = spec_value.where();
  out.priority.field = spec_value.path();
  if (auto name = s.get("priorityClassName")) {
    out.priority.class_name = name->as_string();
    out.priority.where = name->where();
    out.priority.field = name->path();
    spec.priority_class_name = out.priority.class_name;
  }
  if (auto priority = s.get("priority")) {
    out.priority.value = static_cast<std::int32_t>(priority->as_int(
        std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()));
    spec.priority = *out.priority.value;
  }
  if (auto policy = s.get("preemptionPolicy")) {
    out.priority.preemption_policy = decode_preemption_policy(*policy);
    out.priority.preemption_policy_where = policy->where();
    out.priority.preemption_policy_field = policy->path();
  }
  if (auto name = s.get("schedulerName")) {
    spec.scheduler_name = name->as_string();
    if (spec.scheduler_name.empty()) spec.scheduler_name = kDefaultSchedulerName;  // defaulted
  }
  if (auto group = s.get("schedulingGroup")) {
    YamlMap g(*group);
    if (auto name = g.get("podGroupName")) spec.pod_group = name->as_string();
    g.check_unread(ctx.warnings, ctx.kind, api::PodSchedulingGroup);
  }
  if (auto grace = s.get("terminationGracePeriodSeconds")) {
    spec.termination_grace = seconds(grace->as_int(0, kMaxTerminationGraceSeconds));
  }
  out.restart_policy_where = spec_value.where();
  out.restart_policy_field = spec_value.path() + ".restartPolicy";
  if (auto policy = s.get("restartPolicy")) {
    out.restart_policy = decode_restart_policy(*policy);
    out.restart_policy_where = policy->where();
  }
  if (auto claims = s.get("resourceClaims")) {
    for (const YamlValue& item : claims->items()) {
      YamlMap c(item);
      YamlValue name = c.require("name");
      PodClaimRef ref{.name = name.as_string()};
      if (auto p = dns_subdomain_problem(ref.name)) name.fail(*p);
      for (const PodClaimRef& other : pod.claim_refs)
        if (other.name == ref.name)
          name.fail(fmt::format("a second resourceClaims entry named \"{}\"", ref.name));
      const std::optional<YamlValue> claim = c.get("resourceClaimName");
      const std::optional<YamlValue> tmpl = c.get("resourceClaimTemplateName");
      if (claim.has_value() == tmpl.has_value())
        (claim ? *claim : item)
            .fail(
                "a resourceClaims entry needs exactly one of resourceClaimName and "
                "resourceClaimTemplateName");
      const YamlValue& source = claim ? *claim : *tmpl;
      ref.source = source.as_string();
      ref.from_template = tmpl.has_value();
      ref.where = source.where();
      pod.claim_refs.push_back(std::move(ref));
      c.check_unread(ctx.warnings, ctx.kind, kPodClaimEntry);
    }
  }
  // A container's claim must be one of the pod's (the API server's validation).
  for (const std::vector<ContainerRequest>* list : {&app, &init})
    for (const ContainerRequest& c : *list)
      for (const YamlValue& name : c.claims) {
        const std::string text = name.as_string();
        if (std::none_of(pod.claim_refs.begin(), pod.claim_refs.end(),
                         [&](const PodClaimRef& r) { return r.name == text; }))
          name.fail(
              fmt::format("the container's claim \"{}\" is none of the pod's "
                          "spec.resourceClaims",
                          text.substr(0, 60)));
      }
  s.check_unread(ctx.warnings, ctx.kind, api::PodSpec);
  return out;
}

DecodedPod decode_pod_template(const YamlValue& tmpl, DecodeContext& ctx) {
  YamlMap t(tmpl);
  ObjectMeta meta = decode_object_meta(t, ctx, NameRule::Optional);
  DecodedPod out = decode_pod(meta, t.require("spec"), ctx);
  t.check_unread(ctx.warnings, ctx.kind, api::PodTemplateSpec);
  return out;
}

}  // namespace fleetsim
