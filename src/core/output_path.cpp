#include "fleetsim/core/output_path.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <system_error>

#include "fleetsim/core/error.hpp"

namespace fleetsim {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const OutputPath& out, const std::string& why) {
  throw InputError(SourceLocation{.file = out.path.string()}, out.flag, why);
}

// The folder a relative file name lies in is the working directory.
fs::path folder_of(const fs::path& p) {
  return p.has_parent_path() ? p.parent_path() : fs::path(".");
}

std::optional<std::string> not_a_folder(const fs::path& path) {
  std::error_code ec;
  const fs::file_status s = fs::status(path, ec);
  if (ec && ec.value() == ELOOP) return "symlink loop";
  if (!fs::exists(s)) return std::nullopt;
  if (!fs::is_directory(s)) return "is not a folder";
  return std::nullopt;
}

// A folder output is created with its missing parents: the nearest one that exists must be a
// folder.
void check_folder(const OutputPath& out) {
  if (auto why = not_a_folder(out.path)) fail(out, *why);
  std::error_code ec;
  for (fs::path p = fs::absolute(out.path, ec); p.has_relative_path(); p = p.parent_path()) {
    const fs::file_status s = fs::status(p, ec);
    if (!fs::exists(s)) continue;
    if (!fs::is_directory(s))
      fail(out, fmt::format("cannot be created: {} is not a folder", p.string()));
    return;
  }
}

void check_file(const OutputPath& out, std::span<const OutputPath> outputs) {
  const fs::path folder = folder_of(out.path);
  bool created = false;
  for (const OutputPath& o : outputs) created |= o.is_folder && same_file(o.path, folder);
  if (!created) {
    std::error_code ec;
    const fs::file_status s = fs::status(folder, ec);
    if (!fs::exists(s)) fail(out, fmt::format("its folder {} does not exist", folder.string()));
    if (!fs::is_directory(s)) fail(out, fmt::format("{} is not a folder", folder.string()));
  }
  if (auto why = not_replaceable(out.path)) fail(out, *why);
}

}  // namespace

std::optional<std::string> not_replaceable(const fs::path& path) {
  std::error_code ec;
  const fs::file_status target = fs::status(path, ec);
  if (ec && ec.value() == ELOOP) return "symlink loop";
  if (!fs::exists(target) || fs::is_regular_file(target)) return std::nullopt;
  if (fs::is_directory(target)) return "is a folder, not a file";
  return "is not a regular file (a FIFO, device or socket); fleetsim writes outputs only to "
         "regular files";
}

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  if (fs::equivalent(a, b, ec) && !ec) return true;
  auto resolved = [](const fs::path& p) {
    std::error_code e;
    fs::path r = fs::weakly_canonical(p, e);
    return e ? fs::absolute(p, e).lexically_normal() : r;
  };
  return resolved(a) == resolved(b);
}

void check_not_an_input(const OutputPath& out, std::span<const NamedPath> inputs) {
  for (const NamedPath& in : inputs) {
    if (same_file(out.path, in.path)) {
      fail(out, fmt::format("is the same file as the input {} ({}); an output must not "
                            "overwrite an input",
                            in.path.string(), in.flag));
    }
  }
}

void check_output_paths(std::span<const OutputPath> outputs, std::span<const NamedPath> inputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const OutputPath& out = outputs[i];
    check_not_an_input(out, inputs);
    for (std::size_t j = 0; j < i; ++j) {
      if (same_file(out.path, outputs[j].path)) {
        fail(out, fmt::format("is also the path of {}; each output needs a path of its own",
                              outputs[j].flag));
      }
    }
    if (out.is_folder)
      check_folder(out);
    else
      check_file(out, outputs);
  }
}

}  // namespace fleetsim
