// Every workload built into acclab, registered explicitly in the order `acclab list` shows.
#include "core/registry.hpp"
#include "workloads/apsp/apsp.hpp"
#include "workloads/diffusion3d/diffusion3d.hpp"
#include "workloads/iccg/iccg.hpp"
#include "workloads/jacobi2d/jacobi2d.hpp"
#include "workloads/matmul/matmul.hpp"
#include "workloads/vector/vector.hpp"

namespace acclab {

void register_all_workloads(Registry& registry) {
  vector::register_variants(registry);
  jacobi2d::register_variants(registry);
  diffusion3d::register_variants(registry);
  matmul::register_variants(registry);
  apsp::register_variants(registry);
  iccg::register_variants(registry);
}

}  // namespace acclab
