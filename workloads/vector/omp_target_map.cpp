// Triad and dot with OpenMP target regions that map their arrays on every pass: b and c go to
// the device and a (the triad's) comes back around each region, as acc_kernels_copy's copy
// clause does for the course loop. The step shows what mapping per call costs against the
// bandwidth steps that keep the arrays resident (triad_acc, *_omp_target_tuned).
//   triad_omp_target_map  `target teams distribute parallel for simd` with map(to:b,c) map(from:a)
//   dot_omp_target_map    the same with reduction(+:sum)
#include <cstdint>

#include "workloads/vector/vector.hpp"

namespace acclab::vector {
namespace {

class TriadOmpTargetMap : public StreamInstance {
 public:
  explicit TriadOmpTargetMap(const Params& params) : StreamInstance(params, Kernel::triad) {}
  void run() override {
    const std::int64_t n = size_.n();  // at least 1 (validate): no empty section is mapped
    float* a = a_.data();
    const float* b = b_.data();
    const float* c = c_.data();
    for (std::int64_t pass = 0; pass < size_.nt; ++pass) {
#pragma omp target teams distribute parallel for simd map(to : b [0:n], c [0:n]) map(from : a [0:n])
      for (std::int64_t i = 0; i < n; ++i) a[i] = b[i] + triad_scalar * c[i];
    }
  }
  // The same maps around an empty region, once per pass.
  bool transfers_only() override {
    const std::int64_t n = size_.n();
    float* a = a_.data();
    const float* b = b_.data();
    const float* c = c_.data();
    for (std::int64_t pass = 0; pass < size_.nt; ++pass) {
#pragma omp target data map(to : b [0:n], c [0:n]) map(from : a [0:n])
      {}
    }
    return true;
  }
};

class DotOmpTargetMap : public StreamInstance {
 public:
  explicit DotOmpTargetMap(const Params& params) : StreamInstance(params, Kernel::dot) {}
  void run() override {
    const std::int64_t n = size_.n();
    const float* b = b_.data();
    const float* c = c_.data();
    for (std::int64_t pass = 0; pass < size_.nt; ++pass) {
      double sum = 0.0;
// clang-format off
#pragma omp target teams distribute parallel for simd map(to: b[0:n], c[0:n]) map(tofrom: sum) \
    reduction(+: sum)
      // clang-format on
      for (std::int64_t i = 0; i < n; ++i) sum += double(b[i]) * double(c[i]);
      dot_ = sum;
    }
  }
  bool transfers_only() override {
    const std::int64_t n = size_.n();
    const float* b = b_.data();
    const float* c = c_.data();
    for (std::int64_t pass = 0; pass < size_.nt; ++pass) {
#pragma omp target data map(to : b [0:n], c [0:n])
      {}
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<Instance> make_triad_omp_target_map(const Params& params) {
  return std::make_unique<TriadOmpTargetMap>(params);
}
std::unique_ptr<Instance> make_dot_omp_target_map(const Params& params) {
  return std::make_unique<DotOmpTargetMap>(params);
}

}  // namespace acclab::vector
