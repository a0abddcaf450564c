// PromQL: the parser and the evaluator, on a small store with a few series.
#include "fleetsim/autoscaling/metrics_store.hpp"
#include "fleetsim/autoscaling/promql.hpp"
#include "fuzz_contract.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fleetsim;
  static const MetricsStore store = [] {
    MetricsStore s(minutes(10));
    for (int i = 0; i < 3; ++i) {
      const SeriesId id = s.series("DCGM_FI_DEV_GPU_UTIL", {{"pod", "model-" + std::to_string(i)}});
      for (int k = 0; k <= 8; ++k) s.record(id, at(seconds(15 * k)), 10.0 * (i + k));
    }
    return s;
  }();
  try {
    const PromQuery q = PromQuery::parse(fuzz::text_of(data, size));
    (void)q.evaluate(store, at(minutes(2)));
    (void)q.evaluate_vector(store, at(minutes(2)));
  } catch (const PromQlError&) {
    // A located syntax or type error.
  }
  return 0;
}
