// The diffusion3d variants, in ladder order.
#include <map>
#include <string>

#include "workloads/diffusion3d/diffusion3d.hpp"

namespace acclab::diffusion3d {
namespace {

double cell_steps(const Params& params, const nlohmann::json& outputs) {
  const double steps =
      outputs.contains("steps") ? outputs["steps"].get<double>() : double(problem_of(params).steps);
  return steps * double(params.integer("nx")) * double(params.integer("ny")) *
         double(params.integer("nz"));
}

// Per cell and step, as the course counts: 13 flops (7 multiplies, 6 adds); at best one
// float read and one written (8 B), the neighbours coming from caches.
PerfModel step_model() {
  return {[](const Params& p, const nlohmann::json& out) { return 13.0 * cell_steps(p, out); },
          [](const Params& p, const nlohmann::json& out) { return 8.0 * cell_steps(p, out); },
          Resource::memory_bandwidth};
}

}  // namespace

void register_variants(Registry& registry) {
  registry.add_workload(make_workload());
  // Each variant's source file, for acclab explain.
  const std::map<std::string, std::string> sources = {
      {"original", "reference.cpp"},
      {"openmp", "openmp.cpp"},
      {"acc_kernels", "acc_kernels.cpp"},
      {"acc_loop", "acc_loop.cpp"},
      {"acc_data_present", "acc_data_present.cpp"},
      {"acc_tuned", "acc_tuned.cpp"},
      {"cuda", "cuda_kernels.cu"},
  };
  auto add = [&](const char* name, Backend backend, int step, const char* description,
                 auto factory) {
    registry.add_variant({"diffusion3d", name, backend, "diffusion", step, description, factory,
                          step_model(), "", sources.at(name)});
  };
  add("original", Backend::serial, 1, "01_original: the CPU loops, one thread (the reference)",
      make_original);
  add("openmp", Backend::openmp, 2, "planes split over OpenMP threads", make_openmp);
#ifdef ACCLAB_HAVE_OPENACC
  add("acc_kernels", Backend::openacc, 3, "(1) kernels copyin(f) copyout(fn) around every step",
      make_acc_kernels);
  add("acc_loop", Backend::openacc, 4, "(2) plus loop independent at every level", make_acc_loop);
  add("acc_data_present", Backend::openacc, 5,
      "(3)(4) data region around all steps, present in the stencil", make_acc_data_present);
  add("acc_tuned", Backend::openacc, 6,
      "fields resident; every step in one construct, gangs kept in step by a barrier (acc_shape)",
      make_acc_tuned);
#endif
#ifdef ACCLAB_HAVE_CUDA
  add("cuda", Backend::cuda, 7,
      "CUDA: z-marching register window in z chunks (cuda_planes, cuda_tile_y), queued steps",
      make_cuda);
#endif
}

}  // namespace acclab::diffusion3d
