// Requirement sets (In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte, minValues) and the
// Intersects / Compatible checks, as Karpenter's pkg/scheduling/requirement(s).go define them.
#include "fleetsim/k8s/requirements.hpp"

#include <array>
#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

using namespace fleetsim;

namespace {

Requirement req(Operator op, std::vector<std::string> values = {}) {
  return Requirement::make(op, std::move(values));
}

// The integers in [lo, hi] that a requirement allows.
std::vector<int> allowed_integers(const Requirement& r, int lo, int hi) {
  std::vector<int> out;
  for (int i = lo; i <= hi; ++i)
    if (r.allows(std::to_string(i))) out.push_back(i);
  return out;
}

using Strings = std::vector<std::string>;

}  // namespace

TEST_CASE("operator names parse and print for all eight operators", "[k8s]") {
  constexpr std::array kAll{Operator::In, Operator::NotIn, Operator::Exists, Operator::DoesNotExist,
                            Operator::Gt, Operator::Lt,    Operator::Gte,    Operator::Lte};
  for (Operator op : kAll) CHECK(parse_operator(to_string(op)) == op);
  // Kubernetes operator names are case-sensitive.
  CHECK_FALSE(parse_operator("in"));
  CHECK_FALSE(parse_operator("Equals"));
}

TEST_CASE("In allows exactly its values, sorted and deduplicated", "[k8s]") {
  Requirement r = req(Operator::In, {"b", "a", "a"});
  CHECK(r.values() == Strings{"a", "b"});
  CHECK(r.allows("a"));
  CHECK(r.allows("b"));
  CHECK_FALSE(r.allows("c"));
  CHECK(r.size() == 2);
  CHECK_FALSE(r.is_complement());
  CHECK(r.effective_operator() == Operator::In);
}

TEST_CASE("NotIn allows everything except its values", "[k8s]") {
  Requirement r = req(Operator::NotIn, {"x"});
  CHECK_FALSE(r.allows("x"));
  CHECK(r.allows("y"));
  CHECK(r.is_complement());
  // A complement is unbounded minus what it excludes, as Karpenter's Len() counts it.
  CHECK(r.size() == Requirement::kUnbounded - 1);
  CHECK(r.effective_operator() == Operator::NotIn);
}

TEST_CASE("Exists allows any value and DoesNotExist allows none", "[k8s]") {
  Requirement any = req(Operator::Exists);
  CHECK(any.allows("anything"));
  CHECK(any.size() == Requirement::kUnbounded);
  CHECK(any.effective_operator() == Operator::Exists);
  CHECK(any == Requirement::exists());

  Requirement none = req(Operator::DoesNotExist);
  CHECK_FALSE(none.allows("anything"));
  CHECK(none.empty());
  CHECK(none.effective_operator() == Operator::DoesNotExist);
  CHECK(none == Requirement::does_not_exist());
}

TEST_CASE("Gt and Lt are strict bounds, Gte and Lte inclusive ones", "[k8s]") {
  // Gt N is Gte N+1 and Lt N is Lte N-1 (requirement.go).
  CHECK(allowed_integers(req(Operator::Gt, {"5"}), 3, 8) == std::vector<int>{6, 7, 8});
  CHECK(allowed_integers(req(Operator::Gte, {"5"}), 3, 8) == std::vector<int>{5, 6, 7, 8});
  CHECK(allowed_integers(req(Operator::Lt, {"5"}), 3, 8) == std::vector<int>{3, 4});
  CHECK(allowed_integers(req(Operator::Lte, {"5"}), 3, 8) == std::vector<int>{3, 4, 5});
  // A bound only admits integers.
  CHECK_FALSE(req(Operator::Gt, {"5"}).allows("xlarge"));
  CHECK_FALSE(req(Operator::Gt, {"5"}).allows("6.5"));
}

TEST_CASE("a bound without exactly one integer value allows nothing", "[k8s]") {
  // The decoder rejects these; make() stays safe rather than allowing everything.
  CHECK(req(Operator::Gt, {"five"}).empty());
  CHECK(req(Operator::Lt, {"1", "2"}).empty());
  CHECK(req(Operator::Gte, {}).empty());
}

TEST_CASE("a bare bound reads as Exists, NotIn with values reads as NotIn", "[k8s]") {
  // Karpenter derives the operator from the set: a complement with no exclusions is Exists,
  // whatever bounds it carries.
  CHECK(req(Operator::Gt, {"3"}).effective_operator() == Operator::Exists);
  CHECK(req(Operator::Lte, {"3"}).effective_operator() == Operator::Exists);
  CHECK(req(Operator::NotIn, {"a", "b"}).effective_operator() == Operator::NotIn);
  CHECK(req(Operator::Gt, {"3"}).intersection(req(Operator::NotIn, {"5"})).effective_operator() ==
        Operator::NotIn);
  CHECK(req(Operator::Gt, {"3"}).to_string() == "Exists >=4");
}

TEST_CASE("In intersected with In keeps the common values", "[k8s]") {
  Requirement r =
      req(Operator::In, {"a", "b", "c"}).intersection(req(Operator::In, {"b", "c", "d"}));
  CHECK(r.values() == Strings{"b", "c"});
  CHECK(r.effective_operator() == Operator::In);
  CHECK(req(Operator::In, {"a"}).intersection(req(Operator::In, {"b"})).empty());
}

TEST_CASE("In intersected with NotIn drops the excluded values, in either order", "[k8s]") {
  Requirement r1 = req(Operator::In, {"a", "b"}).intersection(req(Operator::NotIn, {"b"}));
  Requirement r2 = req(Operator::NotIn, {"b"}).intersection(req(Operator::In, {"a", "b"}));
  CHECK(r1.values() == Strings{"a"});
  CHECK_FALSE(r1.is_complement());
  CHECK(r1 == r2);
}

TEST_CASE("NotIn intersected with NotIn excludes the union of both", "[k8s]") {
  Requirement r = req(Operator::NotIn, {"a", "c"}).intersection(req(Operator::NotIn, {"b", "c"}));
  CHECK(r.is_complement());
  CHECK(r.values() == Strings{"a", "b", "c"});
  CHECK(r.effective_operator() == Operator::NotIn);
  CHECK_FALSE(r.allows("b"));
  CHECK(r.allows("d"));
}

TEST_CASE("Exists intersected with DoesNotExist is empty, with In it is the In set", "[k8s]") {
  Requirement none = req(Operator::Exists).intersection(req(Operator::DoesNotExist));
  CHECK(none.empty());
  CHECK(none.effective_operator() == Operator::DoesNotExist);
  CHECK(req(Operator::Exists).intersection(req(Operator::In, {"a"})).values() == Strings{"a"});
}

TEST_CASE("Gt 3 and Lt 8 together allow 4 to 7 only", "[k8s]") {
  Requirement r = req(Operator::Gt, {"3"}).intersection(req(Operator::Lt, {"8"}));
  CHECK(allowed_integers(r, -5, 20) == std::vector<int>{4, 5, 6, 7});
  // A closed integer range has a finite size.
  CHECK(r.size() == 4);
}

TEST_CASE("Gte 3 and Lte 8 together allow 3 to 8 inclusive", "[k8s]") {
  Requirement r = req(Operator::Gte, {"3"}).intersection(req(Operator::Lte, {"8"}));
  CHECK(allowed_integers(r, -5, 20) == std::vector<int>{3, 4, 5, 6, 7, 8});
  CHECK(r.size() == 6);
}

TEST_CASE("bounds on the same side keep the tighter one", "[k8s]") {
  Requirement r = req(Operator::Gt, {"5"}).intersection(req(Operator::Gte, {"8"}));
  CHECK(allowed_integers(r, 0, 10) == std::vector<int>{8, 9, 10});
  Requirement s = req(Operator::Lt, {"5"}).intersection(req(Operator::Lte, {"2"}));
  CHECK(allowed_integers(s, 0, 10) == std::vector<int>{0, 1, 2});
}

TEST_CASE("a bounded range minus exclusions counts what is left", "[k8s]") {
  Requirement r = req(Operator::Gt, {"3"})
                      .intersection(req(Operator::Lt, {"8"}))
                      .intersection(req(Operator::NotIn, {"5", "100"}));
  CHECK(allowed_integers(r, 0, 10) == std::vector<int>{4, 6, 7});
  // "100" lies outside [4, 7], so only "5" reduces the size.
  CHECK(r.size() == 3);
}

TEST_CASE("Gt 5 intersected with In [3,6,9] is In [6,9]", "[k8s]") {
  Requirement r = req(Operator::Gt, {"5"}).intersection(req(Operator::In, {"3", "6", "9"}));
  CHECK(r.values() == Strings{"6", "9"});
  CHECK(r.effective_operator() == Operator::In);
  CHECK(allowed_integers(r, 0, 10) == std::vector<int>{6, 9});
  // And from the other side.
  CHECK(req(Operator::In, {"3", "6", "9"}).intersection(req(Operator::Gt, {"5"})).values() ==
        Strings{"6", "9"});
}

TEST_CASE("bounds drop non-integer values from an In set", "[k8s]") {
  Requirement r = req(Operator::In, {"large", "4"}).intersection(req(Operator::Gte, {"0"}));
  CHECK(r.values() == Strings{"4"});
}

TEST_CASE("Gt 5 intersected with Lt 6 is empty", "[k8s]") {
  // Gte 6 and Lte 5 leave no integer.
  Requirement r = req(Operator::Gt, {"5"}).intersection(req(Operator::Lt, {"6"}));
  CHECK(r.empty());
  CHECK(r.effective_operator() == Operator::DoesNotExist);
  CHECK_FALSE(r.allows("5"));
  CHECK_FALSE(r.allows("6"));
}

TEST_CASE("minValues survives intersection as the larger of the two", "[k8s]") {
  Requirement a = req(Operator::In, {"a", "b", "c", "d"});
  a.set_min_values(2);
  Requirement b = req(Operator::In, {"a", "b", "c"});
  b.set_min_values(3);
  CHECK(a.intersection(b).min_values() == 3);
  CHECK(b.intersection(a).min_values() == 3);
  // One side without minValues keeps the other's.
  CHECK(a.intersection(req(Operator::Exists)).min_values() == 2);
  CHECK(req(Operator::Exists).intersection(a).min_values() == 2);
  CHECK_FALSE(req(Operator::Exists).intersection(req(Operator::In, {"a"})).min_values());
}

TEST_CASE("minValues is carried when Requirements add to an existing key", "[k8s]") {
  Requirement pool_side = req(Operator::In, {"m5.large", "m5.xlarge", "c5.large"});
  pool_side.set_min_values(2);
  Requirements r;
  r.add(std::string(label::kInstanceType), pool_side);
  r.add(std::string(label::kInstanceType), req(Operator::NotIn, {"c5.large"}));
  const Requirement* got = r.get(label::kInstanceType);
  REQUIRE(got != nullptr);
  CHECK(got->values() == Strings{"m5.large", "m5.xlarge"});
  CHECK(got->min_values() == 2);
}

TEST_CASE("Requirements from labels hold one value per key", "[k8s]") {
  Requirements r =
      Requirements::from_labels({{"team", "ml"}, {std::string(label::kZone), "us-east-1a"}});
  REQUIRE(r.get("team") != nullptr);
  CHECK(r.get("team")->single_value() == "ml");
  CHECK(r.has(label::kZone));
  CHECK_FALSE(r.has(label::kArch));
  CHECK(r.get(label::kArch) == nullptr);
}

TEST_CASE("two negative requirements on a key never conflict", "[k8s]") {
  // NotIn [a] ∩ DoesNotExist and DoesNotExist ∩ DoesNotExist are empty sets, but Karpenter's
  // Intersects lets a negative requirement meet a negative one.
  Requirements node;
  node.add("team", req(Operator::NotIn, {"a"}));
  node.add("tier", req(Operator::DoesNotExist));
  Requirements pod;
  pod.add("team", req(Operator::DoesNotExist));
  pod.add("tier", req(Operator::DoesNotExist));
  CHECK_FALSE(node.first_conflict(pod));
  CHECK_FALSE(pod.first_conflict(node));
}

TEST_CASE("In against DoesNotExist conflicts", "[k8s]") {
  Requirements node;
  node.add("team", req(Operator::In, {"ml"}));
  Requirements pod;
  pod.add("team", req(Operator::DoesNotExist));
  CHECK(node.first_conflict(pod) == "team");
  CHECK(pod.first_conflict(node) == "team");
}

TEST_CASE("disjoint In sets conflict on their key, the first key in order", "[k8s]") {
  Requirements node;
  node.add("b-key", req(Operator::In, {"1"}));
  node.add("a-key", req(Operator::In, {"x"}));
  node.add("c-key", req(Operator::In, {"same"}));
  Requirements pod;
  pod.add("c-key", req(Operator::In, {"same"}));
  pod.add("b-key", req(Operator::In, {"2"}));
  pod.add("a-key", req(Operator::In, {"y"}));
  CHECK(node.first_conflict(pod) == "a-key");
}

TEST_CASE("a key on one side only never conflicts", "[k8s]") {
  Requirements node;
  node.add(std::string(label::kZone), req(Operator::In, {"us-east-1a"}));
  Requirements pod;
  pod.add("team", req(Operator::In, {"ml"}));
  pod.add(std::string(label::kArch), req(Operator::DoesNotExist));
  CHECK_FALSE(node.first_conflict(pod));
}

TEST_CASE("an undefined custom label asked for positively is incompatible", "[k8s]") {
  Requirements pool;
  pool.add(std::string(label::kCapacityType), req(Operator::In, {"spot"}));
  Requirements pod_in;
  pod_in.add("team", req(Operator::In, {"ml"}));
  auto why = pool.incompatibility(pod_in);
  REQUIRE(why);
  CHECK(why->find("\"team\"") != std::string::npos);
  // Exists is positive too: the NodePool would have to define the label.
  Requirements pod_exists;
  pod_exists.add("team", req(Operator::Exists));
  CHECK(pool.incompatibility(pod_exists));
  // Intersects alone does not see it: the key is on one side only.
  CHECK_FALSE(pool.first_conflict(pod_in));
}

TEST_CASE("undefined well-known labels are compatible", "[k8s]") {
  Requirements pool;
  Requirements pod;
  pod.add(std::string(label::kZone), req(Operator::In, {"us-east-1a"}));
  pod.add(std::string(label::kArch), req(Operator::In, {"arm64"}));
  pod.add(std::string(label::kGpuName), req(Operator::In, {"a10g"}));
  pod.add("topology.k8s.aws/zone-id", req(Operator::In, {"use1-az1"}));
  CHECK_FALSE(pool.incompatibility(pod));
  CHECK(is_well_known_label(label::kInstanceType));
  CHECK(is_well_known_label("karpenter.k8s.aws/instance-gpu-count"));
  CHECK_FALSE(is_well_known_label("team"));
  CHECK_FALSE(is_well_known_label("example.com/accelerator"));
}

TEST_CASE("NotIn or DoesNotExist on an undefined custom label is compatible", "[k8s]") {
  Requirements pool;
  Requirements pod;
  pod.add("team", req(Operator::NotIn, {"ml"}));
  pod.add("dedicated", req(Operator::DoesNotExist));
  CHECK_FALSE(pool.incompatibility(pod));
}

TEST_CASE("a custom label the NodePool defines must intersect", "[k8s]") {
  Requirements pool;
  pool.add("team", req(Operator::In, {"ml"}));
  Requirements same;
  same.add("team", req(Operator::In, {"ml", "web"}));
  CHECK_FALSE(pool.incompatibility(same));
  Requirements other;
  other.add("team", req(Operator::In, {"web"}));
  auto why = pool.incompatibility(other);
  REQUIRE(why);
  CHECK(*why == "team requires In [web] but the node offers In [ml]");
}

// Karpenter's Requirement.String (requirement.go), with "…" for the values past five: what the
// unschedulable reasons quote.
TEST_CASE("a requirement described for a message", "[k8s]") {
  CHECK(req(Operator::In, {"f", "e", "d", "c", "b", "a"}).describe() == "In [a, b, c, d, e, …]");
  CHECK(req(Operator::In, {"b", "a"}).describe() == "In [a, b]");
  CHECK(req(Operator::NotIn, {"a"}).describe() == "NotIn [a]");
  CHECK(req(Operator::Exists).describe() == "Exists");
  CHECK(req(Operator::DoesNotExist).describe() == "DoesNotExist");
  CHECK(req(Operator::Gt, {"16954"}).describe() == ">=16955");
  CHECK(req(Operator::Gt, {"1"}).intersection(req(Operator::Lt, {"9"})).describe() == ">=2 <=8");
}

TEST_CASE("single-valued labels are the keys with exactly one allowed value", "[k8s]") {
  Requirements r;
  r.add(std::string(label::kZone), req(Operator::In, {"us-east-1a"}));
  r.add(std::string(label::kArch), req(Operator::In, {"amd64", "arm64"}));
  r.add(std::string(label::kOs), req(Operator::Exists));
  r.add("team", req(Operator::In, {"ml", "web"}));
  r.add("team", req(Operator::NotIn, {"web"}));
  r.add("gone", req(Operator::DoesNotExist));
  Labels expected{{std::string(label::kZone), "us-east-1a"}, {"team", "ml"}};
  CHECK(r.single_valued_labels() == expected);
}
