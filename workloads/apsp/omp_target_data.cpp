// optimize in OpenMP target form: the matrix (with paths=1 the successors beside it) resident on
// the device for the whole measurement (omp_target_present.hpp: `target enter data` in setup,
// `target update` in reset and finish), the k loop on the host and one region a step, a
// `target teams distribute parallel for simd collapse(2)` over the rows and columns whose maps
// find the matrix present. An element is stored only where step k improves it, exactly where the
// serial loop's max / min takes the new value, and row k does not change in step k (apsp.hpp),
// so the result is the serial loop's bit for bit whatever order the lanes run in.
#include "workloads/apsp/omp_target_present.hpp"

namespace acclab::apsp {
namespace {

// Step k over every element of d (n x n, present on the device), and of the successors `next`
// (present too) when it is not null: apsp.hpp's rule. One target region. Blocking.
void relax_step(const Problem& p, float* d, std::int32_t* next, int k) {
  // 32-bit indices: n^2 < 2^31 (validate).
  const int n = p.n, nn = n * n;
  const bool max_plus = p.semiring == Semiring::max_plus;
  if (next) {
// clang-format off
#pragma omp target teams distribute parallel for simd collapse(2) \
    map(alloc: d[0:nn], next[0:nn])
    // clang-format on
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        const float through = d[i * n + k] + d[k * n + j], now = d[i * n + j];
        if (max_plus ? now < through : through < now) {
          d[i * n + j] = through;
          next[i * n + j] = next[i * n + k];
        }
      }
    }
  } else {
#pragma omp target teams distribute parallel for simd collapse(2) map(alloc : d [0:nn])
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        const float through = d[i * n + k] + d[k * n + j], now = d[i * n + j];
        if (max_plus ? now < through : through < now) d[i * n + j] = through;
      }
    }
  }
}

class OmpTargetData : public OmpPresentInstance {
 public:
  using OmpPresentInstance::OmpPresentInstance;
  void run() override {
    std::int32_t* next = p_.paths ? next_.data() : nullptr;
    for (int k = 0; k < p_.n; ++k) relax_step(p_, d_.data(), next, k);
  }
};

}  // namespace

std::unique_ptr<Instance> make_omp_target_data(const Params& params) {
  return std::make_unique<OmpTargetData>(params);
}

}  // namespace acclab::apsp
