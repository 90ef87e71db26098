// Triad and dot with the arrays resident on the device for the whole measurement (entered in
// setup, a brought back in finish), as triad_acc and dot_acc_reduction keep them, one target
// region a pass in the shape omp_shape names (omp_target_shapes.hpp):
//   lanes8 (the default)  the pass of the resident steps (omp_target_lanes.hpp): num_teams one a
//                         multiprocessor, `parallel` over each team's warps, `simd` over the
//                         warp's 32 lanes, 8 loads a lane before the stores; the fastest shape
//                         of a single GCC 12 launch measured on an H100.
//   flat                  one loop under ACCLAB_OMP_TUNED (kit/omp_tuned.hpp): omp_construct
//                         distribute (`target teams distribute parallel for`, with `simd` when
//                         omp_simd=1) or loop (`target teams loop`), and num_teams/thread_limit
//                         from omp_teams/omp_threads (0: libgomp's).
// GCC's nvptx OpenMP runs each OpenMP thread as one warp and spreads only simd loops over the
// warp's 32 lanes: without simd (or loop) most lanes idle.
//   triad_omp_target_tuned  a = b + s*c, one region per pass
//   dot_omp_target_tuned    sum(b*c), one region with reduction(+:sum) per pass (lanes8: each
//                           warp's simd sum, added over the team's warps and the teams by the
//                           `parallel` and `teams` reductions, on the device)
#include <omp.h>

#include <cstddef>
#include <cstdint>

#include "kit/omp_data.hpp"
#include "kit/omp_grid_barrier.hpp"  // omp_resident_teams, omp_teams_running
#include "kit/omp_tuned.hpp"
#include "workloads/vector/omp_target_lanes.hpp"
#include "workloads/vector/omp_target_shapes.hpp"
#include "workloads/vector/vector.hpp"

namespace acclab::vector {
namespace {

class StreamOmpResident : public StreamInstance {
 public:
  StreamOmpResident(const Params& params, Kernel kernel)
      : StreamInstance(params, kernel),
        tuning_(omp_tunings("*_omp_target_tuned", omp_target_shapes()).read(params)),
        lanes8_(omp_shape_of(tuning_, omp_target_shapes()) == "lanes8") {}
  ~StreamOmpResident() override { release(); }

  void setup() override {
    StreamInstance::setup();
    const std::int64_t n = size_.n();
    omp_enter_to(b_.data(), n);
    omp_enter_to(c_.data(), n);
    omp_enter_alloc(a_.data(), kernel_ == Kernel::triad ? n : 0);  // only the triad writes a
    resident_ = true;
    // As the resident steps ask: one team a multiprocessor on the GPU, one on the host fallback
    // (where a region's teams run one after the other, so more would only repeat the walk).
    const int multiprocessors = omp_resident_teams();
    shape_ = lanes::groups_within(multiprocessors);
    teams_ = lanes::teams_for(multiprocessors, shape_);
  }
  void finish() override {
    if (kernel_ == Kernel::triad) omp_update_host(a_.data(), size_.n());
    release();
  }

 protected:
  OmpTuning tuning_;
  bool lanes8_;            // omp_shape=lanes8, else flat
  std::size_t shape_ = 0;  // lanes8: into lanes::group_counts
  int teams_ = 1;          // lanes8: num_teams

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
    if (lanes8_) {
      lanes::with_groups(shape_, [this](auto groups) { lanes8<decltype(groups)::value>(); });
      return;
    }
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

 private:
  template <std::int64_t groups>
  void lanes8() {
    const std::int64_t n = size_.n();
    const int teams = teams_;
    float* a = a_.data();
    const float* b = b_.data();
    const float* c = c_.data();
    for (std::int64_t pass = 0; pass < size_.nt; ++pass) {
#pragma omp target teams num_teams(teams) thread_limit(lanes::warps) \
    map(alloc                                                        \
        : a [0:n], b [0:n], c [0:n])
#pragma omp parallel
      lanes::triad_pass<groups>(omp_get_team_num(), omp_teams_running(teams), omp_get_thread_num(),
                                omp_get_num_threads(), n, a, b, c);
    }
  }
};

class DotOmpTargetTuned : public StreamOmpResident {
 public:
  explicit DotOmpTargetTuned(const Params& params) : StreamOmpResident(params, Kernel::dot) {}
  void run() override {
    if (lanes8_) {
      lanes::with_groups(shape_, [this](auto groups) { lanes8<decltype(groups)::value>(); });
      return;
    }
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

 private:
  // The warp sums are exact in double (exact_dot), so the reductions' order, which the teams'
  // finishing order decides, cannot change the result.
  template <std::int64_t groups>
  void lanes8() {
    const std::int64_t n = size_.n();
    const int teams = teams_;
    const float* b = b_.data();
    const float* c = c_.data();
    for (std::int64_t pass = 0; pass < size_.nt; ++pass) {
      double sum = 0.0;
#pragma omp target teams num_teams(teams) thread_limit(lanes::warps) \
    map(alloc                                                          \
        : b [0:n], c [0:n]) map(tofrom                                 \
                                : sum) reduction(+ : sum)
#pragma omp parallel reduction(+ : sum)
      sum += lanes::dot_pass<groups>(omp_get_team_num(), omp_teams_running(teams),
                                     omp_get_thread_num(), omp_get_num_threads(), n, b, c, nullptr);
      dot_ = sum;
    }
  }
};

}  // namespace

TuningSet omp_target_tuned_tuning_set() {
  return omp_tunings("*_omp_target_tuned", omp_target_shapes()).set();
}

std::unique_ptr<Instance> make_triad_omp_target_tuned(const Params& params) {
  return std::make_unique<TriadOmpTargetTuned>(params);
}
std::unique_ptr<Instance> make_dot_omp_target_tuned(const Params& params) {
  return std::make_unique<DotOmpTargetTuned>(params);
}

}  // namespace acclab::vector
