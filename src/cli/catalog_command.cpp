#include <iostream>

#include "fleetsim/catalog/catalog_filter.hpp"
#include "fleetsim/catalog/catalog_listing.hpp"
#include "fleetsim/catalog/catalog_loader.hpp"
#include "fleetsim/cli/commands.hpp"

namespace fleetsim {

int catalog_command(const CatalogOptions& options) {
  std::filesystem::path dir =
      options.catalog_dir ? *options.catalog_dir : bundled_catalog_root() / "aws" / options.region;
  Catalog catalog = load_catalog(dir);
  CatalogFilter filter = options.filter ? parse_catalog_filter(*options.filter) : CatalogFilter{};
  filter.gpu_only |= options.gpu_only;
  CatalogOrder order = CatalogOrder::Name;
  if (options.sort == "price") order = CatalogOrder::OnDemandPrice;
  if (options.sort == "spot") order = CatalogOrder::SpotPrice;
  std::vector<const InstanceType*> types = select_instance_types(catalog, filter);
  // --gpu lists what the serving model knows of each type's GPUs instead of the sizing.
  const std::vector<CatalogRow> rows = catalog_rows(types, order);
  std::cout << (options.gpu_only ? format_gpu_table(rows) : format_catalog_table(rows));
  std::cout << types.size() << " of " << catalog.types().size() << " instance types ("
            << dir.string() << ")\n";
  return kExitOk;
}

}  // namespace fleetsim
