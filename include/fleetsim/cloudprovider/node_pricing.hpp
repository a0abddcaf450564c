// What a node costs an hour as its cloud bills it: the seam the cost accounting asks, so that
// the run's bill and the cloud's launch choices read one set of prices.
#pragma once

#include "fleetsim/k8s/cluster.hpp"

namespace fleetsim {

class NodePricing {
 public:
  virtual ~NodePricing() = default;
  // The node's instance, an hour, at the price in force now.
  virtual double instance_per_hour(const Node& node) const = 0;
  // The node's EBS volumes, an hour.
  virtual double volumes_per_hour(const Node& node) const = 0;
  // A management fee per instance-hour on top (EKS Auto Mode's); 0 when there is none.
  virtual double fee_per_hour(const Node& node) const = 0;
  // Whether this cloud charges a management fee at all (the report then shows it).
  virtual bool charges_fee() const = 0;
};

}  // namespace fleetsim
