// What a service's runtime asks of its serving model, however it is simulated: request by
// request (ServingModel) or as rates (FluidServing, the fluid mode). And the plain types both
// report in.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "fleetsim/core/time.hpp"
#include "fleetsim/serving/ready_replicas.hpp"
#include "fleetsim/serving/serving_time.hpp"
#include "fleetsim/serving/step_cost.hpp"
#include "fleetsim/serving/time_sliced_gpus.hpp"

namespace fleetsim {

// A replica's name within its service (the caller's pod id, for example): ReplicaId.
inline constexpr ReplicaId kNoReplica = ~ReplicaId{0};

enum class DropReason : std::uint8_t {
  None,
  QueueTimeout,   // waited queue_timeout in the queue
  QueueFull,      // arrived at a queue holding max_queue requests
  ReplicaKilled,  // in flight on a replica removed by kill_replica
  TooLong,        // longer than the replica's KV cache can ever hold (vLLM's max_model_len)
};

// What happened to one request. For a request dropped from the queue, start, first_token and
// completion are all the drop time and replica is kNoReplica. A timed-out request's drop time is
// exactly arrival + queue_timeout, however late the (lazy) check noticed it.
struct RequestOutcome {
  SimTime arrival;
  SimTime start;        // when it took a slot
  SimTime first_token;  // == completion for non-LLM services
  SimTime completion;   // when it left the service, served or dropped
  std::uint32_t input_tokens = 0;
  std::uint32_t output_tokens = 0;
  ReplicaId replica = kNoReplica;
  bool dropped = false;
  DropReason drop_reason = DropReason::None;

  SimDuration wait() const { return start - arrival; }
  SimDuration time_to_first_token() const { return first_token - arrival; }
  SimDuration latency() const { return completion - arrival; }
};

// Receives every request once, when it is served or dropped. Called from inside the event, so
// it must not call back into the model.
class ServingObserver {
 public:
  virtual void on_request_done(const RequestOutcome& outcome) = 0;
  // `count` requests with this outcome: the fluid mode's representative requests.
  virtual void on_requests_done(const RequestOutcome& outcome, std::uint64_t count) {
    for (std::uint64_t i = 0; i < count; ++i) on_request_done(outcome);
  }

 protected:
  ~ServingObserver() = default;
};

// Told when a terminating replica has finished its last in-flight request (or at once, if it had
// none): the pod may now go away. `busy` is its busy time over its life, which the backend
// forgets with it (the report splits busy time by the device a pod held).
class ReplicaListener {
 public:
  virtual void on_replica_drained(ReplicaId id, SimTime now, SimDuration busy) = 0;

 protected:
  ~ReplicaListener() = default;
};

struct ReplicaSpec {
  ReplicaId id = kNoReplica;
  LlmRates rates;  // under LlmServiceTime: the replica's measured rates
  // Under EngineServiceTime: the replica's step costs; must outlive the replica.
  const StepCost* engine = nullptr;
  // Under EngineServiceTime: the time-sliced GPU it takes turns on, if any (the registry must
  // outlive the replica).
  TimeSlice time_slice;
};

// What a replica's engine holds, as vLLM's gauges report it.
struct ReplicaLoad {
  std::uint32_t running = 0;  // admitted: prefilling or decoding
  std::uint32_t waiting = 0;  // sent to the replica, waiting for KV cache room
  double kv_cache_usage = 0;  // share of its KV cache blocks in use
};

// Over every replica the service had: what its engines did.
struct EngineTotals {
  std::uint64_t preemptions = 0;
  std::uint32_t peak_running = 0;  // on one replica at once
  double peak_kv_cache_usage = 0;  // of one replica
};

struct ServingCounters {
  std::uint64_t arrived = 0;
  std::uint64_t served = 0;
  std::uint64_t dropped = 0;
  std::uint64_t in_flight = 0;
  std::uint64_t queued = 0;  // may include timed-out requests not yet noticed; see expire_queue
};

// Replicas are named by the caller (ReplicaSpec::id); every call but add_replica takes a live one.
class ServingBackend {
 public:
  virtual ~ServingBackend() = default;

  virtual void set_observer(ServingObserver* observer) = 0;
  virtual void set_replica_listener(ReplicaListener* listener) = 0;
  // Adds a replica that becomes Ready at `ready_at` (now or earlier: at once), or, with nullopt,
  // when set_ready is called. Ids are unique among live replicas.
  virtual void add_replica(const ReplicaSpec& spec, std::optional<SimTime> ready_at) = 0;
  // A Starting replica becomes Ready and takes queued work. No-op for any other state.
  virtual void set_ready(ReplicaId id) = 0;
  // The replica takes no new requests; its in-flight requests finish, then the listener hears
  // on_replica_drained (perhaps at once) and the replica is gone. A Starting one goes at once.
  virtual void begin_termination(ReplicaId id) = 0;
  // The replica goes now; its in-flight requests are dropped (ReplicaKilled). No listener call.
  virtual void kill_replica(ReplicaId id) = 0;
  virtual bool has_replica(ReplicaId id) const = 0;
  // Brings what is kept lazily up to now; call before reading counters, gauges or busy times.
  virtual void catch_up() = 0;

  virtual ServingCounters counters() const = 0;
  virtual std::uint32_t in_flight(ReplicaId id) const = 0;
  // Under the engine model: its engine's gauges (zero otherwise).
  virtual ReplicaLoad load(ReplicaId id) const = 0;
  virtual EngineTotals engine_totals() const = 0;
  // Requests the replica has completed (vLLM's request_success_total).
  virtual std::uint64_t served_by(ReplicaId id) const = 0;
  // Time with at least one request in flight (DCGM_FI_DEV_GPU_UTIL's sense of busy), up to now.
  virtual SimDuration busy_time(ReplicaId id) const = 0;
  // Summed over every replica the service ever had, up to now.
  virtual SimDuration total_busy_time() const = 0;
  // Calls f(arrival, first_token, count) for the requests queued (first_token nullopt) or in
  // flight (first_token nullopt until it is produced) now: `count` requests alike.
  using UnfinishedVisitor =
      std::function<void(SimTime arrival, std::optional<SimTime> first_token, std::uint64_t)>;
  virtual void for_each_unfinished(const UnfinishedVisitor& f) const = 0;

 protected:
  ServingBackend() = default;
  ServingBackend(const ServingBackend&) = default;
  ServingBackend& operator=(const ServingBackend&) = default;
};

}  // namespace fleetsim
