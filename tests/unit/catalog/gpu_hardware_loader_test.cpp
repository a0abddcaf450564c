#include "fleetsim/catalog/gpu_hardware_loader.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "catalog_test_util.hpp"
#include "fleetsim/catalog/catalog_loader.hpp"
#include "fleetsim/core/error.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

constexpr std::string_view kG5Types =
    "g5.xlarge,g5,g,5,xlarge,amd64,4,16384,1,a10g,nvidia,22888,,0,10,58\n"
    "g5.12xlarge,g5,g,5,12xlarge,amd64,48,196608,4,a10g,nvidia,22888,,0,40,234\n";
constexpr std::string_view kG5Offers =
    "g5.xlarge,us-east-1a,on-demand,1.006,,\n"
    "g5.12xlarge,us-east-1a,on-demand,5.672,,\n";
constexpr std::string_view kHardwareHeader =
    "gpu_name,gpu_memory_mib,usable_memory_mib,memory_bandwidth_gb_s,bf16_tflops,fp16_tflops,"
    "fp8_tflops,int8_tops,source\n";
constexpr std::string_view kA10gRow = "A10G,22888,23028,600,70,70,0,250,a datasheet\n";
constexpr std::string_view kLinkHeader = "instance_type,kind,bandwidth_gb_s,latency_us,source\n";
constexpr std::string_view kG5Link = "g5.12xlarge,pcie,20,30,a note\n";

// A g5 catalog with the two GPU tables as given (nullopt: the file is not written).
struct G5Catalog {
  TempCatalog c{std::string(kTypesHeader) + std::string(kG5Types),
                std::string(kOfferingsHeader) + std::string(kG5Offers)};
  G5Catalog(std::optional<std::string> hardware, std::optional<std::string> links) {
    if (hardware) std::ofstream(c.dir() / kGpuHardwareFile, std::ios::binary) << *hardware;
    if (links) std::ofstream(c.dir() / kGpuInterconnectFile, std::ios::binary) << *links;
  }
};

CatalogError load_error(const std::filesystem::path& dir) {
  try {
    load_catalog(dir);
  } catch (const CatalogError& e) {
    return e;
  }
  FAIL("expected a CatalogError");
  return CatalogError({}, "", "unreachable");
}

}  // namespace

TEST_CASE("the bundled catalog gives p5.48xlarge H100s on NVSwitch", "[catalog]") {
  Catalog c = load_catalog(bundled_catalog_dir());
  const InstanceType* p5 = c.find("p5.48xlarge");
  REQUIRE(p5);
  REQUIRE(p5->gpu_hardware);
  const GpuHardware& h100 = *p5->gpu_hardware;
  CHECK(h100.name == "h100");
  CHECK(h100.memory_bytes == 81559 * kMib);
  CHECK(h100.memory_bandwidth == 3350e9);
  CHECK(h100.bf16_flops == 989e12);
  CHECK(h100.fp16_flops == 989e12);
  CHECK(h100.fp8_flops == 1979e12);
  CHECK(h100.int8_ops == 1979e12);
  CHECK(p5->gpu_interconnect.kind == InterconnectKind::NvSwitch);
  CHECK(p5->gpu_interconnect.bandwidth == 450e9);
  CHECK(p5->gpu_interconnect.latency_s == 10 * 1e-6);
  // One H100: the same GPU, nothing to reduce over.
  const InstanceType* p5_small = c.find("p5.4xlarge");
  REQUIRE(p5_small);
  REQUIRE(p5_small->gpu_hardware);
  CHECK(p5_small->gpu_hardware->memory_bandwidth == 3350e9);
  CHECK(p5_small->gpu_interconnect.kind == InterconnectKind::None);
  CHECK(p5_small->gpu_interconnect.bandwidth == 0);
}

TEST_CASE("p4d and p4de tell the 40 GB A100 from the 80 GB one by their memory", "[catalog]") {
  Catalog c = load_catalog(bundled_catalog_dir());
  const InstanceType* p4d = c.find("p4d.24xlarge");
  const InstanceType* p4de = c.find("p4de.24xlarge");
  REQUIRE(p4d);
  REQUIRE(p4de);
  REQUIRE(p4d->gpu_hardware);
  REQUIRE(p4de->gpu_hardware);
  CHECK(p4d->gpu_hardware->name == "a100");
  CHECK(p4de->gpu_hardware->name == "a100");
  CHECK(p4d->gpu_hardware->memory_bandwidth == 1555e9);
  CHECK(p4de->gpu_hardware->memory_bandwidth == 2039e9);
  CHECK(p4d->gpu_hardware->memory_bytes == 40960 * kMib);
  CHECK(p4de->gpu_hardware->memory_bytes == 81920 * kMib);
  // Ampere: BF16 tensor cores, no FP8.
  CHECK(p4d->gpu_hardware->bf16_flops == 312e12);
  CHECK(p4d->gpu_hardware->fp8_flops == 0);
  for (const InstanceType* t : {p4d, p4de}) {
    CHECK(t->gpu_interconnect.kind == InterconnectKind::NvSwitch);
    CHECK(t->gpu_interconnect.bandwidth == 300e9);
  }
}

TEST_CASE("g5 A10Gs talk over PCIe, a single one over nothing", "[catalog]") {
  Catalog c = load_catalog(bundled_catalog_dir());
  const InstanceType* g5_12 = c.find("g5.12xlarge");
  const InstanceType* g5_1 = c.find("g5.xlarge");
  const InstanceType* g5_48 = c.find("g5.48xlarge");
  REQUIRE(g5_12);
  REQUIRE(g5_1);
  REQUIRE(g5_48);
  CHECK(g5_12->gpu_interconnect.kind == InterconnectKind::Pcie);
  CHECK(g5_12->gpu_interconnect.bandwidth == 20e9);
  CHECK(g5_12->gpu_interconnect.latency_s == 30 * 1e-6);
  // Eight GPUs span both root complexes: a slower collective.
  CHECK(g5_48->gpu_interconnect.latency_s == 40 * 1e-6);
  CHECK(g5_1->gpu_interconnect.kind == InterconnectKind::None);
  REQUIRE(g5_1->gpu_hardware);
  const GpuHardware& a10g = *g5_1->gpu_hardware;
  CHECK(a10g.name == "a10g");
  CHECK(a10g.memory_bytes == 23028 * kMib);
  CHECK(a10g.memory_bandwidth == 600e9);
  CHECK(a10g.bf16_flops == 70e12);  // chosen by a measurement: see the catalog README
  CHECK(a10g.fp8_flops == 0);
}

TEST_CASE("GPUs without figures and accelerators have no hardware", "[catalog]") {
  Catalog c = load_catalog(bundled_catalog_dir());
  const InstanceType* g4dn = c.find("g4dn.xlarge");
  REQUIRE(g4dn);
  REQUIRE(g4dn->gpu_hardware);
  CHECK(g4dn->gpu_hardware->bf16_flops == 0);  // Turing: FP16 tensor cores only
  CHECK(g4dn->gpu_hardware->fp16_flops == 65e12);
  for (const char* name : {"p3.8xlarge", "inf2.48xlarge", "trn1.32xlarge", "m5.large"}) {
    INFO(name);
    const InstanceType* t = c.find(name);
    REQUIRE(t);
    CHECK_FALSE(t->gpu_hardware);
    CHECK(t->gpu_interconnect.kind == InterconnectKind::None);
  }
  // The small fixture has no GPU tables at all.
  Catalog small = load_catalog(fixture_dir("small"));
  for (const InstanceType& t : small.types()) {
    INFO(t.name);
    CHECK_FALSE(t.gpu_hardware);
    CHECK(t.gpu_interconnect.kind == InterconnectKind::None);
  }
}

TEST_CASE("a GPU row matches on name and per-GPU memory", "[catalog]") {
  G5Catalog g5(std::string(kHardwareHeader) + "a10g,40960,40960,600,70,70,0,250,x\n", {});
  Catalog c = load_catalog(g5.c.dir());
  CHECK_FALSE(c.find("g5.xlarge")->gpu_hardware);

  G5Catalog matched(std::string(kHardwareHeader) + std::string(kA10gRow),
                    std::string(kLinkHeader) + std::string(kG5Link));
  Catalog m = load_catalog(matched.c.dir());
  REQUIRE(m.find("g5.xlarge")->gpu_hardware);
  CHECK(m.find("g5.xlarge")->gpu_hardware->int8_ops == 250e12);
  CHECK(m.find("g5.12xlarge")->gpu_interconnect.kind == InterconnectKind::Pcie);
}

TEST_CASE("a malformed GPU table row names file, line, column and field", "[catalog]") {
  struct Case {
    bool hardware;  // which file the bad row is in
    std::string row;
    int col;
    std::string field;
    std::string message;
  };
  auto [hardware, row, col, field, message] = GENERATE(values<Case>({
      {true, "l4,22888,23034,fast,121,121,242,242,x", 16, "memory_bandwidth_gb_s",
       "expected a number, got \"fast\""},
      {true, "l4,22888,23034,300,-121,121,242,242,x", 20, "bf16_tflops",
       "must not be negative (got -121)"},
      {true, "l4,22888,23034,0,121,121,242,242,x", 16, "memory_bandwidth_gb_s",
       "must be greater than 0"},
      {true, "l4,22888,23034,300,121,121,242,9e9,x", 32, "int8_tops",
       "9e9 is too large (at most 100000)"},
      {true, "a10g,22888,23028,600,70,70,0,250,again", 1, "gpu_name",
       "duplicate GPU a10g with 22888 MiB (first on line 2)"},
      {true, "l4,22888,23034,300,0,0,242,242,x", 22, "fp16_tflops",
       "and bf16_tflops are both 0: a GPU the serving model can use has a 16-bit tensor peak"},
      {false, "g5.12xlarge,nvlink,20,30,x", 13, "kind",
       "\"nvlink\" is not an interconnect kind; expected pcie or nvswitch"},
      {false, "g5.xlarge,pcie,20,30,x", 1, "instance_type",
       "g5.xlarge has 1 GPU: an interconnect needs at least two"},
      {false, "p5.48xlarge,nvswitch,450,10,x", 1, "instance_type",
       "unknown instance type \"p5.48xlarge\" (not in instance-types.csv)"},
      {false, "g5.12xlarge,pcie,20,30,again", 1, "instance_type",
       "duplicate instance type \"g5.12xlarge\" (first on line 2)"},
  }));
  // Line 3 of its file in every case, after one good row.
  const std::string hw = std::string(kHardwareHeader) + std::string(kA10gRow);
  const std::string links = std::string(kLinkHeader) + std::string(kG5Link);
  G5Catalog g5(hardware ? hw + row + "\n" : hw, hardware ? links : links + row + "\n");
  const CatalogError e = load_error(g5.c.dir());
  INFO(e.what());
  CHECK(e.where().file == g5.c.file(hardware ? kGpuHardwareFile : kGpuInterconnectFile));
  CHECK(e.where().line == 3);
  CHECK(e.where().col == col);
  CHECK(e.field() == field);
  CHECK(e.message() == message);
}
