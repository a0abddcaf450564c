// Helpers for the scenario tests: fixture paths, decoding YAML text, capturing error text.
#pragma once

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <string_view>

#include "fleetsim/scenario/manifest_loader.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"
#include "fleetsim/scenario/warning_log.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"

namespace fleetsim::test {

// A ResourceClaimTemplate for one whole GPU of the NVIDIA DRA driver, as its docs write it.
inline const std::string kSingleGpuClaimTemplate = R"(apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: single-gpu}
spec:
  spec:
    devices:
      requests:
        - name: gpu
          exactly:
            deviceClassName: gpu.nvidia.com
)";

inline std::filesystem::path fixtures() {
  return std::filesystem::path(FLEETSIM_SOURCE_DIR) / "tests/unit/scenario/fixtures";
}

// Manifests decoded from YAML text, as if read from a file called "test.yaml".
struct Decoded {
  ResourceRegistry resources;
  WarningLog warnings;
  ManifestSet set;
};

inline std::unique_ptr<Decoded> decode(std::string_view yaml) {
  auto out = std::make_unique<Decoded>();
  YamlDocuments docs = parse_yaml(yaml, "test.yaml");
  ManifestLoader loader(out->resources, out->warnings);
  for (const auto& doc : docs.documents) loader.load_manifest(YamlValue(doc, docs.file), out->set);
  return out;
}

// The what() of the ConfigError `f` throws, or "no error".
inline std::string config_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

inline std::string decode_error(std::string_view yaml) {
  return config_error([&] { decode(yaml); });
}

// A scratch directory unique to this process and name, removed on destruction.
class TempDir {
 public:
  explicit TempDir(std::string_view name)
      : path_(std::filesystem::temp_directory_path() /
              ("fleetsim-scenario-" + std::string(name) + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path write(std::string_view file, std::string_view text) const {
    std::filesystem::path p = path_ / file;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

 private:
  std::filesystem::path path_;
};

// A one-hour scenario over `manifests`, with `settings` appended to its scenario.yaml, in a
// scratch directory; loaded against the bundled catalog.
struct ManifestScenario {
  ManifestScenario(std::string_view name, std::string_view manifests,
                   std::string_view settings = {})
      : dir(name) {
    dir.write("manifests.yaml", manifests);
    file = dir.write("scenario.yaml", "name: s\nduration: 1h\nmanifests: [manifests.yaml]\n" +
                                          std::string(settings));
  }
  ScenarioConfig load() const {
    return load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
  }
  std::string error() const {
    return config_error([&] { load(); });
  }
  TempDir dir;
  std::filesystem::path file;
};

}  // namespace fleetsim::test
