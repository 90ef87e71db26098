// Triad and dot with the arrays resident on the device for the whole measurement (entered in
// setup, a brought back in finish), as triad_acc and dot_acc_reduction keep them, and the shape
// of each pass's target region set by the tunings (core/omp_tuned.hpp): omp_construct
// distribute (`target teams distribute parallel for`, with `simd` when omp_simd=1) or loop
// (`target teams loop`), and num_teams/thread_limit from omp_teams/omp_threads (0: libgomp's).
// GCC's nvptx OpenMP runs each OpenMP thread as one warp and spreads only simd loops over the
// warp's 32 lanes: without simd (or loop) most lanes idle.
//   triad_omp_target_tuned  a = b + s*c, one region per pass
//   dot_omp_target_tuned    sum(b*c), one region with reduction(+:sum) per pass
#include <cstdint>

#include "core/omp_data.hpp"
#include "core/omp_tuned.hpp"
#include "workloads/vector/vector.hpp"

namespace acclab::vector {
namespace {

class StreamOmpResident : public StreamInstance {
 public:
  StreamOmpResident(const Params& params, Kernel kernel)
      : StreamInstance(params, kernel), tuning_(OmpTuning::of(params)) {}
  ~StreamOmpResident() override { release(); }

  void setup() override {
    StreamInstance::setup();
    const std::int64_t n = size_.n();
    omp_enter_to(b_.data(), n);
    omp_enter_to(c_.data(), n);
    omp_enter_alloc(a_.data(), kernel_ == Kernel::triad ? n : 0);  // only the triad writes a
    resident_ = true;
  }
  void finish() override {
    if (kernel_ == Kernel::triad) omp_update_host(a_.data(), size_.n());
    release();
  }

 protected:
  OmpTuning tuning_;

 private:
  void release() {
    if (!resident_) return;
    const std::int64_t n = size_.n();
    omp_exit_delete(a_.data(), kernel_ == Kernel::triad ? n : 0);
    omp_exit_delete(b_.data(), n);
    omp_exit_delete(c_.data(), n);
    resident_ = false;
  }
  bool resident_ = false;
};

class TriadOmpTargetTuned : public StreamOmpResident {
 public:
  explicit TriadOmpTargetTuned(const Params& params) : StreamOmpResident(params, Kernel::triad) {}
  void run() override {
    const std::int64_t n = size_.n();
    float* a = a_.data();
    const float* b = b_.data();
    const float* c = c_.data();
    for (std::int64_t pass = 0; pass < size_.nt; ++pass) {
      // Present since setup: the maps only count references.
      // The macro's arguments are directive clauses and a loop: left as written.
      // clang-format off
      ACCLAB_OMP_TUNED(tuning_, (map(alloc: a[0:n], b[0:n], c[0:n])),
          for (std::int64_t i = 0; i < n; ++i) a[i] = b[i] + triad_scalar * c[i];);
      // clang-format on
    }
  }
};

class DotOmpTargetTuned : public StreamOmpResident {
 public:
  explicit DotOmpTargetTuned(const Params& params) : StreamOmpResident(params, Kernel::dot) {}
  void run() override {
    const std::int64_t n = size_.n();
    const float* b = b_.data();
    const float* c = c_.data();
    for (std::int64_t pass = 0; pass < size_.nt; ++pass) {
      double sum = 0.0;
      // clang-format off
      ACCLAB_OMP_TUNED(tuning_, (map(alloc: b[0:n], c[0:n]) map(tofrom: sum) reduction(+: sum)),
          for (std::int64_t i = 0; i < n; ++i) sum += double(b[i]) * double(c[i]););
      // clang-format on
      dot_ = sum;
    }
  }
};

}  // namespace

std::unique_ptr<Instance> make_triad_omp_target_tuned(const Params& params) {
  return std::make_unique<TriadOmpTargetTuned>(params);
}
std::unique_ptr<Instance> make_dot_omp_target_tuned(const Params& params) {
  return std::make_unique<DotOmpTargetTuned>(params);
}

}  // namespace acclab::vector
