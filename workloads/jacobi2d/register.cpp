// The jacobi2d variants, in ladder order.
#include <map>
#include <string>

#include "workloads/jacobi2d/jacobi2d.hpp"

namespace acclab::jacobi2d {
namespace {

double sweeps_of(const Params& params, const nlohmann::json& outputs) {
  return outputs.contains("sweeps") ? outputs["sweeps"].get<double>()
                                    : static_cast<double>(problem_of(params).iters);
}
double interior_of(const Params& params) {
  return static_cast<double>(params.integer("rows") - 2) * double(params.integer("cols") - 2);
}

// Each sweep reads every interior point's neighbourhood and writes the point: one float read
// and one written per interior point at best (8 B), 7 flops (4 adds, 3 multiplies).
PerfModel sweep_model() {
  return {[](const Params& p, const nlohmann::json& out) {
            return 7.0 * interior_of(p) * sweeps_of(p, out);
          },
          [](const Params& p, const nlohmann::json& out) {
            return 8.0 * interior_of(p) * sweeps_of(p, out);
          },
          Resource::memory_bandwidth};
}

}  // namespace

void register_variants(Registry& registry) {
  registry.add_workload(make_workload());
  // Each variant's source file, for acclab explain.
  const std::map<std::string, std::string> sources = {
      {"serial", "reference.cpp"},
      {"openmp", "openmp.cpp"},
      {"acc_copy_per_iter", "acc_copy_per_iter.cpp"},
      {"acc_data_region", "acc_data_region.cpp"},
      {"acc_gang_vector", "acc_resident.cpp"},
      {"acc_tuned", "acc_resident.cpp"},
      {"cuda", "cuda_kernels.cu"},
  };
  auto add = [&](const char* name, Backend backend, int step, const char* description,
                 auto factory) {
    registry.add_variant({"jacobi2d", name, backend, "jacobi", step, description, factory,
                          sweep_model(), "", sources.at(name)});
  };
  add("serial", Backend::serial, 1, "the seed's loops on one CPU thread (the reference)",
      make_serial);
  add("openmp", Backend::openmp, 2, "rows split over OpenMP threads, fused max reduction",
      make_openmp);
#ifdef ACCLAB_HAVE_OPENACC
  add("acc_copy_per_iter", Backend::openacc, 3, "seed v1: kernels copy(u0,u1) around every sweep",
      make_acc_copy_per_iter);
  add("acc_data_region", Backend::openacc, 4,
      "seed v2: one data region around all sweeps, present in the sweep", make_acc_data_region);
  add("acc_gang_vector", Backend::openacc, 5,
      "grids resident; parallel loop gang (rows) / loop vector (columns)", make_acc_gang_vector);
  add("acc_tuned", Backend::openacc, 6,
      "grids resident; one flat gang-vector loop, fused residual, async queue", make_acc_tuned);
#endif
#ifdef ACCLAB_HAVE_CUDA
  add("cuda", Backend::cuda, 7, "CUDA: column-marching register window, queued sweeps", make_cuda);
#endif
}

}  // namespace acclab::jacobi2d
