// Issue 25, item 6: the subnet-resolution warning is given once per run, not per EC2NodeClass,
// a scripted apply's included.
#include <catch2/catch.hpp>
#include <string>

#include "cli_harness.hpp"

using fleetsim::test::Run;
using fleetsim::test::Scratch;

namespace {

std::string node_class(const std::string& name) {
  return "---\napiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: " + name +
         "}\nspec:\n  role: KarpenterNodeRole\n"
         "  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]\n";
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("subnets-not-resolved: one warning for every EC2NodeClass, applied ones too",
          "[cli][warnings]") {
  Scratch s("subnet-warning");
  const std::string classes =
      s.write("classes.yaml",
              std::string(fleetsim::test::kG5Pool) + node_class("default") + node_class("second"))
          .string();
  s.write("third.yaml", node_class("third"));
  const std::string scenario = s.write("scenario.yaml",
                                       "name: s\nduration: 1h\nmanifests: [classes.yaml]\n"
                                       "events: [{at: 10m, apply: third.yaml}]\n")
                                   .string();
  for (const std::string& command :
       {std::string("validate "), "run --progress none --out " + (s.dir / "out").string() + " "}) {
    INFO(command);
    const Run r = s.fleetsim(command + "--warnings all " + scenario);
    CHECK(r.exit_code == 0);
    CHECK(count(r.err, "[subnets-not-resolved]") == 1);
    CHECK_THAT(r.err, Catch::Contains("warning: " + classes +
                                      ":19:24: EC2NodeClass.spec.subnetSelectorTerms: subnets "
                                      "are not resolved to zones"));
  }
}
