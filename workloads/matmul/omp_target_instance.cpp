// The resident OpenMP target instance of omp_target_data and omp_target_tuned
// (omp_target_instance.hpp). Every section it names is at least one element long (m, n, k >= 1),
// and kit/omp_data.hpp's helpers guard the unstructured moves anyway.
#include "workloads/matmul/omp_target_instance.hpp"

#include <utility>

#include "kit/omp_data.hpp"

namespace acclab::matmul {
namespace {

class OmpResidentMatmul : public MatmulInstance {
 public:
  OmpResidentMatmul(const Params& params, OmpKernel kernel)
      : MatmulInstance(params), kernel_(std::move(kernel)) {}
  ~OmpResidentMatmul() override { release(); }

  void setup() override {
    MatmulInstance::setup();
    // C too, padding included: finish brings all of c[0:nc] back, and verify() checks that the
    // padding columns still hold what the host wrote.
    omp_enter_to(a_.data(), p_.a_size());
    omp_enter_to(b_.data(), p_.b_size());
    omp_enter_to(c_.data(), p_.c_size());
    resident_ = true;
  }
  void reset() override {
    MatmulInstance::reset();
    if (!resident_) return;
    double* c = c_.data();
    const int m = p_.m, n = p_.n, ldc = p_.ldc;
    const std::int64_t nc = p_.c_size();
#pragma omp target teams distribute parallel for simd collapse(2) map(alloc : c [0:nc])
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) c[i * ldc + j] = 0.0;
    }
  }
  void run() override { kernel_(p_, a_.data(), b_.data(), c_.data()); }
  void finish() override {
    omp_update_host(c_.data(), p_.c_size());
    release();
  }

 private:
  void release() {
    if (!resident_) return;
    omp_exit_delete(a_.data(), p_.a_size());
    omp_exit_delete(b_.data(), p_.b_size());
    omp_exit_delete(c_.data(), p_.c_size());
    resident_ = false;
  }

  OmpKernel kernel_;
  bool resident_ = false;
};

}  // namespace

std::unique_ptr<Instance> make_omp_resident(const Params& params, OmpKernel kernel) {
  return std::make_unique<OmpResidentMatmul>(params, std::move(kernel));
}

}  // namespace acclab::matmul
