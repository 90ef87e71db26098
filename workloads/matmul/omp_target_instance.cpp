// The resident OpenMP target instance of omp_target_data and omp_target_tuned
// (omp_target_instance.hpp). Every section it names is at least one element long (m, n, k >= 1),
// and kit/omp_data.hpp's helpers guard the unstructured moves anyway.
#include "workloads/matmul/omp_target_instance.hpp"

#include <utility>

#include "kit/omp_data.hpp"
#include "workloads/matmul/resident_matmul.hpp"

namespace acclab::matmul {
namespace {

struct OmpData {
  static void enter(auto* p, std::int64_t count) { omp_enter_to(p, count); }
  static void to_host(auto* p, std::int64_t count) { omp_update_host(p, count); }
  static void release(auto* p, std::int64_t count) { omp_exit_delete(p, count); }
};

class OmpResidentMatmul : public ResidentMatmul<OmpData> {
 public:
  OmpResidentMatmul(const Params& params, OmpKernel kernel)
      : ResidentMatmul(params), kernel_(std::move(kernel)) {}

  void setup() override {
    MatmulInstance::setup();
    enter();
  }
  void reset() override {
    MatmulInstance::reset();
    if (!resident()) return;
    double* c = c_.data();
    const int m = p_.m, n = p_.n, ldc = p_.ldc;
    const std::int64_t nc = p_.c_size();
#pragma omp target teams distribute parallel for simd collapse(2) map(alloc : c [0:nc])
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) c[i * ldc + j] = 0.0;
    }
  }
  void run() override { kernel_(p_, a_.data(), b_.data(), c_.data()); }

 private:
  OmpKernel kernel_;
};

}  // namespace

std::unique_ptr<Instance> make_omp_resident(const Params& params, OmpKernel kernel) {
  return std::make_unique<OmpResidentMatmul>(params, std::move(kernel));
}

}  // namespace acclab::matmul
