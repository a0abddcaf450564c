#include "fleetsim/catalog/catalog_filter.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "catalog_test_util.hpp"
#include "fleetsim/catalog/catalog_loader.hpp"
#include "fleetsim/catalog/instance_labels.hpp"
#include "fleetsim/core/error.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

std::vector<std::string> select(const Catalog& c, std::string_view expr, bool gpu_only = false) {
  CatalogFilter f = parse_catalog_filter(expr);
  f.gpu_only = gpu_only;
  std::vector<std::string> names;
  for (const InstanceType* t : select_instance_types(c, f)) names.push_back(t->name);
  return names;
}

using Names = std::vector<std::string>;

}  // namespace

TEST_CASE("an instance type carries its well-known labels as requirements", "[catalog]") {
  Catalog c = load_catalog(fixture_dir("small"));
  Labels g5 = c.find("g5.12xlarge")->requirements.single_valued_labels();
  CHECK(g5.at("node.kubernetes.io/instance-type") == "g5.12xlarge");
  CHECK(g5.at("kubernetes.io/arch") == "amd64");
  CHECK(g5.at("kubernetes.io/os") == "linux");
  CHECK(g5.at("karpenter.k8s.aws/instance-category") == "g");
  CHECK(g5.at("karpenter.k8s.aws/instance-family") == "g5");
  CHECK(g5.at("karpenter.k8s.aws/instance-generation") == "5");
  CHECK(g5.at("karpenter.k8s.aws/instance-size") == "12xlarge");
  CHECK(g5.at("karpenter.k8s.aws/instance-cpu") == "48");
  CHECK(g5.at("karpenter.k8s.aws/instance-memory") == "196608");
  CHECK(g5.at("karpenter.k8s.aws/instance-network-bandwidth") == "40000");
  CHECK(g5.at("karpenter.k8s.aws/instance-gpu-name") == "a10g");
  CHECK(g5.at("karpenter.k8s.aws/instance-gpu-manufacturer") == "nvidia");
  CHECK(g5.at("karpenter.k8s.aws/instance-gpu-count") == "4");
  CHECK(g5.at("karpenter.k8s.aws/instance-gpu-memory") == "22888");
  // Offered in one zone, both capacity types: these are sets, not single values.
  CHECK(g5.at("topology.kubernetes.io/zone") == "us-east-1a");
  const Requirement* ct = c.find("g5.12xlarge")->requirements.get(label::kCapacityType);
  REQUIRE(ct);
  CHECK(ct->values() == std::vector<std::string>{"on-demand", "spot"});
  const Requirement* zones = c.find("m5.xlarge")->requirements.get(label::kZone);
  CHECK(zones->values() == std::vector<std::string>{"us-east-1a", "us-east-1b"});

  const InstanceType* m5 = c.find("m5.xlarge");
  for (auto key :
       {label::kGpuName, label::kGpuCount, label::kGpuMemory, label::kGpuManufacturer,
        label::kAcceleratorName, label::kAcceleratorCount, label::kAcceleratorManufacturer}) {
    INFO(key);
    REQUIRE(m5->requirements.get(key));
    CHECK(m5->requirements.get(key)->effective_operator() == Operator::DoesNotExist);
  }
  Labels m5l = m5->requirements.single_valued_labels();
  CHECK(m5l.at("karpenter.k8s.aws/instance-network-bandwidth") == "1250");
  CHECK(m5l.count("karpenter.k8s.aws/instance-gpu-count") == 0);

  Labels inf2 = c.find("inf2.xlarge")->requirements.single_valued_labels();
  CHECK(inf2.at("karpenter.k8s.aws/instance-accelerator-name") == "inferentia2");
  CHECK(inf2.at("karpenter.k8s.aws/instance-accelerator-manufacturer") == "aws");
  CHECK(inf2.at("karpenter.k8s.aws/instance-accelerator-count") == "1");
  CHECK(inf2.at("karpenter.k8s.aws/instance-network-bandwidth") == "2083");
  CHECK(inf2.count("karpenter.k8s.aws/instance-gpu-name") == 0);

  // A fractional GPU keeps its GPU labels with count 0, as Karpenter publishes them.
  Labels g6f = c.find("g6f.large")->requirements.single_valued_labels();
  CHECK(g6f.at("karpenter.k8s.aws/instance-gpu-name") == "l4");
  CHECK(g6f.at("karpenter.k8s.aws/instance-gpu-count") == "0");
}

TEST_CASE("GPU names in words become lower kebab case", "[catalog]") {
  CHECK(lower_kebab_case("Radeon Pro V520") == "radeon-pro-v520");
  CHECK(accelerator_manufacturer_for("Inferentia") == "aws");
  CHECK(accelerator_manufacturer_for("qualcomm-ai100") == "qualcomm");
  CHECK(accelerator_manufacturer_for("mystery") == "");
}

TEST_CASE("filters select types by label conditions", "[catalog]") {
  Catalog c = load_catalog(fixture_dir("small"));
  CHECK(select(c, "family=g5") == Names{"g5.12xlarge", "g5.xlarge"});
  CHECK(select(c, "gpu-name=a10g|h100") == Names{"g5.12xlarge", "g5.xlarge", "p5.48xlarge"});
  CHECK(select(c, "gpu-count>=4") == Names{"dl1.24xlarge", "g5.12xlarge", "p5.48xlarge"});
  CHECK(select(c, "gpu-count>4") == Names{"dl1.24xlarge", "p5.48xlarge"});
  CHECK(select(c, "gpu-count<2") == Names{"g4ad.xlarge", "g5.xlarge", "g6f.large"});
  CHECK(select(c, "cpu>=8,cpu<=48,arch=amd64") == Names{"g5.12xlarge", "trn1.2xlarge"});
  CHECK(select(c, "vcpu=4, category!=g|inf") == Names{"m5.xlarge"});
  CHECK(select(c, "arch=arm64") == Names{"m7g.large"});
  CHECK(select(c, "memory>=16Gi,memory<32768,gpu-manufacturer=nvidia") == Names{"g5.xlarge"});
  CHECK(select(c, "capacity-type=spot,zone=us-east-1b") == Names{"g5.xlarge", "m5.xlarge"});
  CHECK(select(c, "karpenter.k8s.aws/instance-accelerator-name=trainium") == Names{"trn1.2xlarge"});
  CHECK(select(c, "accelerator-count") == Names{"inf2.xlarge", "trn1.2xlarge"});
  CHECK(select(c, "!gpu-name,!accelerator-name,cpu<4") == Names{"m7g.large", "t3.nano"});
  CHECK(select(c, "type=m5.xlarge") == Names{"m5.xlarge"});
  CHECK(select(c, "gpu-memory>=80Gi") == Names{"p5.48xlarge"});
  CHECK(select(c, "network-bandwidth>1000,generation<=2") ==
        Names{"dl1.24xlarge", "inf2.xlarge", "trn1.2xlarge"});
  CHECK(select(c, "network-bandwidth>=400000") == Names{"dl1.24xlarge", "p5.48xlarge"});
  CHECK(select(c, "family=m5,cpu>4") == Names{});
  // NotIn on a label the type lacks passes, as in Karpenter (two negatives never conflict).
  CHECK(select(c, "gpu-name!=a10g,cpu=4") == Names{"g4ad.xlarge", "inf2.xlarge", "m5.xlarge"});
}

TEST_CASE("the --gpu flag keeps types with GPUs or accelerators", "[catalog]") {
  Catalog c = load_catalog(fixture_dir("small"));
  CHECK(select(c, "cpu<=4", true) == Names{"g4ad.xlarge", "g5.xlarge", "g6f.large", "inf2.xlarge"});
}

TEST_CASE("filter conditions become requirements with the matching operator", "[catalog]") {
  CatalogFilter f = parse_catalog_filter("gpu-count>=4,family=g5|p5,zone!=us-east-1c");
  const Requirement* count = f.requirements.get(label::kGpuCount);
  REQUIRE(count);
  CHECK(count->allows("4"));
  CHECK(count->allows("8"));
  CHECK_FALSE(count->allows("3"));
  CHECK(*f.requirements.get(label::kInstanceFamily) ==
        Requirement::make(Operator::In, {"g5", "p5"}));
  CHECK(*f.requirements.get(label::kZone) == Requirement::make(Operator::NotIn, {"us-east-1c"}));
  CHECK(f.required_keys.count(std::string(label::kGpuCount)) == 1);
  CHECK(f.required_keys.count(std::string(label::kZone)) == 0);
}

TEST_CASE("a bad filter expression is a ConfigError on --filter", "[catalog]") {
  struct Case {
    std::string expr;
    int col;
    std::string message;
  };
  auto [expr, col, message] = GENERATE(values<Case>({
      {"", 1, "empty filter expression"},
      {"family=g5,,cpu=4", 11, "empty condition (two commas in a row, or a comma at an end)"},
      {"family=g5,", 11, "empty condition (two commas in a row, or a comma at an end)"},
      {"colour=red", 1,
       "unknown key \"colour\"; use one of type, family, category, generation, size, arch, os, "
       "cpu, vcpu, "
       "memory, network-bandwidth, gpu-name, gpu-manufacturer, gpu-count, gpu-memory, "
       "accelerator-name, "
       "accelerator-manufacturer, accelerator-count, capacity-type, zone or the full label name"},
      {"gpu-count>=many", 12, "\"many\" is not a non-negative whole number"},
      {"cpu>-1", 5, "\"-1\" is not a non-negative whole number"},
      {"family>=5", 1, "\"family>=5\": '>=' compares numbers, and family is not numeric"},
      {"family=", 8, "\"family=\": missing value after '='"},
      {"=g5", 1, "\"=g5\": missing key before '='"},
      {"gpu-name=a10g||t4", 15, "\"gpu-name=a10g||t4\": empty value in a '|' list"},
      {"cpu>=4|8", 6, "\"cpu>=4|8\": '>=' takes one value"},
      {"memory>=1.5Mi", 9, "\"1.5Mi\" is not a whole number of MiB (write 16384 or 16Gi)"},
      {"!family=g5", 1, "\"!family=g5\": '!' negates a bare key only"},
      {"cpu!4", 4, "\"cpu!4\": '!' must be followed by '='"},
      {"karpenter.k8s.aws/instance-hypervisor=nitro", 1,
       "unknown key \"karpenter.k8s.aws/instance-hypervisor\"; use one of type, family, category, "
       "generation, "
       "size, arch, os, cpu, vcpu, memory, network-bandwidth, gpu-name, gpu-manufacturer, "
       "gpu-count, "
       "gpu-memory, accelerator-name, accelerator-manufacturer, accelerator-count, capacity-type, "
       "zone or "
       "the full label name"},
  }));
  INFO(expr);
  try {
    parse_catalog_filter(expr);
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    CHECK(e.field() == "--filter");
    CHECK(e.where().col == col);
    CHECK(e.message() == message);
  }
}
