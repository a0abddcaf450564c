// Outputs never replace inputs, each other, folders, FIFOs or devices (issue 25, item 8).
#include "fleetsim/core/output_path.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <vector>

#include "fleetsim/core/atomic_file.hpp"
#include "fleetsim/core/error.hpp"

using namespace fleetsim;
namespace fs = std::filesystem;

namespace {

struct Dir {
  fs::path path = fs::temp_directory_path() / ("fleetsim-output-path-" + std::to_string(getpid()));
  Dir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Dir() { fs::remove_all(path); }
  fs::path file(const std::string& name, const std::string& text = "x") const {
    std::ofstream(path / name) << text;
    return path / name;
  }
};

std::string error_of(std::vector<OutputPath> outputs, std::vector<NamedPath> inputs = {}) {
  try {
    check_output_paths(outputs, inputs);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("an output that is an input or another output is refused", "[core]") {
  Dir d;
  const fs::path scenario = d.file("scenario.yaml");
  const std::string s = scenario.string();
  CHECK(error_of({{"--markdown", scenario}}, {{"SCENARIO", scenario}}) ==
        s + ": --markdown: is the same file as the input " + s +
            " (SCENARIO); an output must not overwrite an input");
  // Another spelling, a symlink and a hard link name the same file.
  const fs::path dotted = d.path / "sub" / ".." / "scenario.yaml";
  fs::create_directories(d.path / "sub");
  CHECK(error_of({{"--junit", dotted}}, {{"SCENARIO", scenario}}) != "no error");
  fs::create_symlink(scenario, d.path / "link.yaml");
  CHECK(error_of({{"--junit", d.path / "link.yaml"}}, {{"SCENARIO", scenario}}) != "no error");
  fs::create_hard_link(scenario, d.path / "hard.yaml");
  CHECK(error_of({{"--junit", d.path / "hard.yaml"}}, {{"SCENARIO", scenario}}) != "no error");
  // Two outputs, one not written yet.
  const std::string md = (d.path / "check.md").string();
  CHECK(error_of({{"--markdown", d.path / "check.md"}, {"--junit", d.path / "sub/../check.md"}}) ==
        (d.path / "sub/../check.md").string() +
            ": --junit: is also the path of --markdown; each output needs a path of its own");
  CHECK(error_of({{"--markdown", d.path / "check.md"}, {"--junit", d.path / "check.xml"}},
                 {{"SCENARIO", scenario}}) == "no error");
}

TEST_CASE("an output's folder must exist and what is there must be a regular file", "[core]") {
  Dir d;
  const std::string missing = (d.path / "none" / "x.md").string();
  CHECK(error_of({{"--markdown", missing}}) ==
        missing + ": --markdown: its folder " + (d.path / "none").string() + " does not exist");
  const fs::path file = d.file("file");
  CHECK(error_of({{"--markdown", file / "x.md"}}) ==
        (file / "x.md").string() + ": --markdown: " + file.string() + " is not a folder");
  CHECK(error_of({{"--markdown", d.path}}) ==
        d.path.string() + ": --markdown: is a folder, not a file");
  REQUIRE(::mkfifo((d.path / "fifo").c_str(), 0600) == 0);
  const std::string not_regular =
      ": --junit: is not a regular file (a FIFO, device or socket); fleetsim writes outputs only "
      "to regular files";
  CHECK(error_of({{"--junit", d.path / "fifo"}}) == (d.path / "fifo").string() + not_regular);
  CHECK(error_of({{"--junit", "/dev/full"}}) == "/dev/full" + not_regular);
  fs::create_symlink("/dev/null", d.path / "null");
  CHECK(error_of({{"--junit", d.path / "null"}}) == (d.path / "null").string() + not_regular);
  CHECK(error_of({{"--junit", d.file("old.xml")}}) == "no error");  // a regular file is replaced
  // A folder output may be created, with its parents, and its files need no folder yet; it may
  // not be a file.
  CHECK(error_of({{"--out", d.path / "a/b", true}, {"--out", d.path / "a/b/report.json"}}) ==
        "no error");
  CHECK(error_of({{"--out", file, true}}) == file.string() + ": --out: is not a folder");
  CHECK(error_of({{"--out", file / "a", true}}) ==
        (file / "a").string() + ": --out: cannot be created: " + file.string() +
            " is not a folder");
}

TEST_CASE("write_file_atomically replaces only a regular file, checked as it writes", "[core]") {
  Dir d;
  REQUIRE(::mkfifo((d.path / "fifo").c_str(), 0600) == 0);
  CHECK_THROWS_WITH(write_file_atomically(d.path / "fifo", "--junit", "text"),
                    (d.path / "fifo").string() +
                        ": --junit: is not a regular file (a FIFO, device or socket); fleetsim "
                        "writes outputs only to regular files");
  CHECK(fs::is_fifo(d.path / "fifo"));
  CHECK_FALSE(fs::exists(d.path / "fifo.tmp"));
  fs::create_directories(d.path / "folder");
  CHECK_THROWS_WITH(write_file_atomically(d.path / "folder", "--junit", "text"),
                    (d.path / "folder").string() + ": --junit: is a folder, not a file");
  // A FIFO where the temporary goes would block the open.
  REQUIRE(::mkfifo((d.path / "x.md.tmp").c_str(), 0600) == 0);
  CHECK_THROWS_WITH(write_file_atomically(d.path / "x.md", "--markdown", "text"),
                    (d.path / "x.md.tmp").string() +
                        ": --markdown: is not a regular file (a FIFO, device or socket); "
                        "fleetsim writes outputs only to regular files");
  write_file_atomically(d.path / "ok.md", "--markdown", "text");
  std::ifstream in(d.path / "ok.md");
  std::string text;
  std::getline(in, text);
  CHECK(text == "text");
}
