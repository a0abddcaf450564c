#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli_harness.hpp"

namespace fs = std::filesystem;
using fleetsim::test::kG5Pool;
using fleetsim::test::Run;
using fleetsim::test::Scratch;

namespace {

std::string scenario_with(const std::string& extra) {
  return "name: bad\nduration: 1h\nmanifests:\n  - pools.yaml\n" + extra;
}

}  // namespace

TEST_CASE("malformed YAML exits 2 naming file, line and column", "[cli]") {
  Scratch s;
  fs::path f = s.write("scenario.yaml", "name: bad\nduration: [1h\n");
  Run o = s.fleetsim("validate " + f.string());
  CHECK(o.exit_code == 2);
  CHECK_THAT(o.err, Catch::Contains(f.string() + ":"));
}

TEST_CASE("a wrong type exits 2 naming the field", "[cli]") {
  Scratch s;
  s.write("pools.yaml", kG5Pool);
  fs::path f =
      s.write("scenario.yaml", "name: bad\nduration: {hours: 1}\nmanifests: [pools.yaml]\n");
  Run o = s.fleetsim("validate " + f.string());
  CHECK(o.exit_code == 2);
  CHECK_THAT(o.err, Catch::Contains(f.string() + ":2:11: duration"));
}

TEST_CASE("an unknown instance type in a scripted event exits 2", "[cli]") {
  Scratch s;
  s.write("pools.yaml", kG5Pool);
  fs::path f = s.write(
      "scenario.yaml",
      scenario_with("events:\n  - {at: 5m, spot_interruption: {instance_type: g5.huge}}\n"));
  Run o = s.fleetsim("validate " + f.string());
  CHECK(o.exit_code == 2);
  CHECK_THAT(o.err, Catch::Contains("g5.huge"));
  CHECK_THAT(o.err, Catch::Contains(f.string() + ":6:"));
}

TEST_CASE("a negative quantity exits 2 naming the field", "[cli]") {
  Scratch s;
  s.write("pools.yaml", kG5Pool + R"(---
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
    - name: c
      resources:
        requests:
          cpu: "-1"
)");
  fs::path f = s.write("scenario.yaml", scenario_with(""));
  Run o = s.fleetsim("validate " + f.string());
  CHECK(o.exit_code == 2);
  CHECK_THAT(o.err, Catch::Contains("pools.yaml:23:"));
  CHECK_THAT(o.err, Catch::Contains("cpu"));
}

TEST_CASE("an unsorted job trace exits 2 naming its line", "[cli]") {
  Scratch s;
  s.write("pools.yaml", kG5Pool);
  s.write("job.yaml",
          "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n    spec:\n   "
          "   restartPolicy: Never\n      containers: [{name: c}]\n");
  s.write("trace.csv",
          "submit_time_s,duration_s,gpus,cpu_millis,memory_mib\n30,10,1,1000,1024\n12.5,10,1,1000,"
          "1024\n");
  fs::path f = s.write("scenario.yaml",
                       scenario_with("jobs:\n  - {trace: trace.csv, template: job.yaml}\n"));
  Run o = s.fleetsim("run --quiet --out " + (s.dir / "out").string() + " " + f.string());
  CHECK(o.exit_code == 2);
  CHECK_THAT(o.err, Catch::Contains("trace.csv:3:1: submit_time_s"));
}

TEST_CASE("validate reads job traces through to the last row", "[cli]") {
  Scratch s;
  s.write("pools.yaml", kG5Pool);
  s.write("job.yaml",
          "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n    spec:\n   "
          "   restartPolicy: Never\n      containers: [{name: c}]\n");
  s.write("trace.csv",
          "submit_time_s,duration_s,gpus,cpu_millis,memory_mib\n1,10,1,1000,1024\n2,10,1,1000,"
          "1024\n3,10,x,1000,1024\n");
  fs::path f = s.write("scenario.yaml",
                       scenario_with("jobs:\n  - {trace: trace.csv, template: job.yaml}\n"));
  Run o = s.fleetsim("validate " + f.string());
  CHECK(o.exit_code == 2);
  CHECK_THAT(o.err, Catch::Contains("trace.csv:4:6: gpus"));
}

TEST_CASE("an empty trace exits 2", "[cli]") {
  Scratch s;
  s.write("pools.yaml", kG5Pool);
  s.write("job.yaml",
          "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n    spec:\n   "
          "   restartPolicy: Never\n      containers: [{name: c}]\n");
  s.write("trace.csv", "");
  fs::path f = s.write("scenario.yaml",
                       scenario_with("jobs:\n  - {trace: trace.csv, template: job.yaml}\n"));
  Run o = s.fleetsim("run --quiet --out " + (s.dir / "out").string() + " " + f.string());
  CHECK(o.exit_code == 2);
  CHECK_THAT(o.err, Catch::Contains("trace.csv:1:1"));
}

TEST_CASE("a YAML alias bomb exits 2 instead of expanding", "[cli]") {
  Scratch s;
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  char prev = 'a';
  for (char c = 'b'; c <= 'k'; ++c, ++prev) {
    bomb += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 10; ++i) bomb += std::string(i ? ", *" : "*") + prev;
    bomb += "]\n";
  }
  fs::path f = s.write("scenario.yaml", "name: bomb\nduration: 1h\nmanifests:\n  - " +
                                            (s.dir / "bomb.yaml").string() + "\n");
  s.write(
      "bomb.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: m}\ndata:\n" + [&] {
        std::string indented;
        std::size_t start = 0;
        while (start < bomb.size()) {
          std::size_t end = bomb.find('\n', start);
          indented += "  " + bomb.substr(start, end - start + 1);
          start = end + 1;
        }
        return indented;
      }());
  Run o = s.fleetsim("validate " + f.string());
  CHECK(o.exit_code == 2);
  CHECK_THAT(o.err, Catch::Contains("bomb.yaml"));
}

TEST_CASE("a catalog with a missing column exits 2 naming the column", "[cli]") {
  Scratch s;
  s.write("catalog/instance-types.csv",
          "instance_type,family,category,generation,size,arch,memory_mib,gpu_count\nm5.large,m5,m,"
          "5,large,amd64,8192,0\n");
  s.write("catalog/offerings.csv",
          "instance_type,zone,capacity_type,price_usd_per_hour,interruption_bucket,capacity\nm5."
          "large,us-east-1a,on-demand,0.096,,\n");
  Run o = s.fleetsim("catalog --catalog " + (s.dir / "catalog").string());
  CHECK(o.exit_code == 2);
  CHECK_THAT(o.err, Catch::Contains("instance-types.csv:1"));
  CHECK_THAT(o.err, Catch::Contains("vcpu"));
}

TEST_CASE("a missing scenario file and a bad flag exit 2", "[cli]") {
  Scratch s;
  CHECK(s.fleetsim("validate /nonexistent/scenario.yaml").exit_code == 2);
  CHECK(s.fleetsim("run").exit_code == 2);
  CHECK(s.fleetsim("catalog --filter 'gpu-count>>4'").exit_code == 2);
}

TEST_CASE("the command line: seeds, regions and commands are checked (issue 13, class 10)",
          "[cli]") {
  Scratch s;
  for (const std::string seed : {"-1", "18446744073709551616", "12x"}) {
    Run o = s.fleetsim("run --seed " + seed + " nowhere.yaml");
    CHECK(o.exit_code == 2);
    CHECK_THAT(o.err, Catch::Contains("--seed: expected a whole number from 0 to "
                                      "18446744073709551615, got \"" +
                                      seed + "\""));
  }
  Run region = s.fleetsim("catalog --region ../../../tmp");
  CHECK(region.exit_code == 2);
  CHECK_THAT(region.err, Catch::Contains("--region"));
  CHECK_THAT(region.err, Catch::Contains("invalid region"));
  Run unknown = s.fleetsim("frobnicate");
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.err,
             Catch::Contains("unknown command \"frobnicate\"; the commands are run, "
                             "validate, check, compare, sweep, merge, lint, explain, catalog, "
                             "models, serving-table and autoscale"));
  CHECK(s.fleetsim("").exit_code == 2);
}

TEST_CASE(
    "a run stopped by SIGINT exits 130 and leaves the previous outputs whole (issue 13, "
    "class 11)",
    "[cli]") {
  Scratch s;
  const fs::path source = fs::path(FLEETSIM_SOURCE_DIR) / "scenarios" / "llm-inference";
  std::string scenario = fleetsim::test::slurp(source / "scenario.yaml");
  for (std::size_t at = scenario.find("manifests/"); at != std::string::npos;
       at = scenario.find("manifests/", at + 1)) {
    scenario.replace(at, 10, (source / "manifests").string() + "/");
    at += (source / "manifests").string().size();
  }
  const fs::path day = s.write("day.yaml", scenario);
  scenario.replace(scenario.find("duration: 24h"), 13, "duration: 4000h");  // long enough
  const fs::path long_run = s.write("long.yaml", scenario);
  const fs::path out = s.dir / "out";
  REQUIRE(s.fleetsim("run -q " + day.string() + " --out " + out.string()).exit_code == 0);
  const std::string report = fleetsim::test::slurp(out / "report.json");
  const std::string events = fleetsim::test::slurp(out / "events.jsonl");

  const std::string cmd = "sh -c '" + std::string(FLEETSIM_BINARY) + " run -q " +
                          long_run.string() + " --out " + out.string() +
                          " 2>/dev/null & pid=$!; sleep 1; kill -INT $pid; wait $pid'";
  const int status = std::system(cmd.c_str());
  CHECK(WEXITSTATUS(status) == 130);
  CHECK(fleetsim::test::slurp(out / "report.json") == report);
  CHECK(fleetsim::test::slurp(out / "events.jsonl") == events);
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(out)) ++files;
  CHECK(files == 3);  // no temporary left behind
}

TEST_CASE("a bad KubeSchedulerConfiguration exits 2 naming file, line and field", "[cli]") {
  Scratch s;
  s.write("pools.yaml", kG5Pool +
                            "---\napiVersion: kubescheduler.config.k8s.io/v1\n"
                            "kind: KubeSchedulerConfiguration\nprofiles:\n"
                            "  - pluginConfig:\n      - name: NodeResourcesFit\n"
                            "        args:\n          scoringStrategy:\n"
                            "            type: MostAllocated\n"
                            "            resources: [{name: nvidia.com/gpu, weight: 0.5}]\n");
  fs::path f = s.write("scenario.yaml", scenario_with(""));
  Run o = s.fleetsim("validate " + f.string());
  CHECK(o.exit_code == 2);
  CHECK_THAT(o.err, Catch::Contains((s.dir / "pools.yaml").string() +
                                    ":22:56: profiles[0].pluginConfig[0].args.scoringStrategy."
                                    "resources[0].weight: expected an integer"));
}
