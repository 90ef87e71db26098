// The iccg variants, in ladder order (the course's steps built so far).
#include "workloads/iccg/iccg.hpp"

namespace acclab::iccg {
namespace {

// Per iteration, as the course counts a CG step on a 7-point matrix: the matrix-vector
// product (13 flops a row), the two triangular sweeps (7 each, counting the diagonal), three
// dot products and three vector updates (2 flops each a row). Bytes: the matrix (about 7
// values and 7 indices, 12 bytes each, a row, read three times) and 8 vectors.
PerfModel iteration_model() {
  const auto rows = [](const Params& params) {
    return double(params.integer("nx")) * double(params.integer("ny")) *
           double(params.integer("nz"));
  };
  // The iterations the verified run took; before a run, the counts of one iteration.
  const auto iterations = [](const nlohmann::json& outputs) {
    return outputs.contains("iterations") ? outputs["iterations"].get<double>() : 1.0;
  };
  return {[=](const Params& p, const nlohmann::json& out) {
            return (13.0 + 14.0 + 12.0) * rows(p) * iterations(out);
          },
          [=](const Params& p, const nlohmann::json& out) {
            return (3 * 7 * 12.0 + 8 * 8.0) * rows(p) * iterations(out);
          },
          Resource::memory_bandwidth};
}

}  // namespace

void register_variants(Registry& registry) {
  registry.add_workload(make_workload());
  registry.add_variant({"iccg", "original", Backend::openmp, "iccg", 1,
                        "01_original: each colour's rows over OpenMP threads", make_original,
                        iteration_model(), "", "solver.cpp"});
  registry.add_variant({"iccg", "setup", Backend::serial, "iccg", 2,
                        "02_setup: the same code on one thread, prepared for OpenACC", make_setup,
                        iteration_model(), "", "solver.cpp"});
#ifdef ACCLAB_HAVE_OPENACC
  registry.add_variant({"iccg", "unified", Backend::openacc, "iccg", 3,
                        "03_unified: CUDA managed memory through deviceptr, pages migrated",
                        make_unified, iteration_model(), "", "acc_solver.cpp"});
  registry.add_variant({"iccg", "data_present", Backend::openacc, "iccg", 4,
                        "04_data_present: parallel loops on present data, entered in each solve",
                        make_data_present, iteration_model(), "", "acc_solver.cpp"});
  registry.add_variant({"iccg", "exclude_datacpy_time", Backend::openacc, "iccg", 5,
                        "05_exclude_datacpy_time: the same, data entered before the timing",
                        make_exclude_datacpy_time, iteration_model(), "", "acc_solver.cpp"});
  registry.add_variant({"iccg", "optimized", Backend::openacc, "iccg", 6,
                        "06_optimized: the solve as one construct, a gang per multiprocessor, "
                        "barriers across gangs; colour slabs, fused updates",
                        make_optimized, iteration_model(), "", "acc_optimized.cpp"});
#endif
#ifdef ACCLAB_HAVE_CUDA
  registry.add_variant({"iccg", "cuda", Backend::cuda, "iccg", 7,
                        "our kernels on the colour slabs, scalars on the device, iterations "
                        "replayed as CUDA graphs",
                        make_cuda, iteration_model(), "", "cuda_kernels.cu"});
  registry.add_variant({"iccg", "cusparse", Backend::cuda, "iccg", 8,
                        "cuSPARSE's IC(0) (csric02), triangular solves (SpSV) and SpMV",
                        make_cusparse, iteration_model(), "", "cuda.cpp"});
#endif
}

}  // namespace acclab::iccg
