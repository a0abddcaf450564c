#include "fleetsim/cloudprovider/cloud_provider.hpp"

namespace fleetsim {

std::vector<Resources> allocatable_by_type(const InstanceTypeSizer& sizer,
                                           const KubeletSizing& node_class) {
  std::vector<Resources> out;
  for (const SizedInstanceType& t : sizer.instance_types(node_class)) out.push_back(t.allocatable);
  return out;
}

std::uint32_t offering_of(const Catalog& catalog, const Node& node) {
  if (node.reservation >= 0) return catalog.reservation_offering(node.reservation);
  const std::optional<std::uint32_t> g =
      catalog.find_offering(node.type, node.zone, node.capacity_type);
  FLEETSIM_ASSERT(g.has_value());  // a node is launched from one of its type's offerings
  return *g;
}

void launch_on_offering(Node& node, const Catalog& catalog, std::uint32_t g, double price,
                        const InstanceTypeOption& option, SimTime now) {
  const std::uint32_t type = catalog.type_of_offering(g);
  const Offering& o = catalog.offering(g);
  node.type = type;
  node.instance_type = catalog.types()[type].name;
  node.zone = o.zone;
  node.capacity_type = o.capacity_type;
  node.reservation = o.reservation;
  node.price_per_hour = price;
  node.allocatable = option.allocatable;
  node.daemon_overhead = option.daemon_overhead;
  node.gpu_setup = option.gpu_setup;
  node.phase = NodePhase::Launching;
  node.created = now;
  node.labels.add(std::string(label::kInstanceType), Requirement::single(node.instance_type));
  node.labels.add(std::string(label::kZone), Requirement::single(node.zone));
  node.labels.add(std::string(label::kCapacityType),
                  Requirement::single(std::string(to_string(node.capacity_type))));
  node.labels.add(catalog.types()[type].requirements);
  if (o.reservation >= 0) {
    // Karpenter AWS's labels of a node in a reservation (apis/v1/labels.go).
    const Reservation& r = catalog.reservations()[static_cast<std::size_t>(o.reservation)];
    node.labels.add(std::string(label::kCapacityReservationId), Requirement::single(r.id));
    node.labels.add(std::string(label::kCapacityReservationType),
                    Requirement::single(std::string(to_string(r.type))));
    node.labels.add(std::string(label::kCapacityReservationInterruptible),
                    Requirement::single(r.interruptible ? "true" : "false"));
  }
}

}  // namespace fleetsim
