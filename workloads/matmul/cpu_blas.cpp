// What a CPU user would call instead: OpenBLAS's DGEMM (Debian's libopenblas, its own threads
// over every core), row-major with the problem's leading dimensions.
#include <cblas.h>

#include "workloads/matmul/matmul.hpp"

namespace acclab::matmul {
namespace {

class CpuBlas : public MatmulInstance {
 public:
  using MatmulInstance::MatmulInstance;
  void run() override {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, p_.m, p_.n, p_.k, 1.0, a_.data(),
                p_.lda, b_.data(), p_.ldb, 0.0, c_.data(), p_.ldc);
  }
};

}  // namespace

std::unique_ptr<Instance> make_cpu_blas(const Params& params) {
  return std::make_unique<CpuBlas>(params);
}

}  // namespace acclab::matmul
