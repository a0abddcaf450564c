#include "fleetsim/scenario/yaml_reader.hpp"

#include <catch2/catch.hpp>

#include "fleetsim/scenario/name_hint.hpp"
#include "scenario_test_util.hpp"

using namespace fleetsim;

namespace {

// Nine levels of ten aliases each: 10^9 nodes once expanded, a few hundred bytes on disk.
std::string alias_bomb() {
  std::string yaml = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'i'; ++c) {
    std::string prev(1, static_cast<char>(c - 1));
    yaml += std::string(1, c) + ": &" + std::string(1, c) + " [";
    for (int i = 0; i < 10; ++i) yaml += (i ? ", *" : "*") + prev;
    yaml += "]\n";
  }
  return yaml;
}

}  // namespace

TEST_CASE("an alias bomb stops at the node budget", "[scenario]") {
  CHECK(test::config_error([] { parse_yaml(alias_bomb(), "bomb.yaml"); }) ==
        "bomb.yaml:1:1: too many YAML nodes (alias expansion?); at most 1000000 are read per file");
  // A self-referencing alias (a cycle) hits the same guard instead of looping.
  CHECK(test::config_error([] {
          parse_yaml("a: &a [*a, *a]\n", "cycle.yaml");
        }).find("too many YAML nodes") != std::string::npos);
  // Ordinary aliases are fine.
  CHECK_NOTHROW(parse_yaml("base: &b {cpu: 1}\nother: *b\n", "ok.yaml"));
}

TEST_CASE("files are guarded by existence and size", "[scenario]") {
  test::TempDir dir("reader");
  auto missing = dir.path() / "nope.yaml";
  CHECK(test::config_error([&] { load_yaml_file(missing); }) ==
        missing.string() + ": file not found");
  CHECK(test::config_error([&] {
          load_yaml_file(missing, {.file = "s.yaml", .line = 4, .col = 5}, "manifests[1]");
        }) == "s.yaml:4:5: manifests[1]: file not found: " + missing.string());
  CHECK(test::config_error([&] { load_yaml_file(dir.path()); }) ==
        dir.path().string() + ": is a directory, not a file");

  std::string big(kMaxYamlFileBytes + 1, '#');
  auto big_file = dir.write("big.yaml", big);
  CHECK(test::config_error([&] { load_yaml_file(big_file); }) ==
        big_file.string() + ": file is larger than 16 MiB");
}

TEST_CASE("malformed YAML reports yaml-cpp's mark, 1-based", "[scenario]") {
  CHECK(test::config_error([] { parse_yaml("a: [1, 2\nb: 3\n", "bad.yaml"); }) ==
        "bad.yaml:2:2: invalid YAML: end of sequence flow not found");
  CHECK(test::config_error([] { parse_yaml("a: b: c\n", "bad.yaml"); }) ==
        "bad.yaml:1:5: invalid YAML: illegal map value");
  CHECK(test::config_error([] { parse_yaml("{a: 1\n", "bad.yaml"); }) ==
        "bad.yaml:2:1: invalid YAML: end of map flow not found");
  CHECK(test::config_error([] { parse_yaml("a: &x 1\nb: *y\n", "bad.yaml"); }) ==
        "bad.yaml:2:4: invalid YAML: the referenced anchor is not defined");
  CHECK(test::config_error([] { parse_yaml("a:\n  - b\n c: d\n", "bad.yaml"); }) ==
        "bad.yaml:3:2: invalid YAML: end of map not found");
}

TEST_CASE("bytes that are not UTF-8 give an error or a value, never a crash", "[scenario]") {
  for (std::string text :
       {std::string("name: \xc3\x28\xff\nduration: 1h\n"), std::string("\xff\xfe\x00\x01\x02", 5),
        std::string("\xfe\xff\x00\x00\x00", 5), std::string("a: \"\\xZZ\\u12\"\n"),
        std::string("\x00\x00\x00\x00", 4), std::string("- [\x80\x81: \xbf]\n")}) {
    try {
      YamlDocuments docs = parse_yaml(text, "junk.yaml");
      for (const auto& d : docs.documents) {
        YamlValue v(d, docs.file);
        (void)v.describe();
      }
    } catch (const ConfigError&) {
    }
  }
  SUCCEED();
}

TEST_CASE("typed reads name the field and what was found", "[scenario]") {
  auto docs = parse_yaml("a: {b: [1, {c: x}]}\nflag: yes\nq: '5'\nd: 1h\n", "t.yaml");
  YamlValue root(docs.documents[0], docs.file);
  YamlMap top(root);
  YamlValue c = YamlMap(YamlMap(top.require("a")).require("b").items()[1]).require("c");
  CHECK(c.path() == "a.b[1].c");
  CHECK(c.where().to_string() == "t.yaml:1:16");
  CHECK(test::config_error([&] { c.as_int(0, 10); }) ==
        "t.yaml:1:16: a.b[1].c: expected an integer, got a scalar (\"x\")");
  CHECK(test::config_error([&] { top.require("flag").as_bool(); }) ==
        "t.yaml:2:7: flag: expected true or false, got a scalar (\"yes\")");
  CHECK(test::config_error([&] { top.require("q").as_int(0, 10); }) ==
        "t.yaml:3:4: q: expected an integer, got a scalar (\"5\")");
  CHECK(top.require("d").as_duration() == hours(1));
  CHECK(test::config_error([&] { top.require("zz"); }) ==
        "t.yaml:1:1: zz: required field is missing");
  CHECK(test::config_error([&] { YamlMap(top.require("a")).require("b").as_string(); }) ==
        "t.yaml:1:8: a.b: expected a string, got a list");
}

TEST_CASE("YAML merge keys and non-scalar keys are refused", "[scenario]") {
  auto merge = parse_yaml("base: &b {cpu: 1}\nres:\n  <<: *b\n", "m.yaml");
  YamlMap top(YamlValue(merge.documents[0], merge.file));
  CHECK(test::config_error([&] { YamlMap m(top.require("res")); }) ==
        "m.yaml:3:3: res.<<: YAML merge keys (<<) are not supported; write the fields out");
  auto complex_key = parse_yaml("? [a, b]\n: c\n", "k.yaml");
  CHECK(test::config_error([&] {
          YamlMap m(YamlValue(complex_key.documents[0], complex_key.file));
        }) == "k.yaml:1:3: mapping keys must be strings, got a list");
}

TEST_CASE("paths lose their indices for warnings", "[scenario]") {
  CHECK(strip_indices("spec.containers[3].ports[12].name") == "spec.containers[].ports[].name");
  CHECK(strip_indices("a[b]") == "a[b]");
  CHECK(strip_indices("") == "");
}

TEST_CASE("did-you-mean hints pick close names only", "[scenario]") {
  std::array<std::string_view, 4> keys{"duration", "manifests", "events", "report_interval"};
  CHECK(did_you_mean("duraton", keys) == "; did you mean \"duration\"?");
  CHECK(did_you_mean("Manifest", keys) == "; did you mean \"manifests\"?");
  CHECK(did_you_mean("services", keys).empty());
  CHECK(did_you_mean("x", keys).empty());
}

TEST_CASE("huge flat files and deep nesting stop early with a clear error", "[scenario]") {
  std::string flat;
  for (std::size_t i = 0; i <= kMaxYamlNodesPerFile; ++i) flat += "- a\n";
  // The list itself is a node, so the last item exceeds the budget.
  CHECK(test::config_error([&] { parse_yaml(flat, "flat.yaml"); }) ==
        "flat.yaml:1000000:3: too many YAML nodes (alias expansion?); at most 1000000 are read per "
        "file");
  std::string deep(5000, '[');
  deep += std::string(5000, ']');
  CHECK(test::config_error([&] { parse_yaml(deep, "deep.yaml"); }).starts_with("deep.yaml:1:"));
  CHECK(test::config_error([&] {
          parse_yaml(deep, "deep.yaml");
        }).ends_with(": invalid YAML: nested too deeply"));
}
