#include "fleetsim/core/input_file.hpp"

#include <cerrno>
#include <system_error>

namespace fleetsim {

std::optional<std::string> not_a_regular_file(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status target = fs::status(path, ec);
  if (ec && ec.value() == ELOOP) return "symlink loop";
  if (!fs::exists(target)) {
    const fs::file_status link = fs::symlink_status(path, ec);
    return fs::is_symlink(link) ? "dangling symlink" : "file not found";
  }
  if (fs::is_directory(target)) return "is a directory, not a file";
  if (!fs::is_regular_file(target)) return "not a regular file (a FIFO, device or socket)";
  return std::nullopt;
}

}  // namespace fleetsim
