// Triad and dot with one `target data` region around all passes of a run: b and c cross to the
// device once, a (the triad's) comes back once, and each pass's region finds them present. The
// OpenMP form of acc_data's data region around the course's time loop.
//   triad_omp_target_data  `target teams distribute parallel for simd` inside `target data`
//   dot_omp_target_data    the same with reduction(+:sum)
#include <cstdint>

#include "workloads/vector/vector.hpp"

namespace acclab::vector {
namespace {

class TriadOmpTargetData : public StreamInstance {
 public:
  explicit TriadOmpTargetData(const Params& params) : StreamInstance(params, Kernel::triad) {}
  void run() override {
    const std::int64_t n = size_.n();  // at least 1 (validate): no empty section is mapped
    float* a = a_.data();
    const float* b = b_.data();
    const float* c = c_.data();
#pragma omp target data map(to : b [0:n], c [0:n]) map(from : a [0:n])
    {
      for (std::int64_t pass = 0; pass < size_.nt; ++pass) {
        // Present already: these maps only count references, nothing moves.
#pragma omp target teams distribute parallel for simd map(alloc : a [0:n], b [0:n], c [0:n])
        for (std::int64_t i = 0; i < n; ++i) a[i] = b[i] + triad_scalar * c[i];
      }
    }
  }
  bool transfers_only() override {
    const std::int64_t n = size_.n();
    float* a = a_.data();
    const float* b = b_.data();
    const float* c = c_.data();
#pragma omp target data map(to : b [0:n], c [0:n]) map(from : a [0:n])
    {}
    return true;
  }
};

class DotOmpTargetData : public StreamInstance {
 public:
  explicit DotOmpTargetData(const Params& params) : StreamInstance(params, Kernel::dot) {}
  void run() override {
    const std::int64_t n = size_.n();
    const float* b = b_.data();
    const float* c = c_.data();
#pragma omp target data map(to : b [0:n], c [0:n])
    {
      for (std::int64_t pass = 0; pass < size_.nt; ++pass) {
        double sum = 0.0;
// clang-format off
#pragma omp target teams distribute parallel for simd map(alloc: b[0:n], c[0:n]) map(tofrom: sum) \
    reduction(+: sum)
        // clang-format on
        for (std::int64_t i = 0; i < n; ++i) sum += double(b[i]) * double(c[i]);
        dot_ = sum;
      }
    }
  }
  bool transfers_only() override {
    const std::int64_t n = size_.n();
    const float* b = b_.data();
    const float* c = c_.data();
#pragma omp target data map(to : b [0:n], c [0:n])
    {}
    return true;
  }
};

}  // namespace

std::unique_ptr<Instance> make_triad_omp_target_data(const Params& params) {
  return std::make_unique<TriadOmpTargetData>(params);
}
std::unique_ptr<Instance> make_dot_omp_target_data(const Params& params) {
  return std::make_unique<DotOmpTargetData>(params);
}

}  // namespace acclab::vector
