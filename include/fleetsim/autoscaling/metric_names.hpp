// Metric names: Prometheus's syntax for them, and the names a PromQL query selects.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fleetsim/autoscaling/promql.hpp"

namespace fleetsim {

// [a-zA-Z_:][a-zA-Z0-9_:]*, Prometheus's metric name syntax.
bool is_prometheus_metric_name(std::string_view name);

// The metric names a query selects by name (`name{…}` or `{__name__="name"}`), in order; a
// selector that matches names by regex or negation names none.
std::vector<std::string> selected_metric_names(const PromQuery& query);

}  // namespace fleetsim
