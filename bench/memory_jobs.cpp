// Peak memory of a whole `fleetsim run` against the length of its job trace (DESIGN.md §8:
// memory flat in trace length). Each size gets a generated trace with the same density (1-GPU
// jobs of 5-15 min arriving every 5 s on average: about 120 running at a time, on about 20
// g5.48xlarge nodes), so only the trace length changes. Each run is the built `fleetsim` binary
// in a child process, measured alone: its peak RSS comes from wait4()'s rusage.
//
// Only the command line and the file formats are used (scenario YAML, manifests, job-trace CSV),
// not the C++ API. The binary is FLEETSIM_BINARY (set by bench/CMakeLists.txt), or the
// FLEETSIM_BINARY environment variable when set. FLEETSIM_BENCH_KEEP=1 keeps the generated
// scenario and the outputs in their temporary folder (named on stderr).
//
//   build/release/bench/bench_memory_jobs                      # 10k, 100k and 1M jobs
//   build/release/bench/bench_memory_jobs --benchmark_filter=/10000/   # 10k only
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

constexpr double kMeanGapS = 5.0;      // mean time between submissions (exponential gaps)
constexpr double kMinDurationS = 300;  // job run times: uniform in [5 min, 15 min]
constexpr double kMaxDurationS = 900;  // → mean 10 min, about 120 jobs running at a time

// One on-demand pool of 8×A10G nodes; empty nodes go after 30 min, none expire.
constexpr const char* kNodePools = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: gpu
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: gpu
      requirements:
        - key: node.kubernetes.io/instance-type
          operator: In
          values: ["g5.48xlarge"]
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["on-demand"]
      taints:
        - key: nvidia.com/gpu
          value: "true"
          effect: NoSchedule
      expireAfter: Never
  limits:
    nvidia.com/gpu: "1000"
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: 30m
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: gpu
spec:
  amiSelectorTerms:
    - alias: al2023@latest
  role: KarpenterNodeRole-bench
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: bench
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: bench
)";

// The template every traced job takes (as scenarios/gpu-training/manifests/train-job.yaml).
constexpr const char* kJobTemplate = R"(apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: ml
spec:
  template:
    metadata:
      labels:
        app: trainer
    spec:
      restartPolicy: Never
      tolerations:
        - key: nvidia.com/gpu
          operator: Exists
          effect: NoSchedule
      containers:
        - name: trainer
          image: nvcr.io/nvidia/pytorch:24.08-py3
          resources:
            requests:
              nvidia.com/gpu: 1
            limits:
              nvidia.com/gpu: 1
)";

std::string fleetsim_binary() {
  if (const char* env = std::getenv("FLEETSIM_BINARY"); env != nullptr && *env != '\0') return env;
#ifdef FLEETSIM_BINARY
  return FLEETSIM_BINARY;
#else
  return {};
#endif
}

// A fixed 64-bit generator (splitmix64), so the traces are the same on every platform.
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
};

// Writes the job trace and returns when the last job ends (seconds).
double write_trace(const fs::path& path, std::int64_t jobs) {
  std::ofstream out(path);
  out << "submit_time_s,duration_s,gpus,cpu_millis,memory_mib\n";
  SplitMix64 rng{0x5eed};
  double t = 0;
  double last_end = 0;
  char line[96];
  for (std::int64_t i = 0; i < jobs; ++i) {
    if (i > 0) t += -kMeanGapS * std::log1p(-rng.uniform());
    const double duration =
        std::round(kMinDurationS + (kMaxDurationS - kMinDurationS) * rng.uniform());
    // Millisecond submit times: printing rounds, so keep the rounded value to stay sorted.
    t = std::round(t * 1000) / 1000;
    std::snprintf(line, sizeof line, "%.3f,%.0f,1,4000,16384\n", t, duration);
    out << line;
    last_end = std::max(last_end, t + duration);
  }
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path.string());
  return last_end;
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

// The scenario: the trace, the pool, and a duration that covers the last job plus an hour.
void write_scenario(const fs::path& dir, std::int64_t jobs) {
  const double last_end = write_trace(dir / "jobs.csv", jobs);
  write_file(dir / "nodepools.yaml", kNodePools);
  write_file(dir / "job.yaml", kJobTemplate);
  const auto hours = static_cast<std::int64_t>(std::ceil(last_end / 3600.0)) + 1;
  write_file(dir / "scenario.yaml",
             "name: memory-jobs-" + std::to_string(jobs) +
                 "\nseed: 1\nduration: " + std::to_string(hours) +
                 "h\nregion: us-east-1\nmanifests:\n  - nodepools.yaml\njobs:\n"
                 "  - trace: jobs.csv\n    template: job.yaml\n");
}

struct ChildRun {
  int status = 0;
  double wall_s = 0;
  double peak_rss_mb = 0;
};

// fork + exec `fleetsim run SCENARIO --out OUT --quiet`, output to LOG; wait4 gives the child's
// own rusage, so each run's ru_maxrss (KiB on Linux) is its peak alone.
ChildRun run_fleetsim(const std::string& binary, const fs::path& scenario, const fs::path& out,
                      const fs::path& log) {
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
      close(fd);
    }
    const std::string scenario_arg = scenario.string();
    const std::string out_arg = out.string();
    std::vector<char*> argv{const_cast<char*>(binary.c_str()),
                            const_cast<char*>("run"),
                            const_cast<char*>(scenario_arg.c_str()),
                            const_cast<char*>("--out"),
                            const_cast<char*>(out_arg.c_str()),
                            const_cast<char*>("--quiet"),
                            nullptr};
    execv(binary.c_str(), argv.data());
    std::perror("execv");
    _exit(127);
  }
  ChildRun run;
  rusage usage{};
  while (wait4(pid, &run.status, 0, &usage) < 0) {
    if (errno != EINTR) throw std::runtime_error("wait4 failed");
  }
  run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.peak_rss_mb = static_cast<double>(usage.ru_maxrss) / 1024.0;
  return run;
}

std::string tail_of(const fs::path& path, std::size_t max_chars) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text.size() > max_chars ? text.substr(text.size() - max_chars) : text;
}

// `"jobs": {"completed": N` from report.json, or -1 when the report does not say.
double completed_jobs(const fs::path& report) {
  const std::string text = tail_of(report, std::string::npos);
  const auto jobs = text.find("\"jobs\"");
  if (jobs == std::string::npos) return -1;
  const auto key = text.find("\"completed\"", jobs);
  if (key == std::string::npos) return -1;
  const auto colon = text.find(':', key);
  if (colon == std::string::npos) return -1;
  return std::strtod(text.c_str() + colon + 1, nullptr);
}

void BM_MemoryVsTraceLength(benchmark::State& state) {
  const std::int64_t jobs = state.range(0);
  const std::string binary = fleetsim_binary();
  if (binary.empty() || access(binary.c_str(), X_OK) != 0) {
    state.SkipWithError("no fleetsim binary: build it, or set FLEETSIM_BINARY");
    return;
  }
  std::string tmpl = (fs::temp_directory_path() / "fleetsim-memory-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) {
    state.SkipWithError("mkdtemp failed");
    return;
  }
  const fs::path dir = tmpl;
  write_scenario(dir, jobs);

  ChildRun run;
  double completed = -1;
  for (auto _ : state) {
    fs::remove_all(dir / "out");
    run = run_fleetsim(binary, dir / "scenario.yaml", dir / "out", dir / "fleetsim.log");
    state.SetIterationTime(run.wall_s);
    completed = completed_jobs(dir / "out" / "report.json");
  }
  const bool keep = std::getenv("FLEETSIM_BENCH_KEEP") != nullptr;
  if (keep) std::fprintf(stderr, "kept %s\n", dir.c_str());
  if (!WIFEXITED(run.status) || WEXITSTATUS(run.status) != 0) {
    const std::string message = "fleetsim failed (status " + std::to_string(run.status) +
                                "): " + tail_of(dir / "fleetsim.log", 400);
    if (!keep) fs::remove_all(dir);
    state.SkipWithError(message.c_str());
    return;
  }
  if (!keep) fs::remove_all(dir);
  state.counters["jobs"] = static_cast<double>(jobs);
  state.counters["peak_rss_mb"] = run.peak_rss_mb;
  state.counters["completed"] = completed;
}

BENCHMARK(BM_MemoryVsTraceLength)
    ->Arg(10'000)
    ->Arg(100'000)
    ->Arg(1'000'000)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kSecond);

}  // namespace

BENCHMARK_MAIN();
