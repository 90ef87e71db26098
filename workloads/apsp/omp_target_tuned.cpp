// omp_target_data with the region's shape set by the tunings (core/omp_tuned.hpp): omp_construct
// (distribute or loop), omp_simd, omp_teams/omp_threads (num_teams/thread_limit), and
// omp_collapse (1: collapse(2) over rows and columns, the lanes along a row, as optimize's
// vector lanes are; 0: one loop over the rows, a row's columns in turn within its iteration, the
// shape of multicore's threads, which on a GPU leaves the lanes of a warp on different rows).
// The matrix stays resident (omp_target_present.hpp), one region a step; the arithmetic and the
// stores are omp_target_data's, so the result is the serial loop's bit for bit in every shape.
#include "core/omp_tuned.hpp"
#include "workloads/apsp/omp_target_present.hpp"

namespace acclab::apsp {
namespace {

class OmpTargetTuned : public OmpPresentInstance {
 public:
  explicit OmpTargetTuned(const Params& params)
      : OmpPresentInstance(params),
        tuning_(OmpTuning::of(params)),
        collapse_(!params.has("omp_collapse") || params.flag("omp_collapse")) {}

  void run() override {
    for (int k = 0; k < p_.n; ++k) {
      if (p_.paths) {
        collapse_ ? step_2d_paths(k) : step_rows_paths(k);
      } else {
        collapse_ ? step_2d(k) : step_rows(k);
      }
    }
  }

 private:
  // 32-bit indices: n^2 < 2^31 (validate). Scalars only in the regions (firstprivate).
  // The macro's arguments are directive clauses and a loop: left as written.
  // clang-format off
  void step_2d(int k) {
    float* d = d_.data();
    const int n = p_.n, nn = n * n;
    const bool max_plus = p_.semiring == Semiring::max_plus;
    ACCLAB_OMP_TUNED(tuning_, (collapse(2) map(alloc: d[0:nn])),
        for (int i = 0; i < n; ++i) {
          for (int j = 0; j < n; ++j) {
            const float through = d[i * n + k] + d[k * n + j], now = d[i * n + j];
            if (max_plus ? now < through : through < now) d[i * n + j] = through;
          }
        });
  }

  void step_2d_paths(int k) {
    float* d = d_.data();
    std::int32_t* next = next_.data();
    const int n = p_.n, nn = n * n;
    const bool max_plus = p_.semiring == Semiring::max_plus;
    ACCLAB_OMP_TUNED(tuning_, (collapse(2) map(alloc: d[0:nn], next[0:nn])),
        for (int i = 0; i < n; ++i) {
          for (int j = 0; j < n; ++j) {
            const float through = d[i * n + k] + d[k * n + j], now = d[i * n + j];
            if (max_plus ? now < through : through < now) {
              d[i * n + j] = through;
              next[i * n + j] = next[i * n + k];
            }
          }
        });
  }

  void step_rows(int k) {
    float* d = d_.data();
    const int n = p_.n, nn = n * n;
    const bool max_plus = p_.semiring == Semiring::max_plus;
    ACCLAB_OMP_TUNED(tuning_, (map(alloc: d[0:nn])),
        for (int i = 0; i < n; ++i) {
          float* row = d + i * n;
          const float* pivot = d + k * n;
          const float dik = row[k];
          for (int j = 0; j < n; ++j) {
            const float through = dik + pivot[j], now = row[j];
            if (max_plus ? now < through : through < now) row[j] = through;
          }
        });
  }

  void step_rows_paths(int k) {
    float* d = d_.data();
    std::int32_t* next = next_.data();
    const int n = p_.n, nn = n * n;
    const bool max_plus = p_.semiring == Semiring::max_plus;
    ACCLAB_OMP_TUNED(tuning_, (map(alloc: d[0:nn], next[0:nn])),
        for (int i = 0; i < n; ++i) {
          float* row = d + i * n;
          std::int32_t* row_next = next + i * n;
          const float* pivot = d + k * n;
          const float dik = row[k];
          const std::int32_t nik = row_next[k];
          for (int j = 0; j < n; ++j) {
            const float through = dik + pivot[j], now = row[j];
            if (max_plus ? now < through : through < now) {
              row[j] = through;
              row_next[j] = nik;
            }
          }
        });
  }
  // clang-format on

  OmpTuning tuning_;
  bool collapse_;
};

}  // namespace

std::unique_ptr<Instance> make_omp_target_tuned(const Params& params) {
  return std::make_unique<OmpTargetTuned>(params);
}

}  // namespace acclab::apsp
