// Manifests (NodePool, EC2NodeClass, Pod, Deployment, Job, DaemonSet, PriorityClass, HPA,
// ScaledObject, PodDisruptionBudget, List) decoded from arbitrary YAML text.
#include "fleetsim/scenario/manifest_loader.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"
#include "fuzz_contract.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fleetsim;
  fuzz::expect_result_or_located_error([&] {
    YamlDocuments docs = parse_yaml(fuzz::text_of(data, size), "fuzz.yaml");
    ResourceRegistry resources;
    WarningLog warnings;
    ManifestLoader loader(resources, warnings);
    ManifestSet set;
    for (const YAML::Node& doc : docs.documents)
      loader.load_manifest(YamlValue(doc, docs.file), set);
  });
  return 0;
}
