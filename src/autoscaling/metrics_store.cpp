#include "fleetsim/autoscaling/metrics_store.hpp"

#include <algorithm>
#include <bit>

#include "fleetsim/core/error.hpp"

namespace fleetsim {

namespace {

// Prometheus model/value/value.go: StaleNaN.
constexpr std::uint64_t kStaleNaNBits = 0x7ff0000000000002ULL;

// Compact a series' vector once the dropped prefix is at least this long and half of it, so
// trimming stays amortized O(1) per sample.
constexpr std::size_t kCompactMinimum = 64;

// The label the custom metrics API finds a pod's series by (series_of_pod).
constexpr std::string_view kPodLabel = "pod";

std::string series_key(std::string_view metric, const LabelSet& labels) {
  // '\xff' cannot occur in a metric or label name, so the key is unambiguous.
  std::string key(metric);
  for (const Label& l : labels) {
    key += '\xff';
    key += l.name;
    key += '\xff';
    key += l.value;
  }
  return key;
}

}  // namespace

void SampleBuffer::grow() {
  capacity_ = std::max<std::size_t>(4, 2 * capacity_);
  auto grown = std::make_unique_for_overwrite<StoredSample[]>(capacity_);
  std::copy(begin(), end(), grown.get());
  data_ = std::move(grown);
}

void SampleBuffer::drop_front(std::size_t n) {
  std::copy(begin() + n, end(), data_.get());
  size_ -= n;
}

void SampleBuffer::release() {
  data_.reset();
  size_ = capacity_ = 0;
}

double stale_marker() { return std::bit_cast<double>(kStaleNaNBits); }
bool is_stale_marker(double value) { return std::bit_cast<std::uint64_t>(value) == kStaleNaNBits; }

MetricsStore::MetricsStore(SimDuration longest_range)
    : retention_(std::max(longest_range, SimDuration{0}) + kPrometheusLookbackDelta) {}

void MetricsStore::require_range(SimDuration range) {
  retention_ = std::max(retention_, range + kPrometheusLookbackDelta);
}

void MetricsStore::keep_only(std::vector<std::string> metrics) {
  std::sort(metrics.begin(), metrics.end());
  kept_ = std::move(metrics);
}

bool MetricsStore::keeps(std::string_view metric) const {
  if (!kept_ || !sinks_.empty()) return true;
  const auto kept = [&](std::string_view name) {
    return std::binary_search(kept_->begin(), kept_->end(), name, std::less<>{});
  };
  if (kept(metric)) return true;
  const auto a = aliases_.find(metric);
  return a != aliases_.end() && std::any_of(a->second.begin(), a->second.end(), kept);
}

SeriesId MetricsStore::series(std::string_view metric, LabelSet labels) {
  if (!keeps(metric)) return kNotKept;
  std::stable_sort(labels.begin(), labels.end(),
                   [](const Label& a, const Label& b) { return a.name < b.name; });
  LabelSet unique;
  unique.reserve(labels.size());
  for (Label& l : labels) {
    if (!unique.empty() && unique.back().name == l.name) {
      unique.back().value = std::move(l.value);  // the later one wins
    } else {
      unique.push_back(std::move(l));
    }
  }
  std::erase_if(unique, [](const Label& l) { return l.value.empty(); });
  const auto [id, made] = find_or_add(metric, unique);
  if (!made) {
    // A new owner keeps a retired series.
    series_[id].retired = false;
    for (SeriesId mirror : series_[id].mirrors) series_[mirror].retired = false;
    return id;
  }
  if (auto a = aliases_.find(metric); a != aliases_.end()) {
    for (const std::string& alias : a->second) {
      const SeriesId mirror = find_or_add(alias, unique).first;
      series_[id].mirrors.push_back(mirror);
    }
  }
  return id;
}

std::pair<SeriesId, bool> MetricsStore::find_or_add(std::string_view metric, LabelSet unique) {
  std::string key = series_key(metric, unique);
  if (auto it = by_key_.find(key); it != by_key_.end()) return {it->second, false};
  Series made{.metric = std::string(metric), .labels = std::move(unique), .created = created_++};
  SeriesId id = 0;
  if (freed_.empty()) {
    id = static_cast<SeriesId>(series_.size());
    series_.push_back(std::move(made));
  } else {
    id = freed_.back();
    freed_.pop_back();
    series_[id] = std::move(made);
  }
  by_key_.emplace(std::move(key), id);
  auto named = by_metric_.find(metric);
  if (named == by_metric_.end()) named = by_metric_.emplace(std::string(metric), 0).first;
  named->second.push_back(id);
  return {id, true};
}

void MetricsStore::add_alias(std::string alias, std::string_view metric) {
  FLEETSIM_ASSERT(series_named(metric).empty());
  auto it = aliases_.find(metric);
  if (it == aliases_.end()) it = aliases_.emplace(std::string(metric), 0).first;
  it->second.push_back(std::move(alias));
}

// A series leaves at the first scrape whose cutoff passes its last sample, and its last sample
// only moves later (as does the cutoff, for a given scrape time, retention only widening): so a
// series whose check is not yet due cannot have left, and a scrape looks at those whose check is.
// Most series take a sample every scrape and are looked at once per retention, not per scrape.
void MetricsStore::scrape(SimTime t) {
  const SimTime cutoff = t - retention_;
  cutoff_ = std::max(cutoff_, cutoff);
  bool left = false;
  while (!due_.empty() && due_.begin()->first < t) {
    for (SeriesId id : due_.begin()->second) {
      Series& s = series_[id];
      if (s.samples.back().at < cutoff) {
        left = true;  // removed below, in holding_'s order
      } else {
        trim(s);
        check_after(id);  // due at or after t: not in this loop
      }
    }
    due_.erase(due_.begin());
  }
  if (!left) return;
  // In holding_'s order, as the ids freed here are reused last freed first.
  for (std::size_t i = 0; i < holding_.size();) {
    Series& s = series_[holding_[i]];
    if (s.samples.back().at < cutoff) {
      // A series that went away (its pod is gone) keeps no memory beyond its name and labels.
      s.samples.release();
      s.head = 0;
      s.held = false;
      unlist(holding_[i]);
      if (s.retired) free(holding_[i]);
      holding_[i] = holding_.back();
      holding_.pop_back();
    } else {
      ++i;
    }
  }
}

// Drops the samples before cutoff_ (the series keeps its last).
void MetricsStore::trim(Series& s) {
  // A retention's worth of samples a check: searched, not walked.
  const StoredSample* from = s.samples.begin() + s.head;
  s.head += static_cast<std::size_t>(
      std::lower_bound(from, s.samples.end(), cutoff_,
                       [](const StoredSample& x, SimTime c) { return x.at < c; }) -
      from);
  if (s.head >= kCompactMinimum && 2 * s.head >= s.samples.size()) {
    s.samples.drop_front(s.head);
    s.head = 0;
  }
}

void MetricsStore::check_after(SeriesId id) {
  // Mostly the latest time (the scrape's plus retention), where a search is not needed.
  const SimTime due = series_[id].samples.back().at + retention_;
  auto at = due_.empty() ? due_.end() : std::prev(due_.end());
  if (at == due_.end() || at->first != due) at = due_.try_emplace(due_.end(), due);
  at->second.push_back(id);
}

std::size_t MetricsStore::sample_count() const {
  std::size_t count = 0;
  for (SeriesId id : holding_) {
    const std::span<const StoredSample> samples = held(series_[id]);
    count += static_cast<std::size_t>(
        samples.end() -
        std::lower_bound(samples.begin(), samples.end(), cutoff_,
                         [](const StoredSample& s, SimTime x) { return s.at < x; }));
  }
  return count;
}

void MetricsStore::record_in_full(SeriesId id, SimTime t, double value) {
  Series& s = series_[id];  // recording adds no series: the reference stays good
  if (!s.mirrors.empty() || !sinks_.empty()) {
    for (SeriesId mirror : s.mirrors) record(mirror, t, value);
    for (MetricSampleSink* sink : sinks_) sink->on_sample(s.metric, s.labels, t, value);
  }
  if (s.held) {
    StoredSample& last = s.samples.back();
    FLEETSIM_ASSERT(last.at <= t);
    if (last.at == t) {
      last.value = value;
      return;
    }
  }
  FLEETSIM_ASSERT(t >= cutoff_);  // the reads would not see it
  s.samples.push_back({.at = t, .value = value});
  if (!s.held) {
    s.held = true;
    holding_.push_back(id);
    check_after(id);
    list(id);
  }
}

void MetricsStore::retire(SeriesId id, SimTime t) {
  if (id == kNotKept) return;
  mark_stale(id, t);
  series_[id].retired = true;
  for (SeriesId mirror : series_[id].mirrors) series_[mirror].retired = true;
}

void MetricsStore::free(SeriesId id) {
  Series& s = series_[id];
  by_key_.erase(series_key(s.metric, s.labels));
  s = Series{};
  freed_.push_back(id);
}

// series_named lists a metric's series that hold samples, in creation order: a series without
// samples matches no query, and the autoscalers read every listed series each sync.
void MetricsStore::list(SeriesId id) {
  const auto add = [&](std::vector<SeriesId>& listed) {
    const auto at =
        std::lower_bound(listed.begin(), listed.end(), series_[id].created,
                         [&](SeriesId a, std::uint64_t c) { return series_[a].created < c; });
    if (at == listed.end() || *at != id) listed.insert(at, id);
  };
  ++listing_;
  const Series& s = series_[id];
  add(by_metric_.find(s.metric)->second);
  if (const std::string_view pod = label_value(id, kPodLabel); !pod.empty()) {
    auto it = by_pod_.find(std::pair{std::string_view(s.metric), pod});
    if (it == by_pod_.end()) it = by_pod_.emplace(std::pair{s.metric, std::string(pod)}, 0).first;
    add(it->second);
  }
}

void MetricsStore::unlist(SeriesId id) {
  const auto remove = [&](std::vector<SeriesId>& listed) {
    const auto at =
        std::lower_bound(listed.begin(), listed.end(), series_[id].created,
                         [&](SeriesId a, std::uint64_t c) { return series_[a].created < c; });
    if (at != listed.end() && *at == id) listed.erase(at);
  };
  ++listing_;
  const Series& s = series_[id];
  remove(by_metric_.find(s.metric)->second);
  if (const std::string_view pod = label_value(id, kPodLabel); !pod.empty()) {
    const auto it = by_pod_.find(std::pair{std::string_view(s.metric), pod});
    if (it == by_pod_.end()) return;
    remove(it->second);
    if (it->second.empty()) by_pod_.erase(it);
  }
}

std::string_view MetricsStore::label_value(SeriesId id, std::string_view name) const {
  const Series& s = series_[id];
  if (name == kMetricNameLabel) return s.metric;
  auto it = std::lower_bound(s.labels.begin(), s.labels.end(), name,
                             [](const Label& l, std::string_view n) { return l.name < n; });
  if (it != s.labels.end() && it->name == name) return it->value;
  return {};
}

std::span<const SeriesId> MetricsStore::series_named(std::string_view metric) const {
  auto it = by_metric_.find(metric);
  if (it == by_metric_.end()) return {};
  return it->second;
}

std::span<const SeriesId> MetricsStore::series_of_pod(std::string_view metric,
                                                      std::string_view pod) const {
  auto it = by_pod_.find(std::pair{metric, pod});
  if (it == by_pod_.end()) return {};
  return it->second;
}

std::vector<SeriesId> MetricsStore::all_series() const {
  std::vector<SeriesId> out;
  for (const auto& [metric, named] : by_metric_) out.insert(out.end(), named.begin(), named.end());
  std::sort(out.begin(), out.end(),
            [&](SeriesId a, SeriesId b) { return series_[a].created < series_[b].created; });
  return out;
}

std::span<const StoredSample> MetricsStore::held(const Series& s) const {
  return std::span<const StoredSample>(s.samples.begin() + s.head, s.samples.end());
}

std::optional<double> MetricsStore::instant(SeriesId id, SimTime t) const {
  std::span<const StoredSample> samples = held(series_[id]);
  // Mostly read at or after the last scrape: then the last sample is the one.
  auto after = samples.end();
  if (!samples.empty() && t < samples.back().at)
    after = std::upper_bound(samples.begin(), samples.end(), t,
                             [](SimTime x, const StoredSample& s) { return x < s.at; });
  if (after == samples.begin()) return std::nullopt;
  const StoredSample& last = *(after - 1);
  if (last.at < t - kPrometheusLookbackDelta || last.at < cutoff_ || is_stale_marker(last.value))
    return std::nullopt;
  return last.value;
}

std::span<const StoredSample> MetricsStore::range(SeriesId id, SimTime t, SimDuration range) const {
  std::span<const StoredSample> samples = held(series_[id]);
  auto first = std::lower_bound(samples.begin(), samples.end(), std::max(t - range, cutoff_),
                                [](const StoredSample& s, SimTime x) { return s.at < x; });
  auto last = std::upper_bound(first, samples.end(), t,
                               [](SimTime x, const StoredSample& s) { return x < s.at; });
  return {first, last};
}

}  // namespace fleetsim
