// The wait for a slot in a service whose replicas keep up with their load on average: the router's
// FIFO in front of c slots (each replica's concurrency, at most its max_num_seqs) offered
// a = λ W erlangs (W: how long a request holds its slot), as an M/G/c queue. The probability of
// waiting is Erlang C (exact; the Halfin–Whitt limit where it is below 1 in 10,000: Halfin &
// Whitt, "Heavy-traffic limits for queues with many exponential servers", Operations Research
// 29(3), 1981) and a wait, once it waits, is exponential with M/M/c's mean scaled by
// Allen–Cunneen's (1 + C_s²) ÷ 2 for the service times' spread (Allen, "Probability, Statistics,
// and Queueing Theory", 2nd ed., 1990, §6).
#pragma once

namespace fleetsim {

struct SlotWait {
  double p_wait = 0;        // the share of requests that wait
  double mean_wait_s = 0;   // the mean wait of one that waits
  double mean_waiting = 0;  // the mean number waiting (Lq)

  // The wait at quantile u in [0, 1) of all requests.
  double quantile(double u) const;
};

// `service_cv2`: the squared coefficient of variation of the slot holding time. Beyond 98 % of the
// slots' capacity the service does not keep up for long: the fluid backlog takes over there, and
// the wait here stays at its value at 98 %.
SlotWait slot_wait(double offered, double slots, double service_cv2, double holding_s);

}  // namespace fleetsim
