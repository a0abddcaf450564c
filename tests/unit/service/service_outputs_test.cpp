// What a service reports beside its latencies: queue time, the KV-cache gauges and column, and
// the engine's totals, for a service without the engine model.
#include <catch2/catch.hpp>

#include "fleetsim/service/exported_metrics.hpp"
#include "unit/service/service_rig.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

TEST_CASE(
    "a service without the engine model exports no KV-cache gauge and reports no engine figures",
    "[service]") {
  ServiceRig rig;
  const WorkloadId web = rig.add(web_deployment(1));
  // One slot taking 1.5 s, one request a second: request k (from 0) waits 0.5 k s.
  ServiceConfig config = half_busy_service();
  config.serving.service_time = FixedServiceTime{.duration = millis(1500)};
  ServiceRuntime& s = rig.add_service(config, web);
  rig.bind_pending(web);
  rig.run_to(seconds(60));
  s.scrape(rig.sim.now());
  CHECK(rig.metrics.series_named(kRequestsRunningMetric).size() == 1);
  CHECK(rig.metrics.series_named(kGpuCacheUsageMetric).empty());
  CHECK(rig.metrics.series_named(kKvCacheUsageMetric).empty());
  CHECK_FALSE(s.engine_totals().has_value());
  CHECK_FALSE(s.close_interval(rig.sim.now()).kv_cache_usage.has_value());
  // A fixed service time times no tokens: queue times, but no TPOT and no token window.
  const SloTotals& t = s.stats().totals();
  CHECK(t.queue_s.count() == t.served);
  CHECK(t.tpot_s.count() == 0);
  CHECK(t.output_tokens == 0);
  CHECK(t.first_arrival == SimTime::max());
  // Served by 60 s: requests 0 to 39 (the last done at 60 s), the last after 19.5 s queued.
  CHECK(t.served == 40);
  CHECK(t.queue_s.min() == 0.0);
  CHECK(t.queue_s.max() == 19.5);
  CHECK(t.queue_s.mean() == 9.75);
}
