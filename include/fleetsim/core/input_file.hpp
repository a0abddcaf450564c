// What keeps a path from being read as an input file, said exactly.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace fleetsim {

// nullopt for a regular file (after following symlinks); else why not: "file not found",
// "dangling symlink", "symlink loop", "is a directory, not a file", or "not a regular file (a
// FIFO, device or socket)". Inputs are read only from regular files: a FIFO would block and a
// device could be endless.
std::optional<std::string> not_a_regular_file(const std::filesystem::path& path);

}  // namespace fleetsim
