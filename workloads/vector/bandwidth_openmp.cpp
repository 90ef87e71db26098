// Triad and dot on the host's cores with OpenMP: the CPU's side of the bandwidth comparison.
#include <omp.h>

#include "workloads/vector/vector.hpp"

namespace acclab::vector {
namespace {

class TriadOpenMP : public StreamInstance {
 public:
  explicit TriadOpenMP(const Params& params) : StreamInstance(params, Kernel::triad) {}
  void run() override {
    const std::int64_t n = size_.n();
    float* a = a_.data();
    const float* b = b_.data();
    const float* c = c_.data();
    for (std::int64_t pass = 0; pass < size_.nt; ++pass) {
#pragma omp parallel for simd schedule(static)
      for (std::int64_t i = 0; i < n; ++i) a[i] = b[i] + triad_scalar * c[i];
    }
  }
};

class DotOpenMP : public StreamInstance {
 public:
  explicit DotOpenMP(const Params& params) : StreamInstance(params, Kernel::dot) {}
  void run() override {
    const std::int64_t n = size_.n();
    const float* b = b_.data();
    const float* c = c_.data();
    for (std::int64_t pass = 0; pass < size_.nt; ++pass) {
      double sum = 0.0;
#pragma omp parallel for simd schedule(static) reduction(+ : sum)
      for (std::int64_t i = 0; i < n; ++i) sum += double(b[i]) * double(c[i]);
      dot_ = sum;
    }
  }
};

}  // namespace

std::unique_ptr<Instance> make_triad_openmp(const Params& params) {
  return std::make_unique<TriadOpenMP>(params);
}
std::unique_ptr<Instance> make_dot_openmp(const Params& params) {
  return std::make_unique<DotOpenMP>(params);
}

}  // namespace acclab::vector
