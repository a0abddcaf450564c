#include "fleetsim/autoscaling/metrics_store.hpp"

#include <catch2/catch.hpp>
#include <cmath>

using namespace fleetsim;

namespace {

SimTime t(std::int64_t s) { return at(seconds(s)); }

}  // namespace

TEST_CASE("series are interned by metric and sorted labels", "[autoscaling]") {
  MetricsStore store;
  SeriesId a = store.series("DCGM_FI_DEV_GPU_UTIL", {{"pod", "a"}, {"namespace", "serving"}});
  SeriesId b = store.series("DCGM_FI_DEV_GPU_UTIL", {{"namespace", "serving"}, {"pod", "a"}});
  SeriesId c = store.series("DCGM_FI_DEV_GPU_UTIL", {{"pod", "b"}});
  SeriesId d = store.series("other", {{"pod", "a"}, {"namespace", "serving"}});
  SeriesId e = store.series("other", {{"pod", "a"}, {"namespace", "serving"}, {"gpu", ""}});
  CHECK(a == b);
  CHECK(a != c);
  CHECK(a != d);
  CHECK(d == e);  // an empty label value is an absent label
  CHECK(store.series_count() == 3);
  CHECK(store.labels(a) == LabelSet{{"namespace", "serving"}, {"pod", "a"}});
  CHECK(store.label_value(a, "pod") == "a");
  CHECK(store.label_value(a, "__name__") == "DCGM_FI_DEV_GPU_UTIL");
  CHECK(store.label_value(c, "namespace").empty());
  CHECK(store.series_named("DCGM_FI_DEV_GPU_UTIL").size() == 2);
  CHECK(store.series_named("missing").empty());
}

TEST_CASE("instant selection takes the last sample within the 5-minute lookback", "[autoscaling]") {
  MetricsStore store;
  SeriesId s = store.series("m", {});
  store.record(s, t(0), 1);
  store.record(s, t(15), 2);
  CHECK_FALSE(store.instant(s, at(seconds(0) - micros(1))));  // before any sample
  CHECK(store.instant(s, t(0)) == 1.0);
  CHECK(store.instant(s, t(14)) == 1.0);
  CHECK(store.instant(s, t(15)) == 2.0);
  CHECK(store.instant(s, t(15 + 300)) == 2.0);  // exactly 5 m old: still seen (Prometheus 2.x)
  CHECK_FALSE(store.instant(s, at(seconds(15 + 300) + micros(1))));  // older than 5 m: stale
  store.record(s, t(330), 3);
  CHECK(store.instant(s, t(330)) == 3.0);
}

TEST_CASE("a staleness marker ends a series at once", "[autoscaling]") {
  MetricsStore store;
  SeriesId s = store.series("m", {{"pod", "a"}});
  store.record(s, t(0), 7);
  store.mark_stale(s, t(15));
  CHECK(store.instant(s, t(10)) == 7.0);
  CHECK_FALSE(store.instant(s, t(15)));
  CHECK_FALSE(store.instant(s, t(60)));
  CHECK(is_stale_marker(stale_marker()));
  CHECK_FALSE(is_stale_marker(std::nan("")));
}

TEST_CASE("range selection is [t - w, t]", "[autoscaling]") {
  MetricsStore store;
  SeriesId s = store.series("m", {});
  for (int i = 0; i <= 8; ++i) store.record(s, t(15 * i), i);
  auto r = store.range(s, t(90), seconds(60));
  REQUIRE(r.size() == 5);  // 30, 45, 60, 75, 90
  CHECK(r.front().value == 2.0);
  CHECK(r.back().value == 6.0);
  CHECK(store.range(s, t(200), seconds(60)).empty());
}

TEST_CASE("retention keeps memory bounded over a long series", "[autoscaling]") {
  MetricsStore store(minutes(2));
  CHECK(store.retention() == minutes(7));
  store.require_range(minutes(1));  // shorter: no change
  CHECK(store.retention() == minutes(7));
  std::vector<SeriesId> pods;
  for (int p = 0; p < 10; ++p) pods.push_back(store.series("m", {{"pod", std::to_string(p)}}));
  // Seven minutes at one sample per 15 s is 29 samples a series, with the boundary sample.
  constexpr std::size_t kBound = 10 * 29;
  std::size_t peak = 0;
  for (int i = 0; i < 24 * 60 * 4; ++i) {  // a day of 15 s scrapes
    SimTime now = t(15 * i);
    store.scrape(now);
    for (SeriesId s : pods) store.record(s, now, i);
    peak = std::max(peak, store.sample_count());
  }
  CHECK(peak <= kBound);
  CHECK(store.sample_count() == kBound);
  SimTime end = t(15 * (24 * 60 * 4 - 1));
  CHECK(store.range(pods[0], end, minutes(2)).size() == 9);
  CHECK(store.instant(pods[0], end) == 24.0 * 60 * 4 - 1);
  // Series that stop reporting release their samples.
  store.scrape(end + minutes(8));
  CHECK(store.sample_count() == 0);
}

TEST_CASE("an alias mirrors every series of its metric, sample for sample", "[autoscaling]") {
  // As a recording rule `gpu_utilization = DCGM_FI_DEV_GPU_UTIL` would (issue 12, finding 1).
  MetricsStore store;
  store.add_alias("gpu_utilization", "DCGM_FI_DEV_GPU_UTIL");
  SeriesId a = store.series("DCGM_FI_DEV_GPU_UTIL", {{"pod", "a"}});
  SeriesId b = store.series("DCGM_FI_DEV_GPU_UTIL", {{"pod", "b"}});
  CHECK(store.series("DCGM_FI_DEV_GPU_UTIL", {{"pod", "a"}}) == a);  // no second mirror
  REQUIRE(store.series_named("gpu_utilization").size() == 2);
  store.record(a, t(0), 40);
  store.record(b, t(0), 90);
  store.record(a, t(15), 60);
  store.mark_stale(b, t(15));
  const SeriesId mirror_a = store.series_named("gpu_utilization")[0];
  const SeriesId mirror_b = store.series_named("gpu_utilization")[1];
  CHECK(store.labels(mirror_a) == LabelSet{{"pod", "a"}});
  CHECK(store.label_value(mirror_a, "__name__") == "gpu_utilization");
  CHECK(store.instant(mirror_a, t(15)) == 60.0);
  CHECK(store.range(mirror_a, t(15), seconds(30)).size() == 2);
  CHECK(store.instant(mirror_b, t(0)) == 90.0);
  CHECK_FALSE(store.instant(mirror_b, t(15)));  // the staleness marker is mirrored too
  CHECK(store.series_named("other").empty());
}

TEST_CASE(
    "a retired series is freed once its samples leave retention and its id serves the next "
    "new series in creation order",
    "[autoscaling]") {
  MetricsStore store;  // retention: the 5-minute lookback delta
  store.add_alias("vllm:alias", "m");
  const SeriesId a = store.series("m", {{"pod", "a"}});
  const SeriesId b = store.series("m", {{"pod", "b"}});
  store.record(a, t(0), 1);
  store.record(b, t(0), 2);
  const std::size_t slots = store.series_count();  // a, b and their mirrors
  CHECK(slots == 4);
  store.retire(a, t(15));
  store.scrape(t(15 + 300));  // the marker is still within retention
  CHECK_FALSE(store.instant(a, t(15)));
  store.record(b, t(400), 3);
  store.scrape(t(15 + 301));
  // a and its mirror are gone: the name and labels are free again, no slot was added.
  const SeriesId c = store.series("m", {{"pod", "c"}});
  CHECK(store.series_count() == slots);
  CHECK((c == a || store.series("m", {{"pod", "d"}}) == a));
  store.record(c, t(400), 4);
  // Listed after b although its id may be smaller: creation order, as before the reuse.
  const std::span<const SeriesId> named = store.series_named("m");
  REQUIRE(named.size() >= 2);
  CHECK(named[0] == b);
  CHECK(named[1] == c);
  CHECK(store.label_value(c, "pod") == "c");
  // A retired series that a new owner asks for again is kept.
  store.retire(b, t(401));
  CHECK(store.series("m", {{"pod", "b"}}) == b);
  store.scrape(t(1000));
  CHECK(store.series("m", {{"pod", "b"}}) == b);
  CHECK(store.label_value(b, "pod") == "b");
}

// The custom metrics API's look-up (AutoscalerView::read): a pod's series of one metric, with
// samples, in creation order; a pod whose series left retention has none, and no entry is kept.
TEST_CASE("series_of_pod lists a pod's series of a metric that hold samples", "[autoscaling]") {
  MetricsStore store;  // retention: the 5-minute lookback delta
  const SeriesId a = store.series("m", {{"pod", "a"}, {"model_name", "x"}});
  const SeriesId a2 = store.series("m", {{"pod", "a"}, {"model_name", "y"}});
  const SeriesId other = store.series("n", {{"pod", "a"}});
  const SeriesId b = store.series("m", {{"pod", "b"}});
  CHECK(store.series_of_pod("m", "a").empty());  // no samples yet
  for (SeriesId id : {a2, a, other, b}) store.record(id, t(0), 1);
  const std::span<const SeriesId> of_a = store.series_of_pod("m", "a");
  REQUIRE(of_a.size() == 2);
  CHECK(of_a[0] == a);  // creation order, not recording order
  CHECK(of_a[1] == a2);
  CHECK(store.series_of_pod("n", "a").size() == 1);
  CHECK(store.series_of_pod("m", "c").empty());
  store.retire(a, t(15));
  store.retire(a2, t(15));
  store.record(b, t(400), 2);
  store.scrape(t(400));
  CHECK(store.series_of_pod("m", "a").empty());
  REQUIRE(store.series_of_pod("m", "b").size() == 1);
  CHECK(store.series_of_pod("m", "b")[0] == b);
}

// What a reader's kept look-ups rest on (AutoscalerView's PodSeriesCache): the ids it found stay
// right while listing() is unchanged.
TEST_CASE("listing changes when a series joins or leaves the lists but not when it gains a sample",
          "[autoscaling]") {
  MetricsStore store;  // retention: the 5-minute lookback delta
  const SeriesId a = store.series("m", {{"pod", "a"}});
  const std::uint64_t created = store.listing();
  store.record(a, t(0), 1);  // its first sample lists it
  const std::uint64_t joined = store.listing();
  CHECK(joined != created);
  store.record(a, t(15), 2);
  store.scrape(t(15));
  CHECK(store.listing() == joined);
  store.retire(a, t(30));
  store.scrape(t(30 + 300));  // the marker is still within retention
  CHECK(store.listing() == joined);
  store.scrape(t(30 + 301));  // gone, and its id free for the next new series
  CHECK(store.series_of_pod("m", "a").empty());
  CHECK(store.listing() != joined);
}

// A scrape looks only at the series whose check is due and drops their old samples then; the
// reads must see what eager trimming of every series at every scrape would leave (checked here
// against that model), and a series must leave at the very scrape its last sample expires.
TEST_CASE("lazily trimmed series read as if every scrape trimmed them all", "[autoscaling]") {
  MetricsStore store(minutes(1));  // retention 6 minutes
  std::vector<SeriesId> ids;
  std::vector<std::vector<StoredSample>> kept(6);  // the model: eagerly trimmed
  for (int k = 0; k < 6; ++k) ids.push_back(store.series("m", {{"pod", std::to_string(k)}}));
  const auto model_instant = [&](int k, SimTime q) -> std::optional<double> {
    std::optional<StoredSample> last;
    for (const StoredSample& s : kept[k])
      if (s.at <= q) last = s;
    if (!last || last->at < q - kPrometheusLookbackDelta) return std::nullopt;
    return last->value;
  };
  const auto model_range = [&](int k, SimTime q, SimDuration w) {
    std::size_t n = 0;
    for (const StoredSample& s : kept[k]) n += s.at >= q - w && s.at <= q;
    return n;
  };
  std::uint64_t listing = store.listing();
  for (int i = 0; i < 400; ++i) {
    const SimTime now = t(15 * i);
    store.scrape(now);
    bool left = false;
    for (auto& samples : kept) {
      const bool had = !samples.empty();
      std::erase_if(samples, [&](const StoredSample& s) { return s.at < now - minutes(6); });
      left = left || (had && samples.empty());
    }
    // A series that leaves changes the listing at this scrape, not later.
    CHECK((store.listing() != listing) == left);
    for (int k = 0; k < 6; ++k) {
      // Series k reports every (k + 1)th scrape; series 5 is away from scrape 100 to 200.
      if (i % (k + 1) != 0 || (k == 5 && i > 100 && i < 200)) continue;
      store.record(ids[k], now, i);
      kept[k].push_back({now, static_cast<double>(i)});
    }
    listing = store.listing();
    std::size_t held = 0;
    std::vector<SeriesId> listed;
    for (int k = 0; k < 6; ++k) {
      held += kept[k].size();
      if (!kept[k].empty()) listed.push_back(ids[k]);
      for (int back : {0, 20, 300, 400, 500}) {
        const SimTime q = now - seconds(back);
        CHECK(store.instant(ids[k], q) == model_instant(k, q));
        CHECK(store.range(ids[k], q, minutes(1)).size() == model_range(k, q, minutes(1)));
      }
    }
    CHECK(store.sample_count() == held);
    const std::span<const SeriesId> named = store.series_named("m");
    CHECK(std::vector<SeriesId>(named.begin(), named.end()) == listed);
  }
}

// A run keeps only the metrics its HPAs and KEDA's queries read (World::keep_metrics_read).
TEST_CASE("a store keeps only the metrics read, their aliases' sources, and all for a sink",
          "[autoscaling]") {
  MetricsStore store;
  store.add_alias("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc");
  store.keep_only({"vllm:num_requests_running", "vllm:kv_cache_usage_perc"});
  const SeriesId running = store.series("vllm:num_requests_running", {{"pod", "a"}});
  const SeriesId waiting = store.series("vllm:num_requests_waiting", {{"pod", "a"}});
  const SeriesId cache = store.series("vllm:gpu_cache_usage_perc", {{"pod", "a"}});
  CHECK(running != kNotKept);
  CHECK(waiting == kNotKept);
  CHECK(cache != kNotKept);  // its alias is read
  store.record(running, t(0), 3);
  store.record(waiting, t(0), 2);
  store.record(cache, t(0), 0.5);
  store.retire(waiting, t(15));
  CHECK(store.instant(running, t(0)) == 3.0);
  CHECK(store.series_named("vllm:num_requests_waiting").empty());
  CHECK(store.series_named("vllm:kv_cache_usage_perc").size() == 1);

  struct Count final : MetricSampleSink {
    void on_sample(std::string_view, const LabelSet&, SimTime, double) override { ++samples; }
    int samples = 0;
  } sink;
  store.add_sink(sink);
  const SeriesId seen = store.series("vllm:num_requests_waiting", {{"pod", "b"}});
  REQUIRE(seen != kNotKept);
  store.record(seen, t(15), 1);
  CHECK(sink.samples == 1);
}
