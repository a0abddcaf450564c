// Runs the built fleetsim binary from tests: a scratch directory per test case, and the
// command's exit code, standard output and standard error.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fleetsim::test {

struct Run {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A scratch directory per test case (unique per process), removed afterwards.
struct Scratch {
  std::filesystem::path dir;
  explicit Scratch(const std::string& name = "cli")
      : dir(std::filesystem::temp_directory_path() /
            ("fleetsim-" + name + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~Scratch() { std::filesystem::remove_all(dir); }
  std::filesystem::path write(const std::string& name, const std::string& text) const {
    std::filesystem::path p = dir / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  // Runs `fleetsim ARGS` with its output captured in the scratch directory.
  Run fleetsim(const std::string& args) const {
    std::string cmd = std::string(FLEETSIM_BINARY) + " " + args + " >" +
                      (dir / ".stdout").string() + " 2>" + (dir / ".stderr").string();
    int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir / ".stdout"),
            slurp(dir / ".stderr")};
  }
};

// A NodePool of g5 instances, for scenarios that need one.
inline const std::string kG5Pool = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: gpu
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - key: karpenter.k8s.aws/instance-family
          operator: In
          values: ["g5"]
)";

}  // namespace fleetsim::test
