#include "fleetsim/core/atomic_file.hpp"

#include <fstream>
#include <string>
#include <system_error>

#include "fleetsim/core/error.hpp"
#include "fleetsim/core/output_path.hpp"

namespace fleetsim {

void write_file_atomically(const std::filesystem::path& path, std::string_view field,
                           const std::function<void(std::ostream&)>& write) {
  const std::filesystem::path tmp = path.string() + ".tmp";
  // Checked again here, not only before the run: a FIFO as the temporary would block the open,
  // and the rename would replace a folder's entry, a FIFO or a device at `path`.
  for (const std::filesystem::path& p : {tmp, path}) {
    if (auto why = not_replaceable(p))
      throw InputError(SourceLocation{.file = p.string()}, std::string(field), *why);
  }
  std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
  if (out) write(out);
  out.close();
  std::error_code ec;
  if (!out) {
    std::filesystem::remove(tmp, ec);
    throw InputError(SourceLocation{.file = path.string()}, std::string(field),
                     "cannot write this file");
  }
  if (auto why = not_replaceable(path)) {
    std::filesystem::remove(tmp, ec);
    throw InputError(SourceLocation{.file = path.string()}, std::string(field), *why);
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
