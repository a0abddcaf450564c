// The catalog loader: an input is split at its first form feed into instance-types.csv and
// offerings.csv, written into a scratch catalog folder and loaded, as `--catalog DIR` or a
// scenario's `catalog:` would load them.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "fleetsim/catalog/catalog_loader.hpp"
#include "fuzz_contract.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fleetsim;
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() /
             ("fleetsim-fuzz-catalog-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  const std::string_view text = fuzz::text_of(data, size);
  const std::size_t split = text.find('\f');
  const std::string_view types = text.substr(0, split);
  const std::string_view offerings =
      split == std::string_view::npos ? std::string_view() : text.substr(split + 1);
  std::ofstream(dir / kInstanceTypesFile, std::ios::binary | std::ios::trunc)
      .write(types.data(), static_cast<std::streamsize>(types.size()));
  std::ofstream(dir / kOfferingsFile, std::ios::binary | std::ios::trunc)
      .write(offerings.data(), static_cast<std::streamsize>(offerings.size()));
  fuzz::expect_result_or_located_error([&] { load_catalog(dir); });
  return 0;
}
