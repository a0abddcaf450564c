// Builders and paths shared by the catalog tests.
#pragma once

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

#include "fleetsim/catalog/aws_node_sizing.hpp"
#include "fleetsim/catalog/catalog.hpp"
#include "fleetsim/core/quantity.hpp"

namespace fleetsim::test {

inline std::filesystem::path source_dir() { return FLEETSIM_SOURCE_DIR; }
inline std::filesystem::path fixture_dir(std::string_view name) {
  return source_dir() / "tests/unit/catalog/fixtures" / name;
}
inline std::filesystem::path bundled_catalog_dir() {
  return source_dir() / "instance-catalog/aws/us-east-1";
}

// The §6 header, for catalogs written inline.
inline constexpr std::string_view kTypesHeader =
    "instance_type,family,category,generation,size,arch,vcpu,memory_mib,gpu_count,gpu_name,"
    "gpu_manufacturer,gpu_memory_mib,accelerator_name,accelerator_count,network_gbps,max_pods\n";
inline constexpr std::string_view kOfferingsHeader =
    "instance_type,zone,capacity_type,price_usd_per_hour,interruption_bucket,capacity\n";
inline constexpr std::string_view kM5Row =
    "m5.xlarge,m5,m,5,xlarge,amd64,4,16384,0,,,,,0,1.25,58\n";
inline constexpr std::string_view kM5Offer = "m5.xlarge,us-east-1a,on-demand,0.192,,\n";

// A catalog directory under the system temp dir, removed when the object goes away. A file given
// as nullopt is not written.
class TempCatalog {
 public:
  TempCatalog(std::optional<std::string_view> types_csv,
              std::optional<std::string_view> offerings_csv) {
    static std::atomic<int> counter{0};
    dir_ =
        std::filesystem::temp_directory_path() /
        ("fleetsim-catalog-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::create_directories(dir_);
    if (types_csv) write("instance-types.csv", *types_csv);
    if (offerings_csv) write("offerings.csv", *offerings_csv);
  }
  ~TempCatalog() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  TempCatalog(const TempCatalog&) = delete;
  TempCatalog& operator=(const TempCatalog&) = delete;

  const std::filesystem::path& dir() const { return dir_; }
  std::string file(std::string_view name) const { return (dir_ / name).string(); }

 private:
  void write(std::string_view name, std::string_view text) {
    std::ofstream out(dir_ / name, std::ios::binary);
    out << text;
  }
  std::filesystem::path dir_;
};

// What a test says about an instance type; the rest is derived or defaulted.
struct TypeSpec {
  std::string name = "m5.xlarge";
  std::string arch = "amd64";
  int vcpu = 4;
  std::int64_t memory_mib = 16384;
  int max_pods = 58;
  int gpu_count = 0;
  std::string gpu_name{};
  std::string gpu_manufacturer = "nvidia";
  std::int64_t gpu_memory_mib = 0;
  std::string accelerator_name{};
  int accelerator_count = 0;
  double network_gbps = 0;
};

// A sized type with one on-demand offering in us-east-1a; family and size come from the name.
inline InstanceType make_type(const TypeSpec& s, const KubeletSizing& kubelet = {}) {
  InstanceType t;
  t.name = s.name;
  auto dot = s.name.find('.');
  t.family = s.name.substr(0, dot);
  t.size = s.name.substr(dot + 1);
  t.category = t.family.substr(0, 1);
  t.generation = 5;
  t.arch = s.arch;
  t.vcpu = s.vcpu;
  t.memory_mib = s.memory_mib;
  t.max_pods = s.max_pods;
  t.gpu_count = s.gpu_count;
  t.gpu_name = s.gpu_name;
  if (!s.gpu_name.empty()) t.gpu_manufacturer = s.gpu_manufacturer;
  t.gpu_memory_mib = s.gpu_memory_mib;
  t.accelerator_name = s.accelerator_name;
  t.accelerator_count = s.accelerator_count;
  t.network_gbps = s.network_gbps;
  t.offerings.push_back(Offering{.zone = "us-east-1a", .price_per_hour = 1.0});
  apply_aws_sizing(t, kubelet);
  return t;
}

}  // namespace fleetsim::test
