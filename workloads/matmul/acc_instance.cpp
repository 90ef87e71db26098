// The host side of every OpenACC matmul step: with data=resident it enters A, B and C into
// device memory once (resident_matmul.hpp, by kit/acc_data.hpp's acc_copyin: the seed's `enter
// data` before its timed products) and brings C back in finish; with data=copy it leaves them on
// the host, and each kernel's copyin/copy clauses move them around every product (the seed's
// first build, 3.6 s a product on its GPU).
#include <utility>

#include "kit/acc_data.hpp"
#include "workloads/matmul/resident_matmul.hpp"

namespace acclab::matmul {
namespace {

struct AccData {
  static void enter(auto* p, std::int64_t count) { acc_enter_copyin(p, count); }
  static void to_host(auto* p, std::int64_t count) { acc_update_host(p, count); }
  static void release(auto* p, std::int64_t count) { acc_exit_delete(p, count); }
};

class AccMatmul : public ResidentMatmul<AccData> {
 public:
  AccMatmul(const Params& params, AccKernel kernel, RowCap cap)
      : ResidentMatmul(params, cap), kernel_(std::move(kernel)) {}

  void setup() override {
    MatmulInstance::setup();
    if (p_.resident) enter();
  }
  void reset() override {
    MatmulInstance::reset();
    if (!resident()) return;
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

 private:
  AccKernel kernel_;
};

}  // namespace

std::unique_ptr<Instance> make_acc(const Params& params, AccKernel kernel, RowCap cap) {
  return std::make_unique<AccMatmul>(params, std::move(kernel), cap);
}

}  // namespace acclab::matmul
