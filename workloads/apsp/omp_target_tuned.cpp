// omp_target_data with the region's shape set by the tunings (kit/omp_tuned.hpp): omp_construct
// (distribute or loop), omp_simd, omp_teams/omp_threads (num_teams/thread_limit), and omp_shape:
// rows (the default: a thread a row, the row's columns an inner `omp simd` loop over the warp's
// lanes, as optimize's vector lanes run along a row) or collapse (collapse(2) over rows and
// columns, which GCC 12 runs on one lane a warp).
// The matrix stays resident (omp_target_present.hpp), one region a step; the arithmetic and the
// stores are omp_target_data's, so the result is the serial loop's bit for bit in every shape.
#include "kit/omp_tuned.hpp"
#include "workloads/apsp/omp_target_present.hpp"

namespace acclab::apsp {
namespace {

class OmpTargetTuned : public OmpPresentInstance {
 public:
  explicit OmpTargetTuned(const Params& params)
      : OmpPresentInstance(params),
        tuning_(omp_tunings("omp_target_tuned", omp_target_shapes()).read(params)),
        rows_(omp_shape_of(tuning_, omp_target_shapes()) == "rows") {}

  void run() override {
    for (int k = 0; k < p_.n; ++k) {
      if (p_.paths) {
        rows_ ? step_rows_paths(k) : step_2d_paths(k);
      } else {
        rows_ ? step_rows(k) : step_2d(k);
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
    ACCLAB_OMP_TUNED_OUTER(tuning_, (map(alloc: d[0:nn])),
        for (int i = 0; i < n; ++i) {
          float* row = d + i * n;
          const float* pivot = d + k * n;
          const float dik = row[k];
          _Pragma("omp simd")
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
    ACCLAB_OMP_TUNED_OUTER(tuning_, (map(alloc: d[0:nn], next[0:nn])),
        for (int i = 0; i < n; ++i) {
          float* row = d + i * n;
          std::int32_t* row_next = next + i * n;
          const float* pivot = d + k * n;
          const float dik = row[k];
          const std::int32_t nik = row_next[k];
          _Pragma("omp simd")
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
  bool rows_;
};

}  // namespace

TuningSet omp_target_tuned_tuning_set() {
  return omp_tunings("omp_target_tuned", omp_target_shapes()).set();
}

std::unique_ptr<Instance> make_omp_target_tuned(const Params& params) {
  return std::make_unique<OmpTargetTuned>(params);
}

}  // namespace acclab::apsp
