#include "fleetsim/scenario/input_digest.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <system_error>

#include "fleetsim/catalog/catalog_loader.hpp"

namespace fleetsim {

namespace {

// FNV-1a, 64 bits: a change detector, not a cryptographic hash.
std::string digest_of(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw InputError(SourceLocation{.file = path.string()}, "inputs",
                     "cannot be read again to record its digest");
  std::uint64_t h = 0xcbf29ce484222325ULL;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    for (std::streamsize i = 0; i < in.gcount(); ++i) {
      h ^= static_cast<unsigned char>(buffer[i]);
      h *= 0x100000001b3ULL;
    }
  }
  return fmt::format("fnv1a64:{:016x}", h);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> input_digests(const ScenarioConfig& config) {
  auto absolute = [](const std::filesystem::path& p) {
    std::error_code ec;  // no working directory: names stay as given
    const std::filesystem::path a = std::filesystem::absolute(p, ec);
    return (ec ? p : a).lexically_normal();
  };
  const std::filesystem::path base = absolute(config.file).parent_path();
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::filesystem::path& p : config.input_files)
    out.emplace_back(absolute(p).lexically_relative(base).generic_string(), digest_of(p));
  for (std::string_view name : {kInstanceTypesFile, kOfferingsFile})
    out.emplace_back(fmt::format("catalog/{}", name), digest_of(config.catalog_dir / name));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace fleetsim
