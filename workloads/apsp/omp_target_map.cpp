// managed's data movement made explicit in OpenMP: every solve maps the matrix (with paths=1 the
// successors beside it) to the device and back around its n steps, one `target data
// map(tofrom:)`, as the managed matrix's pages migrate to the GPU on the first step and back when
// the host reads the result. Inside it, one region a step as omp_target_data's (written out
// here, so that explain shows this step's launches), its maps finding the matrix present. The
// bytes per solve are the whole matrix each way.
#include "workloads/apsp/apsp.hpp"

namespace acclab::apsp {
namespace {

// Step k over every element of d (n x n, present inside run's data region), and of the successors
// `next` (present too) when it is not null: apsp.hpp's rule. One target region. Blocking.
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

class OmpTargetMap : public ApspInstance {
 public:
  using ApspInstance::ApspInstance;
  void run() override {
    float* d = d_.data();
    const std::int64_t nn = p_.elements();  // n >= 2
    if (p_.paths) {
      std::int32_t* next = next_.data();
#pragma omp target data map(tofrom : d [0:nn], next [0:nn])
      {
        for (int k = 0; k < p_.n; ++k) relax_step(p_, d, next, k);
      }
    } else {
#pragma omp target data map(tofrom : d [0:nn])
      {
        for (int k = 0; k < p_.n; ++k) relax_step(p_, d, nullptr, k);
      }
    }
  }
  // The same maps around an empty region.
  bool transfers_only() override {
    float* d = d_.data();
    const std::int64_t nn = p_.elements();
    if (p_.paths) {
      std::int32_t* next = next_.data();
#pragma omp target data map(tofrom : d [0:nn], next [0:nn])
      {}
    } else {
#pragma omp target data map(tofrom : d [0:nn])
      {}
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<Instance> make_omp_target_map(const Params& params) {
  return std::make_unique<OmpTargetMap>(params);
}

}  // namespace acclab::apsp
