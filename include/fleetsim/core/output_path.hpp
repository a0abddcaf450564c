// Checking where outputs go before anything is written: an output must not overwrite an input or
// another output, and fleetsim replaces only regular files.
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <string>

namespace fleetsim {

// A path the command line names, with the flag (or role) that named it, for errors.
struct NamedPath {
  std::string flag;  // "--markdown", "SCENARIO", "a file the scenario reads"
  std::filesystem::path path;
};

// An output: a file, or a folder created if missing. A file's folder must exist, unless it is
// one of the folder outputs (created first).
struct OutputPath {
  std::string flag;
  std::filesystem::path path;
  bool is_folder = false;
};

// Why an output file at `path` cannot be replaced: nullopt when nothing is there (a dangling
// symlink included) or a regular file is; else "is a folder, not a file" or "is not a regular
// file (a FIFO, device or socket)". Renaming over a device (as root, /dev/full) or a FIFO
// would replace it.
std::optional<std::string> not_replaceable(const std::filesystem::path& path);

// Whether two paths name one file: the same inode when both exist, else the same path once
// symlinks, `.` and `..` are resolved.
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

// Throws InputError at `output` (under its flag) when it is one of the inputs.
void check_not_an_input(const OutputPath& output, std::span<const NamedPath> inputs);

// Throws InputError at the first output path (under its flag) that is an input, is another
// output, lies in a folder that does not exist or is not a folder, or exists and is not a
// regular file (a folder output: is not a folder).
void check_output_paths(std::span<const OutputPath> outputs, std::span<const NamedPath> inputs);

}  // namespace fleetsim
