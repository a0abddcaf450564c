// capacityReservationSelectorTerms: which of the scenario's reservations an EC2NodeClass selects,
// and the terms the EC2NodeClass CRD refuses.
#include "fleetsim/scenario/reservation_decoder.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "unit/scenario/scenario_test_util.hpp"

using namespace fleetsim;

namespace {

std::vector<CapacityReservationSelectorTerm> terms(std::string_view yaml) {
  const YamlDocuments docs = parse_yaml(yaml, "test.yaml");
  return decode_capacity_reservation_terms(YamlValue(docs.documents.at(0), docs.file));
}

std::string terms_error(std::string_view yaml) {
  return test::config_error([&] { terms(yaml); });
}

// The reservations of Karpenter AWS capacityreservation/suite_test.go, plus an open one of
// another owner and team.
std::vector<Reservation> reservations() {
  auto make = [](std::string id, std::string owner, std::string criteria, std::string team) {
    Reservation r;
    r.id = std::move(id);
    r.instance_type = "m5.large";
    r.zone = "us-east-1a";
    r.count = 10;
    r.owner_id = std::move(owner);
    r.instance_match_criteria = std::move(criteria);
    r.tags = {{"karpenter.sh/discovery", "test"}, {"team", std::move(team)}};
    return r;
  };
  return {make("cr-m5large1a1", "012345678901", "targeted", "a"),
          make("cr-m5large1a2", "012345678901", "targeted", "b"),
          make("cr-m5large1a3", "999999999999", "open", "c")};
}

std::vector<std::int32_t> selected(std::string_view yaml) {
  const std::vector<Reservation> all = reservations();
  return select_reservations(terms(yaml), all);
}

}  // namespace

// suite_test.go It("should resolve capacity reservations by ID").
TEST_CASE("a term with an id selects that reservation only", "[scenario]") {
  CHECK(selected("- id: cr-m5large1a2") == std::vector<std::int32_t>{1});
  CHECK(selected("- id: cr-nothere").empty());
}

// It("should resolve capacity reservations by tags"), and "*" for any value of a key.
TEST_CASE("a term with tags selects the reservations that have them all", "[scenario]") {
  CHECK(selected("- tags: {karpenter.sh/discovery: test}") == std::vector<std::int32_t>{0, 1, 2});
  CHECK(selected("- tags: {karpenter.sh/discovery: test, team: b}") ==
        std::vector<std::int32_t>{1});
  CHECK(selected("- tags: {team: \"*\"}") == std::vector<std::int32_t>{0, 1, 2});
  CHECK(selected("- tags: {owner: \"*\"}").empty());
}

// It("should resolve capacity reservations by tags + owner").
TEST_CASE("ownerID narrows a term with tags to one account", "[scenario]") {
  CHECK(selected("- {tags: {karpenter.sh/discovery: test}, ownerID: \"999999999999\"}") ==
        std::vector<std::int32_t>{2});
}

// It("...by instance match criteria 'open'"), It("...'targeted'") and It("...with tags").
TEST_CASE("instanceMatchCriteria selects open or targeted reservations", "[scenario]") {
  CHECK(selected("- instanceMatchCriteria: open") == std::vector<std::int32_t>{2});
  CHECK(selected("- instanceMatchCriteria: targeted") == std::vector<std::int32_t>{0, 1});
  CHECK(selected("- {instanceMatchCriteria: targeted, tags: {team: a}}") ==
        std::vector<std::int32_t>{0});
}

TEST_CASE("terms are ORed together in the reservations' order", "[scenario]") {
  CHECK(selected("- id: cr-m5large1a3\n- tags: {team: a}") == std::vector<std::int32_t>{0, 2});
}

// ec2nodeclass_validation_cel_test.go, Context "CapacityReservationSelectorTerms".
TEST_CASE("the EC2NodeClass CRD's rules on selector terms", "[scenario]") {
  // It("should fail when a capacity reservation selector term has no values").
  CHECK(terms_error("- ownerID: \"012345678901\"") ==
        "test.yaml:1:3: [0]: expected at least one, got none, ['tags', 'id', "
        "'instanceMatchCriteria']");
  CHECK(terms_error("- {id: cr-abc, tags: {team: a}}") ==
        "test.yaml:1:3: [0]: 'id' is mutually exclusive, cannot be set along with other fields "
        "in a capacity reservation selector term");
  // It("should fail with a capacity reservation selector on a malformed id").
  CHECK(terms_error("- id: r-12345749") ==
        "test.yaml:1:7: [0].id: \"r-12345749\" does not match ^cr-[0-9a-z]+$");
  // It("should fail when a capacity reservation selector term has a tag map value that is
  // empty").
  CHECK(terms_error("- tags: {team: \"\"}") ==
        "test.yaml:1:9: [0].tags: empty tag keys or values aren't supported");
  CHECK(terms_error("- {tags: {team: a}, ownerID: \"12\"}") ==
        "test.yaml:1:30: [0].ownerID: ownerID does not match ^[0-9]{12}$");
  CHECK(terms_error("- instanceMatchCriteria: closed") ==
        "test.yaml:1:26: [0].instanceMatchCriteria: unknown instance match criteria \"closed\"; "
        "expected open or targeted");
}
