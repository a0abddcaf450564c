#include <cstdlib>
#include <system_error>

#include "fleetsim/cli/commands.hpp"

namespace fleetsim {

std::filesystem::path bundled_catalog_root() {
  if (const char* env = std::getenv("FLEETSIM_CATALOG_ROOT"); env != nullptr && *env != '\0')
    return env;
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    // build/release/fleetsim and an installed bin/fleetsim both find the folder a few levels up.
    for (std::filesystem::path dir = exe.parent_path(); !dir.empty() && dir != dir.root_path();
         dir = dir.parent_path()) {
      if (std::filesystem::is_directory(dir / "instance-catalog", ec))
        return dir / "instance-catalog";
    }
  }
  return std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog";
}

}  // namespace fleetsim
