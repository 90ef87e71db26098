// The vector workload's variants, in ladder order.
#include <map>
#include <string>

#include "workloads/vector/vector.hpp"

namespace acclab::vector {
namespace {

double n_of(const Params& p) { return static_cast<double>(size_of(p).n()); }
double nt_of(const Params& p) { return static_cast<double>(size_of(p).nt); }

// Course computation: each of nt steps reads a, b, c and writes c (16 B and 2 flops per
// element); initialising b and c writes 8 B and the mean reads 4 B per element.
PerfModel course_model() {
  return {[](const Params& p, const nlohmann::json&) { return 2.0 * nt_of(p) * n_of(p); },
          [](const Params& p, const nlohmann::json&) { return (16.0 * nt_of(p) + 12.0) * n_of(p); },
          Resource::memory_bandwidth};
}

// Triad a = b + s*c: each pass reads b and c and writes a (12 B, 2 flops per element).
PerfModel triad_model() {
  return {[](const Params& p, const nlohmann::json&) { return 2.0 * nt_of(p) * n_of(p); },
          [](const Params& p, const nlohmann::json&) { return 12.0 * nt_of(p) * n_of(p); },
          Resource::memory_bandwidth};
}

// Dot sum(b*c): each pass reads b and c (8 B, 2 flops per element).
PerfModel dot_model() {
  return {[](const Params& p, const nlohmann::json&) { return 2.0 * nt_of(p) * n_of(p); },
          [](const Params& p, const nlohmann::json&) { return 8.0 * nt_of(p) * n_of(p); },
          Resource::memory_bandwidth};
}

}  // namespace

void register_variants(Registry& registry) {
  registry.add_workload(make_workload());
  // Each variant's source file, for acclab explain.
  const std::map<std::string, std::string> sources = {
      {"original", "original.cpp"},
      {"acc_kernels", "acc_kernels.cpp"},
      {"acc_kernels_copy", "acc_kernels_copy.cpp"},
      {"acc_loop", "acc_loop.cpp"},
      {"acc_data", "acc_data.cpp"},
      {"acc_present", "acc_present.cpp"},
      {"acc_reduction", "acc_reduction.cpp"},
      {"cuda", "cuda_kernels.cu"},
      {"triad_openmp", "bandwidth_openmp.cpp"},
      {"triad_acc", "bandwidth_openacc.cpp"},
      {"triad_cuda", "cuda_kernels.cu"},
      {"dot_openmp", "bandwidth_openmp.cpp"},
      {"dot_acc_reduction", "bandwidth_openacc.cpp"},
      {"dot_acc_partials", "bandwidth_openacc.cpp"},
      {"dot_cuda", "cuda_kernels.cu"},
  };
  auto add = [&](const char* name, Backend backend, const char* family, int step,
                 const char* description, auto factory, PerfModel model,
                 const char* gpu_unavailable_reason = "") {
    registry.add_variant({"vector", name, backend, family, step, description, factory,
                          std::move(model), gpu_unavailable_reason, sources.at(name)});
  };
  add("original", Backend::serial, "course", 1, "01 original: the CPU loops, one thread",
      make_original, course_model());
#ifdef ACCLAB_HAVE_OPENACC
  add("acc_kernels", Backend::openacc, "course", 2,
      "02 kernels: one `kernels` directive, no data clauses", make_acc_kernels, course_model(),
      "C pointers carry no size: kernels maps the pointers alone and the GPU would read host "
      "addresses (an illegal memory access; the course's compiler refuses to build it)");
  add("acc_kernels_copy", Backend::openacc, "course", 3,
      "03 kernels+copy: copy(a,b,c) around every calc", make_acc_kernels_copy, course_model());
  add("acc_loop", Backend::openacc, "course", 4,
      "04 loop independent: the loops declared independent", make_acc_loop, course_model());
  add("acc_data", Backend::openacc, "course", 5, "05 data: one data region around the time loop",
      make_acc_data, course_model());
  add("acc_present", Backend::openacc, "course", 6,
      "06 present: calc asserts its arrays are present", make_acc_present, course_model());
  add("acc_reduction", Backend::openacc, "course", 7,
      "07 reduction: the mean summed on the device, c never copied back", make_acc_reduction,
      course_model());
#endif
#ifdef ACCLAB_HAVE_CUDA
  add("cuda", Backend::cuda, "course", 8,
      "CUDA: the course computation in hand-written kernels, data resident", make_course_cuda,
      course_model());
#endif

  add("triad_openmp", Backend::openmp, "triad", 1, "triad a = b + s*c on all host cores",
      make_triad_openmp, triad_model());
#ifdef ACCLAB_HAVE_OPENACC
  add("triad_acc", Backend::openacc, "triad", 2,
      "triad with `parallel loop gang vector`, data resident", make_triad_acc, triad_model());
#endif
#ifdef ACCLAB_HAVE_CUDA
  add("triad_cuda", Backend::cuda, "triad", 3, "triad in CUDA, float4 grid-stride loop",
      make_triad_cuda, triad_model());
#endif

  add("dot_openmp", Backend::openmp, "dot", 1, "dot sum(b*c) with an OpenMP reduction",
      make_dot_openmp, dot_model());
#ifdef ACCLAB_HAVE_OPENACC
  add("dot_acc_reduction", Backend::openacc, "dot", 2,
      "dot with one `parallel loop reduction(+:sum)`", make_dot_acc_reduction, dot_model());
  add("dot_acc_partials", Backend::openacc, "dot", 3,
      "dot as per-gang partial sums plus a one-gang second pass", make_dot_acc_partials,
      dot_model());
#endif
#ifdef ACCLAB_HAVE_CUDA
  add("dot_cuda", Backend::cuda, "dot", 4, "dot in CUDA: block partials, warp shuffles, 2 passes",
      make_dot_cuda, dot_model());
#endif
}

}  // namespace acclab::vector
