#include "fleetsim/catalog/aws_node_sizing.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "catalog_test_util.hpp"
#include "fleetsim/catalog/catalog_loader.hpp"
#include "fleetsim/core/csv_reader.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

std::int64_t alloc_mib(const InstanceType& t) { return t.allocatable.memory_bytes() / kMib; }

}  // namespace

TEST_CASE("m5.xlarge is sized as Karpenter's worked example", "[catalog]") {
  InstanceType t = make_type({.name = "m5.xlarge", .vcpu = 4, .memory_mib = 16384, .max_pods = 58});
  // 16384 − ceil(16384 × 0.075) = 16384 − 1229.
  CHECK(t.capacity.memory_bytes() == 15155 * kMib);
  CHECK(t.capacity.cpu_millis() == 4000);
  CHECK(t.capacity.pods() == 58);
  CHECK(t.capacity[resource::kEphemeralStorage] == 20 * kGib);
  CHECK(t.allocatable.cpu_millis() == 3920);
  CHECK(alloc_mib(t) == 14162);
  CHECK(t.allocatable.memory_bytes() % kMib == 0);
  CHECK(t.allocatable.pods() == 58);
  // 20Gi − 1Gi kube-reserved − 10% nodefs eviction: Karpenter's docs list 17 GiB.
  CHECK(t.allocatable[resource::kEphemeralStorage] == 17 * kGib);
  CHECK(t.allocatable.gpus() == 0);
}

TEST_CASE("the sizing parts add up: capacity minus reserved and eviction is allocatable",
          "[catalog]") {
  NodeSizing s = compute_node_sizing({.vcpu = 4, .memory_mib = 16384, .eni_max_pods = 58});
  CHECK(s.kube_reserved.cpu_millis() == 80);
  CHECK(s.kube_reserved.memory_bytes() == (11 * 58 + 255) * kMib);
  CHECK(s.kube_reserved[resource::kEphemeralStorage] == kGib);
  CHECK(s.eviction_threshold.memory_bytes() == 100 * kMib);
  CHECK(s.eviction_threshold[resource::kEphemeralStorage] == 2 * kGib);
  CHECK(s.system_reserved.is_zero());
  CHECK(s.allocatable == s.capacity - s.kube_reserved - s.eviction_threshold);
}

TEST_CASE("kube-reserved CPU takes a falling share of each core", "[catalog]") {
  auto reserved = [](int vcpu) {
    return compute_node_sizing({.vcpu = vcpu, .memory_mib = 4096, .eni_max_pods = 10})
        .kube_reserved.cpu_millis();
  };
  CHECK(reserved(1) == 60);  // 6% of the first core
  CHECK(reserved(2) == 70);  // + 1% of the second
  CHECK(reserved(3) == 75);  // + 0.5% of the third
  CHECK(reserved(4) == 80);  // + 0.5% of the fourth
  CHECK(reserved(6) == 85);  // + 0.25% of each core above four
  CHECK(reserved(96) == 310);
  CHECK(reserved(192) == 550);
}

TEST_CASE("GPU types advertise their device-plugin resources", "[catalog]") {
  SECTION("g5.xlarge: one NVIDIA A10G, same allocatable as m5.xlarge") {
    InstanceType t =
        make_type({.name = "g5.xlarge", .max_pods = 58, .gpu_count = 1, .gpu_name = "a10g"});
    CHECK(t.capacity[resource::kNvidiaGpu] == 1);
    CHECK(t.allocatable[resource::kNvidiaGpu] == 1);
    CHECK(t.allocatable.cpu_millis() == 3920);
    CHECK(alloc_mib(t) == 14162);
  }
  SECTION("g5.12xlarge: 737 pods") {
    InstanceType t = make_type({.name = "g5.12xlarge",
                                .vcpu = 48,
                                .memory_mib = 196608,
                                .max_pods = 737,
                                .gpu_count = 4,
                                .gpu_name = "a10g"});
    CHECK(t.allocatable.pods() == 737);
    CHECK(t.allocatable.cpu_millis() == 47810);
    CHECK(alloc_mib(t) == 173400);
    CHECK(t.allocatable[resource::kNvidiaGpu] == 4);
  }
  SECTION("p5.48xlarge: 100 pods (two ENIs on the default card)") {
    InstanceType t = make_type({.name = "p5.48xlarge",
                                .vcpu = 192,
                                .memory_mib = 2097152,
                                .max_pods = 100,
                                .gpu_count = 8,
                                .gpu_name = "h100"});
    CHECK(t.allocatable.pods() == 100);
    CHECK(t.allocatable.cpu_millis() == 191450);
    CHECK(alloc_mib(t) == 1938410);
    CHECK(t.allocatable[resource::kNvidiaGpu] == 8);
  }
  SECTION("AMD and Habana GPUs use their own resource names") {
    InstanceType amd = make_type({.name = "g4ad.xlarge",
                                  .max_pods = 8,
                                  .gpu_count = 1,
                                  .gpu_name = "radeon-pro-v520",
                                  .gpu_manufacturer = "amd"});
    CHECK(amd.allocatable[resource::kAmdGpu] == 1);
    CHECK(amd.allocatable[resource::kNvidiaGpu] == 0);
    CHECK(alloc_mib(amd) == 14712);
    InstanceType dl1 = make_type({.name = "dl1.24xlarge",
                                  .vcpu = 96,
                                  .memory_mib = 786432,
                                  .max_pods = 737,
                                  .gpu_count = 8,
                                  .gpu_name = "gaudi-hl-205",
                                  .gpu_manufacturer = "habana"});
    CHECK(dl1.allocatable[resource::kGaudi] == 8);
    CHECK(dl1.allocatable[resource::kNvidiaGpu] == 0);
    CHECK(dl1.allocatable.cpu_millis() == 95690);
    CHECK(alloc_mib(dl1) == 718987);
  }
  SECTION("a fractional GPU (g6f) advertises no whole nvidia.com/gpu") {
    InstanceType t = make_type({.name = "g6f.large",
                                .vcpu = 2,
                                .memory_mib = 8192,
                                .max_pods = 20,
                                .gpu_count = 0,
                                .gpu_name = "l4"});
    CHECK(t.allocatable.gpus() == 0);
    CHECK(alloc_mib(t) == 7002);
  }
}

TEST_CASE("Neuron types advertise devices and cores", "[catalog]") {
  InstanceType inf2 =
      make_type({.name = "inf2.xlarge", .accelerator_name = "inferentia2", .accelerator_count = 1});
  CHECK(inf2.allocatable[resource::kNeuron] == 1);
  CHECK(inf2.allocatable[resource::kNeuronCore] == 2);
  InstanceType inf1 = make_type({.name = "inf1.24xlarge",
                                 .vcpu = 96,
                                 .memory_mib = 196608,
                                 .max_pods = 321,
                                 .accelerator_name = "inferentia",
                                 .accelerator_count = 16});
  CHECK(inf1.allocatable[resource::kNeuronCore] == 64);
  InstanceType trn1 = make_type({.name = "trn1.2xlarge",
                                 .vcpu = 8,
                                 .memory_mib = 32768,
                                 .max_pods = 58,
                                 .accelerator_name = "trainium",
                                 .accelerator_count = 1});
  CHECK(trn1.allocatable[resource::kNeuron] == 1);
  CHECK(trn1.allocatable[resource::kNeuronCore] == 2);
  CHECK(trn1.allocatable.cpu_millis() == 7910);
  CHECK(alloc_mib(trn1) == 29317);
  CHECK(neuron_cores_per_device("trainium2") == 8);
  // Qualcomm's cards (dl2q) have no Neuron device plugin.
  InstanceType dl2q = make_type({.name = "dl2q.24xlarge",
                                 .vcpu = 96,
                                 .memory_mib = 786432,
                                 .max_pods = 737,
                                 .accelerator_name = "qualcomm-ai100",
                                 .accelerator_count = 8});
  CHECK(dl2q.allocatable.gpus() == 0);
}

TEST_CASE("arm64 types lose 64 MiB to Graviton's CMA before the VM overhead", "[catalog]") {
  InstanceType t = make_type(
      {.name = "m7g.large", .arch = "arm64", .vcpu = 2, .memory_mib = 8192, .max_pods = 29});
  // (8192 − 64) − ceil(8128 × 0.075) = 8128 − 610.
  CHECK(t.capacity.memory_bytes() == 7518 * kMib);
  CHECK(t.allocatable.cpu_millis() == 1930);
  CHECK(alloc_mib(t) == 6844);
  InstanceType nano = make_type({.name = "t3.nano", .vcpu = 2, .memory_mib = 512, .max_pods = 4});
  CHECK(alloc_mib(nano) == 74);
}

TEST_CASE("kubelet maxPods and podsPerCore change pods, AL2023 keeps ENI-based kube-reserved",
          "[catalog]") {
  TypeSpec m5{.name = "m5.xlarge"};
  SECTION("AL2023 with maxPods 110: more pods, same reserved memory") {
    InstanceType t = make_type(m5, {.max_pods = 110});
    CHECK(t.allocatable.pods() == 110);
    CHECK(alloc_mib(t) == 14162);
  }
  SECTION("Bottlerocket with maxPods 110: reserved memory follows maxPods") {
    InstanceType t = make_type(m5, {.max_pods = 110, .ami_family = AmiFamily::Bottlerocket});
    CHECK(t.allocatable.pods() == 110);
    CHECK(alloc_mib(t) == 15155 - (11 * 110 + 255) - 100);
  }
  SECTION("podsPerCore caps pods on AL2023 and is ignored by Bottlerocket") {
    CHECK(make_type(m5, {.pods_per_core = 10}).allocatable.pods() == 40);
    CHECK(make_type(m5, {.pods_per_core = 20}).allocatable.pods() == 58);
    CHECK(make_type(m5, {.pods_per_core = 10, .ami_family = AmiFamily::Bottlerocket})
              .allocatable.pods() == 58);
  }
  SECTION("a bigger root volume gives more ephemeral storage") {
    InstanceType t = make_type(m5, {.root_volume_bytes = 100 * kGib});
    CHECK(t.allocatable[resource::kEphemeralStorage] == 100 * kGib - kGib - 10 * kGib);
  }
}

TEST_CASE("sizing reproduces Karpenter's published allocatable for every bundled type",
          "[catalog]") {
  std::filesystem::path ref = bundled_catalog_dir() / "allocatable-reference.csv";
  if (!std::filesystem::exists(ref)) {
    WARN("no bundled allocatable-reference.csv; skipped");
    return;
  }
  Catalog catalog = load_catalog(bundled_catalog_dir());
  CsvReader csv(ref, {.noun = "catalog table", .input = CsvInput::Catalog});
  REQUIRE(csv.header() == std::vector<std::string>{"instance_type", "max_pods",
                                                   "alloc_cpu_millicores", "alloc_memory_mib"});
  int rows = 0;
  while (csv.next_row()) {
    const std::string_view name = csv.field(0);
    INFO(name);
    const InstanceType* t = catalog.find(name);
    REQUIRE(t != nullptr);
    CHECK(t->allocatable.pods() == csv.integer(1, 0, 1'000'000));
    CHECK(t->allocatable.cpu_millis() == csv.integer(2, 0, 1'000'000'000));
    CHECK(t->allocatable.memory_bytes() == csv.integer(3, 0, 1'000'000'000) * kMib);
    ++rows;
  }
  CHECK(rows == static_cast<int>(catalog.types().size()));
}
