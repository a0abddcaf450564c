// `fleetsim autoscale`: replays a recorded metric series through one HPA or ScaledObject.
#include <fmt/format.h>

#include <iostream>
#include <string>

#include "fleetsim/autoscaling/replay.hpp"
#include "fleetsim/cli/commands.hpp"
#include "fleetsim/report/number_format.hpp"
#include "fleetsim/scenario/manifest_loader.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"
#include "fleetsim/scenario/warning_log.hpp"
#include "fleetsim/scenario/workload_decoder.hpp"

namespace fleetsim {

namespace {

// How long a replay runs past the last sample by default: long enough for a scale-down after
// the series ends to pass the HPA's default 5-minute stabilization window.
constexpr SimDuration kDefaultTail = minutes(5);

const SourceLocation kCommandLine{.file = "command line"};

// Decodes the HPAs and ScaledObjects of the file; other kinds (the Deployment they scale, a
// Service) are skipped without being decoded.
ManifestSet load_autoscalers(const std::filesystem::path& path, WarningLog& warnings) {
  ResourceRegistry resources;
  ManifestLoader loader(resources, warnings);
  YamlDocuments docs = load_yaml_file(path);
  ManifestSet set;
  for (const YAML::Node& doc : docs.documents) {
    YamlValue value(doc, docs.file);
    if (!value.is_map()) continue;
    const YAML::Node kind = doc["kind"];
    if (!kind.IsScalar()) continue;
    if (kind.Scalar() != "HorizontalPodAutoscaler" && kind.Scalar() != "ScaledObject") continue;
    loader.load_manifest(value, set);
  }
  std::size_t found = set.hpas.size() + set.scaled_objects.size();
  if (found == 0) {
    throw ConfigError(SourceLocation{.file = path.string()}, "",
                      "no HorizontalPodAutoscaler or ScaledObject in this file");
  }
  if (found > 1) {
    SourceLocation second = set.hpas.size() > 1    ? set.hpas[1].where
                            : set.hpas.size() == 1 ? set.scaled_objects[0].where
                                                   : set.scaled_objects[1].where;
    throw ConfigError(second, "",
                      fmt::format("the file holds {} autoscalers; `fleetsim autoscale` replays "
                                  "one, so put it in a file of its own",
                                  found));
  }
  return set;
}

}  // namespace

int autoscale_command(const AutoscaleOptions& options) {
  WarningLog warnings(options.reading.validation);
  ManifestSet set = load_autoscalers(options.manifest, warnings);
  MetricSeries series = MetricSeries::load(options.metrics);

  ReplayOptions replay;
  replay.duration = series.last_time().time_since_epoch() + kDefaultTail;
  if (options.duration) {
    std::optional<SimDuration> d = parse_duration(*options.duration);
    if (!d) {
      throw InputError(kCommandLine, "--duration",
                       fmt::format("invalid duration \"{}\"; use Go forms such as 90s, 30m or 6h",
                                   options.duration->substr(0, 40)));
    }
    replay.duration = *d;
  }
  if (replay.duration > kMaxScenarioDuration) {
    throw InputError(
        kCommandLine, "--duration",
        fmt::format("the duration must be at most {} days", kMaxScenarioDuration / hours(24)));
  }
  if (options.initial_replicas &&
      (*options.initial_replicas < 0 || *options.initial_replicas > kMaxReplicas)) {
    throw InputError(kCommandLine, "--initial-replicas",
                     fmt::format("must be between 0 and {}", kMaxReplicas));
  }

  std::vector<ReplicaChange> changes;
  if (!set.hpas.empty()) {
    const HorizontalPodAutoscalerSpec& hpa = set.hpas.front();
    replay.initial_replicas = options.initial_replicas.value_or(hpa.min_replicas);
    changes = replay_hpa(hpa, series, replay);
  } else {
    const ScaledObjectSpec& so = set.scaled_objects.front();
    replay.initial_replicas =
        options.initial_replicas.value_or(so.idle_replica_count.value_or(so.min_replica_count));
    changes = replay_scaled_object(so, series, replay);
  }

  std::vector<Warning> shown = warnings.take();
  drop_suppressed(options.reading.suppress, shown);
  print_warnings(shown, options.warnings, std::cerr);
  std::string out = "time_s,replicas\n";
  for (const ReplicaChange& c : changes) {
    append_seconds(out, c.at, false);
    out += fmt::format(",{}\n", c.replicas);
  }
  std::cout << out << std::flush;
  if (!std::cout) throw InputError(kCommandLine, "stdout", "writing the output failed");
  return kExitOk;
}

}  // namespace fleetsim
