// A Prometheus-like time-series store for one run: scraped samples per series, bounded retention.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fleetsim/core/error.hpp"
#include "fleetsim/core/time.hpp"

namespace fleetsim {

// Prometheus --query.lookback-delta default: an instant selector sees a series' last sample
// only if it is at most this old.
inline constexpr SimDuration kPrometheusLookbackDelta = minutes(5);
// The label Prometheus keeps the metric name in.
inline constexpr std::string_view kMetricNameLabel = "__name__";

struct Label {
  std::string name;
  std::string value;
  auto operator<=>(const Label&) const = default;
};

// Sorted by name, names unique (as Prometheus keeps them).
using LabelSet = std::vector<Label>;

using SeriesId = std::uint32_t;
// The id of a series the store does not keep (MetricsStore::keep_only): its samples go nowhere.
inline constexpr SeriesId kNotKept = std::numeric_limits<SeriesId>::max();

struct StoredSample {
  SimTime at;
  double value = 0;
};

// Prometheus' staleness marker (model/value.StaleNaN): a NaN with this exact bit pattern, written
// when a target disappears so that the series ends at once instead of after the lookback delta.
double stale_marker();
bool is_stale_marker(double value);

// Receives every scraped sample as it is stored (an exporter of the run's metrics). A staleness
// marker arrives as such: the series ends there.
class MetricSampleSink {
 public:
  virtual ~MetricSampleSink() = default;
  virtual void on_sample(std::string_view metric, const LabelSet& labels, SimTime t,
                         double value) = 0;
};

// A series' samples: a vector whose append is short enough to inline where a scrape records
// (std::vector's, with its reallocation, is not), growing out of line. The scrape's function is
// large enough that GCC inlines no more into it unless told (always_inline).
class SampleBuffer {
 public:
  [[gnu::always_inline]] void push_back(StoredSample s) {
    if (size_ == capacity_) grow();
    data_[size_++] = s;
  }
  std::size_t size() const { return size_; }
  StoredSample& back() { return data_[size_ - 1]; }
  const StoredSample& back() const { return data_[size_ - 1]; }
  const StoredSample* begin() const { return data_.get(); }
  const StoredSample* end() const { return data_.get() + size_; }
  // Drops the first n samples, keeping the capacity.
  void drop_front(std::size_t n);
  // Empty, with no memory.
  void release();

 private:
  void grow();
  std::unique_ptr<StoredSample[]> data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

class MetricsStore {
 public:
  // `longest_range`: the longest range window ([w]) any query will use; retention is that plus
  // the lookback delta, so memory stays flat however long the run.
  explicit MetricsStore(SimDuration longest_range = SimDuration{0});

  // Widens retention for a query with a longer range window (call before the samples it needs
  // are scraped: a window longer than retention at the time only sees what was kept).
  void require_range(SimDuration range);
  SimDuration retention() const { return retention_; }

  // The series of `metric` with these labels, created on first use (kNotKept: keep_only). Labels
  // need not be sorted; a later duplicate name replaces an earlier one. Empty label values are
  // dropped, as Prometheus treats an empty value as an absent label.
  SeriesId series(std::string_view metric, LabelSet labels);

  // From now on, every series of `metric` is mirrored under the name `alias`, sample for
  // sample, as a Prometheus recording rule `alias = metric` would (for exporters that name a
  // metric differently). Call before the series exist.
  void add_alias(std::string alias, std::string_view metric);
  // `sink` sees every sample recorded from now on.
  void add_sink(MetricSampleSink& sink) { sinks_.push_back(&sink); }
  // From now on, series() keeps only these metrics and those with an alias among them, and gives
  // kNotKept for any other, whose samples record() drops: for a run whose readers are all known
  // (its HPAs and KEDA's queries), so that a scrape stores only what is read. A store with a sink
  // keeps every metric, as the sink reads them all.
  void keep_only(std::vector<std::string> metrics);

  // Starts a scrape round at t: samples older than t − retention are dropped.
  void scrape(SimTime t);
  // Appends a sample. Times per series must not decrease, nor be older than the last scrape's
  // cutoff; a second sample at the same time replaces the first (Prometheus would reject it as a
  // duplicate).
  [[gnu::always_inline]] inline void record(SeriesId id, SimTime t, double value);
  // Writes a staleness marker: the series has no value from t on (a pod went away).
  void mark_stale(SeriesId id, SimTime t) { record(id, t, stale_marker()); }
  // mark_stale, from its only owner, which forgets the id: once its samples leave retention the
  // series is freed and its id reused, so a month of pods that come and go keeps memory flat.
  void retire(SeriesId id, SimTime t);

  // Ids in use are below it; a freed id names a series with no samples until reused.
  std::size_t series_count() const { return series_.size(); }
  const std::string& metric(SeriesId id) const { return series_[id].metric; }
  const LabelSet& labels(SeriesId id) const { return series_[id].labels; }
  // A label's value, with the metric name as "__name__"; "" when absent (Prometheus semantics).
  std::string_view label_value(SeriesId id, std::string_view name) const;
  // The series of one metric that hold samples, in creation order; empty when none.
  std::span<const SeriesId> series_named(std::string_view metric) const;
  // Those of them whose `pod` label is `pod` (the custom metrics API's look-up, per pod).
  std::span<const SeriesId> series_of_pod(std::string_view metric, std::string_view pod) const;
  // Every series that holds samples, in creation order.
  std::vector<SeriesId> all_series() const;
  // Changes whenever a series joins or leaves those lists (and before a freed id is reused), so
  // a reader may keep the ids it found there for as long as this stays the same.
  std::uint64_t listing() const { return listing_; }

  // Instant selection: the last sample at or before t, if it is within the lookback delta
  // ([t − 5m, t], closed as in Prometheus 2.x) and is not a staleness marker.
  std::optional<double> instant(SeriesId id, SimTime t) const;
  // Range selection: the samples in [t − range, t] (closed as in Prometheus 2.x; 3.x made the
  // start open), staleness markers included; callers skip them as Prometheus does.
  std::span<const StoredSample> range(SeriesId id, SimTime t, SimDuration range) const;

  // Samples kept over all series (for the retention bound; counts, so not for hot paths).
  std::size_t sample_count() const;

 private:
  struct Series {
    std::string metric;
    LabelSet labels;
    // [head, end) are held, of which those before cutoff_ are gone but not yet dropped (scrape);
    // the prefix awaits compaction.
    SampleBuffer samples;
    std::size_t head = 0;
    std::vector<SeriesId> mirrors;  // the same series under each alias of its metric
    std::uint64_t created = 0;      // creation order, which a reused id does not keep
    bool held = false;              // listed in holding_
    bool retired = false;           // freed once it holds no sample
  };
  bool keeps(std::string_view metric) const;
  // The series and whether it was made now.
  std::pair<SeriesId, bool> find_or_add(std::string_view metric, LabelSet unique);
  void record_in_full(SeriesId id, SimTime t, double value);
  std::span<const StoredSample> held(const Series& s) const;
  void trim(Series& s);
  void check_after(SeriesId id);
  void list(SeriesId id);
  void unlist(SeriesId id);
  void free(SeriesId id);

  SimDuration retention_;
  std::vector<Series> series_;
  std::vector<SeriesId> freed_;  // ids to reuse, last freed first
  std::uint64_t created_ = 0;
  std::vector<SeriesId> holding_;  // the series with samples, in no particular order
  // The latest scrape's t − retention (the highest, should retention widen): older samples are
  // gone. A series is trimmed only when its check is due, and readers skip what it still holds.
  SimTime cutoff_ = SimTime::min();
  // Each series in holding_ once, under the time after which its last sample may leave
  // retention: a scrape looks only at the series whose time has passed.
  std::map<SimTime, std::vector<SeriesId>> due_;
  std::map<std::string, SeriesId, std::less<>> by_key_;  // metric + labels, serialized
  std::map<std::string, std::vector<SeriesId>, std::less<>> by_metric_;
  // (metric, pod label) -> the listed series, in creation order; an entry goes with its last.
  // Hashed: every HPA sync looks up each pod's series, and the map is never iterated.
  struct PodKeyHash {
    using is_transparent = void;
    template <typename K>
    std::size_t operator()(const K& k) const {
      const std::size_t a = std::hash<std::string_view>{}(k.first);
      const std::size_t b = std::hash<std::string_view>{}(k.second);
      return a ^ (b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2));
    }
  };
  struct PodKeyEqual {
    using is_transparent = void;
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return std::string_view(a.first) == std::string_view(b.first) &&
             std::string_view(a.second) == std::string_view(b.second);
    }
  };
  std::unordered_map<std::pair<std::string, std::string>, std::vector<SeriesId>, PodKeyHash,
                     PodKeyEqual>
      by_pod_;
  std::map<std::string, std::vector<std::string>, std::less<>> aliases_;  // metric -> aliases
  std::vector<MetricSampleSink*> sinks_;
  std::optional<std::vector<std::string>> kept_;  // keep_only's metrics, sorted
  std::uint64_t listing_ = 0;
};

// Every scrape records each pod's series once: the usual case, a later sample for a series that
// holds samples and has no mirror or sink to feed, is short.
void MetricsStore::record(SeriesId id, SimTime t, double value) {
  if (id == kNotKept) return;
  FLEETSIM_ASSERT(id < series_.size());
  Series& s = series_[id];
  if (s.held && s.mirrors.empty() && sinks_.empty() && s.samples.back().at < t) {
    s.samples.push_back({.at = t, .value = value});
    return;
  }
  record_in_full(id, t, value);
}

}  // namespace fleetsim
