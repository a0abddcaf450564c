// Issue 13, class 7: inputs are read only from regular files, and the reason is said exactly.
#include "fleetsim/core/input_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>

using namespace fleetsim;
namespace fs = std::filesystem;

TEST_CASE("a path that is not a regular file says what it is", "[core]") {
  const fs::path dir = fs::temp_directory_path() / ("fleetsim-input-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "ok.csv") << "a\n";
  fs::create_symlink(dir / "ok.csv", dir / "link.csv");
  fs::create_symlink(dir / "missing.csv", dir / "dangling.csv");
  fs::create_symlink(dir / "loop-b", dir / "loop-a");
  fs::create_symlink(dir / "loop-a", dir / "loop-b");
  REQUIRE(::mkfifo((dir / "fifo.csv").c_str(), 0600) == 0);

  CHECK_FALSE(not_a_regular_file(dir / "ok.csv"));
  CHECK_FALSE(not_a_regular_file(dir / "link.csv"));  // links are followed
  CHECK(not_a_regular_file(dir / "nowhere.csv") == "file not found");
  CHECK(not_a_regular_file(dir / "dangling.csv") == "dangling symlink");
  CHECK(not_a_regular_file(dir / "loop-a") == "symlink loop");
  CHECK(not_a_regular_file(dir) == "is a directory, not a file");
  CHECK(not_a_regular_file(dir / "fifo.csv") == "not a regular file (a FIFO, device or socket)");
  CHECK(not_a_regular_file("/dev/zero") == "not a regular file (a FIFO, device or socket)");
  fs::remove_all(dir);
}
