// The apsp variants, in ladder order (the seed's build steps, then our CUDA kernel).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <string>

#include "core/error.hpp"
#include "workloads/apsp/apsp.hpp"

namespace acclab::apsp {
namespace {

// n^3 relaxations (one add and one max each: 2 flops); at least the matrix read and written
// once (8 n^2 bytes). The limit is the issue rate, not bandwidth: rates only.
PerfModel relaxation_model() {
  return {[](const Params& params, const nlohmann::json&) {
            const double n = double(params.integer("n"));
            return 2.0 * n * n * n;
          },
          [](const Params& params, const nlohmann::json&) {
            const double n = double(params.integer("n"));
            return 8.0 * n * n;
          },
          Resource::none};
}

}  // namespace

void register_variants(Registry& registry) {
  registry.add_workload(make_workload());
  const std::map<std::string, std::string> sources = {
      {"serial", "reference.cpp"},         {"multicore", "reference.cpp"},
      {"managed", "acc_optimize.cpp"},     {"optimize", "acc_optimize.cpp"},
      {"multidevice", "acc_multidevice.cpp"}, {"cuda_blocked", "cuda_kernels.cu"},
      {"cuda_blocked_multi", "cuda_kernels.cu"},
  };
  auto add = [&](const char* name, Backend backend, int step, const char* description,
                 auto factory) {
    std::function<void(const Params&)> check;
    if (!supports_paths(name)) {
      check = [name](const Params& params) {
        if (problem_of(params).paths) {
          throw UsageError(
              fmt::format("apsp/{} keeps no successor matrix (--paths, --set "
                          "paths=1): use one of {}",
                          name, fmt::join(paths_variants, ", ")));
        }
      };
    }
    // Refused before anything is allocated, also where an instance is made without acclab's
    // check of every variant first.
    std::function<std::unique_ptr<Instance>(const Params&)> make =
        [check, factory](const Params& params) {
          if (check) check(params);
          return factory(params);
        };
    Variant variant{"apsp", name, backend, "apsp", step, description, make,
                    relaxation_model(), "", sources.at(name)};
    variant.check_params = check;
    registry.add_variant(variant);
  };
  add("serial", Backend::serial, 1, "the seed's serial loops (the reference)", make_serial);
  add("multicore", Backend::openmp, 2, "rows of each step over OpenMP threads", make_multicore);
#ifdef ACCLAB_HAVE_OPENACC
  add("managed", Backend::openacc, 3, "CUDA managed memory through deviceptr, a kernel per step",
      make_managed);
  add("optimize", Backend::openacc, 4, "matrix present on one GPU, a kernel per step",
      make_optimize);
  add("multidevice", Backend::openacc, 5,
      "rows split over --set devices=N GPUs, pivot blocks exchanged through the host",
      make_multidevice);
#endif
#ifdef ACCLAB_HAVE_CUDA
  add("cuda_blocked", Backend::cuda, 6, "CUDA: blocked in 64-step rounds, bitwise the serial loop",
      make_cuda_blocked);
  add("cuda_blocked_multi", Backend::cuda, 7,
      "cuda_blocked over --set devices=N GPUs, each round's pivot rows pulled by peer copy",
      make_cuda_blocked_multi);
#endif
}

}  // namespace acclab::apsp
