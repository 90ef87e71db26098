// The matmul variants, in ladder order: the seed's CPU comparison and the CPU library, the
// seed's six OpenACC steps, then our tuned directives, our CUDA kernel and cuBLAS.
#include <map>
#include <string>

#include "workloads/matmul/matmul.hpp"

namespace acclab::matmul {
namespace {

// 2 m n k flops (one multiply and one add per term); at least A, B and C once each (8 B per
// element) through memory. The limit is arithmetic, not bandwidth: rates are reported, the
// limit column left empty.
PerfModel product_model() {
  return {[](const Params& params, const nlohmann::json&) { return problem_of(params).flops(); },
          [](const Params& params, const nlohmann::json&) {
            const Problem p = problem_of(params);
            return 8.0 * (double(p.m) * p.k + double(p.k) * p.n + double(p.m) * p.n);
          },
          Resource::none};
}

}  // namespace

void register_variants(Registry& registry) {
  registry.add_workload(make_workload());
  // Each variant's source file, for acclab explain.
  const std::map<std::string, std::string> sources = {
      {"openmp", "reference.cpp"},
      {"cpu_blas", "cpu_blas.cpp"},
      {"acc_auto", "acc_auto.cpp"},
      {"acc_independent_seq", "acc_independent_seq.cpp"},
      {"acc_independent_reduction", "acc_independent_reduction.cpp"},
      {"acc_gang_vector", "acc_gang_vector.cpp"},
      {"acc_tile", "acc_tile.cpp"},
      {"acc_collapse", "acc_collapse.cpp"},
      {"acc_tuned", "acc_tuned.cpp"},
      {"cuda_tiled", "cuda_kernels.cu"},
      {"cublas", "cuda.cpp"},
  };
  auto add = [&](const char* name, Backend backend, int step, const char* description,
                 auto factory) {
    registry.add_variant({"matmul", name, backend, "matmul", step, description, factory,
                          product_model(), "", sources.at(name)});
  };
  auto acc = [](AccKernel kernel) {
    return [kernel](const Params& params) { return make_acc(params, kernel); };
  };
  add("openmp", Backend::openmp, 1, "the seed's OpenMP comparison: rows over threads, k innermost",
      make_openmp);
#ifdef ACCLAB_HAVE_OPENBLAS
  add("cpu_blas", Backend::openmp, 2, "OpenBLAS DGEMM (the CPU library)", make_cpu_blas);
#endif
#ifdef ACCLAB_HAVE_OPENACC
  add("acc_auto", Backend::openacc, 3, "(1) kernels, loop auto on i, j, k", acc(acc::multiply_auto));
  add("acc_independent_seq", Backend::openacc, 4, "(2) i, j independent, k seq",
      acc(acc::multiply_independent_seq));
  add("acc_independent_reduction", Backend::openacc, 5,
      "(3) i, j independent, k a reduction into a scalar",
      acc(acc::multiply_independent_reduction));
  add("acc_gang_vector", Backend::openacc, 6, "(4) gang(32) on i, vector(16) on j",
      acc(acc::multiply_gang_vector));
  add("acc_tile", Backend::openacc, 7, "(5) tile(32, 32) on i, j", acc(acc::multiply_tile));
  add("acc_collapse", Backend::openacc, 8, "(6) collapse(2) independent on i, j",
      acc(acc::multiply_collapse));
  add("acc_tuned", Backend::openacc, 9, "a register block of C per lane (acc_block, 16 x 4), 128 lanes",
      acc(acc::multiply_tuned));
#endif
#ifdef ACCLAB_HAVE_CUDA
  add("cuda_tiled", Backend::cuda, 10, "CUDA: FP64 tensor cores (cuda_mma, m16n8k4) on cuda_tile tiles (128)",
      make_cuda_tiled);
  add("cublas", Backend::cuda, 11, "cuBLAS DGEMM (the GPU library)", make_cublas);
#endif
}

}  // namespace acclab::matmul
