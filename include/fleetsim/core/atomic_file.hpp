// Writing an output file whole or not at all.
#pragma once

#include <filesystem>
#include <functional>
#include <ostream>
#include <string_view>

namespace fleetsim {

// Calls `write` on a temporary beside `path` (`path`.tmp), flushes it and renames it over `path`:
// a reader, or a run resumed after a kill, never sees half a file, and a failed write leaves the
// previous file as it was (and no temporary). Only a regular file (or nothing) is replaced.
// Throws InputError at `path` under `field` (the option or input that named it): "cannot write
// this file", what is there instead of a regular file, or why the rename failed.
void write_file_atomically(const std::filesystem::path& path, std::string_view field,
                           const std::function<void(std::ostream&)>& write);

// The same for a text already in memory.
void write_file_atomically(const std::filesystem::path& path, std::string_view field,
                           std::string_view text);

}  // namespace fleetsim
