// The host side of every OpenACC matmul step: with data=resident it enters A, B and C into
// device memory once (the seed's `enter data` before its timed products) and brings C back in
// finish; with data=copy it leaves them on the host, and each kernel's copyin/copy clauses move
// them around every product (the seed's first build, 3.6 s a product on its GPU).
#include <utility>

#include "workloads/matmul/matmul.hpp"

namespace acclab::matmul {
namespace {

class AccMatmul : public MatmulInstance {
 public:
  AccMatmul(const Params& params, AccKernel kernel, RowCap cap)
      : MatmulInstance(params, cap), kernel_(std::move(kernel)) {}
  ~AccMatmul() override { release(); }

  void setup() override {
    MatmulInstance::setup();
    if (!p_.resident) return;
    const double* a = a_.data();
    const double* b = b_.data();
    double* c = c_.data();
    const std::int64_t na = p_.a_size(), nb = p_.b_size(), nc = p_.c_size();
#pragma acc enter data copyin(a[0:na], b[0:nb], c[0:nc])
    resident_ = true;
  }
  void reset() override {
    MatmulInstance::reset();
    if (!resident_) return;
    double* c = c_.data();
    const int m = p_.m, n = p_.n, ldc = p_.ldc;
    const std::int64_t nc = p_.c_size();
#pragma acc parallel loop gang present(c[0:nc])
    for (int i = 0; i < m; ++i) {
#pragma acc loop vector
      for (int j = 0; j < n; ++j) c[i * ldc + j] = 0.0;
    }
  }
  void run() override { kernel_(p_, a_.data(), b_.data(), c_.data()); }
  // data=copy: the kernels' clauses on an empty region.
  bool transfers_only() override {
    if (p_.resident) return false;
    const double* a = a_.data();
    const double* b = b_.data();
    double* c = c_.data();
    const std::int64_t na = p_.a_size(), nb = p_.b_size(), nc = p_.c_size();
#pragma acc data copyin(a[0:na], b[0:nb]) copy(c[0:nc])
    {
    }
    return true;
  }
  void finish() override {
    if (!resident_) return;
    double* c = c_.data();
    const std::int64_t nc = p_.c_size();
#pragma acc update self(c[0:nc])
    release();
  }

 private:
  void release() {
    if (!resident_) return;
    const double* a = a_.data();
    const double* b = b_.data();
    double* c = c_.data();
    const std::int64_t na = p_.a_size(), nb = p_.b_size(), nc = p_.c_size();
#pragma acc exit data delete(a[0:na], b[0:nb], c[0:nc])
    resident_ = false;
  }

  AccKernel kernel_;
  bool resident_ = false;
};

}  // namespace

std::unique_ptr<Instance> make_acc(const Params& params, AccKernel kernel, RowCap cap) {
  return std::make_unique<AccMatmul>(params, std::move(kernel), cap);
}

}  // namespace acclab::matmul
