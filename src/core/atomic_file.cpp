#include "fleetsim/core/atomic_file.hpp"

#include <fstream>
#include <string>
#include <system_error>

#include "fleetsim/core/error.hpp"

namespace fleetsim {

void write_file_atomically(const std::filesystem::path& path, std::string_view field,
                           const std::function<void(std::ostream&)>& write) {
  const std::filesystem::path tmp = path.string() + ".tmp";
  std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
  if (out) write(out);
  out.close();
  std::error_code ec;
  if (!out) {
    std::filesystem::remove(tmp, ec);
    throw InputError(SourceLocation{.file = path.string()}, std::string(field),
                     "cannot write this file");
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw InputError(SourceLocation{.file = path.string()}, std::string(field), ec.message());
  }
}

void write_file_atomically(const std::filesystem::path& path, std::string_view field,
                           std::string_view text) {
  write_file_atomically(path, field, [&](std::ostream& out) { out << text; });
}

}  // namespace fleetsim
