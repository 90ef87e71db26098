// acc_tuned in OpenMP target form: the grids resident on the device for the whole measurement
// (entered in setup, the result brought back in finish), one target region per sweep with the
// max-change reduction fused into the checked sweeps, and the region's shape set by the
// tunings (kit/omp_tuned.hpp): omp_construct, omp_simd, omp_teams/omp_threads, and omp_shape:
// rows (the default: a thread a row, the row's columns an inner `omp simd` loop over the warp's
// lanes, acc_gang_vector's mapping), collapse (the two interior loops under collapse(2), which
// GCC 12 runs on one lane a warp), or flat (one flat loop over the interior rows with 32-bit
// indices, the boundary columns skipped inside, as acc_tuned's).
// No `nowait`: each sweep reads the last one's grid, and GCC 12's nvptx plugin has no
// asynchronous launch (GOMP_OFFLOAD_async_run is a stub; every launch ends in cuCtxSynchronize),
// so a chain of dependent nowait regions could overlap nothing.
#include <string>

#include "kit/omp_resident.hpp"
#include "kit/omp_tuned.hpp"
#include "workloads/jacobi2d/jacobi2d.hpp"

namespace acclab::jacobi2d {
namespace {

class OmpTargetTuned : public JacobiInstance {
 public:
  explicit OmpTargetTuned(const Params& params)
      : JacobiInstance(params),
        tuning_(omp_tunings("omp_target_tuned", omp_target_shapes()).read(params)),
        shape_(omp_shape_of(tuning_, omp_target_shapes())) {}

  void setup() override {
    JacobiInstance::setup();
    device_.enter(initial_.data(), u0_.data(), u1_.data(), p_.points());
  }
  void reset() override { device_.reset(); }
  void finish() override {
    device_.fetch(const_cast<float*>(result_));
    device_.release();
  }

  void run() override {
    iterate(u0_.data(), u1_.data(), [&](float* in, float* out, bool check) {
      if (shape_ == "rows") return sweep_rows(in, out, check);
      return shape_ == "collapse" ? sweep_2d(in, out, check) : sweep_flat(in, out, check);
    });
  }

 private:
  // The macro's arguments are directive clauses and a loop: left as written.
  // clang-format off
  float sweep_rows(float* in, float* out, bool check) {
    const int rows = static_cast<int>(p_.rows), cols = static_cast<int>(p_.cols);
    const int n = rows * cols;
    const float c1f = p_.c1f, wy2 = p_.wy2, hx2 = p_.hx2, c2 = p_.c2;
    float change = 0.0f;
    if (!check) {
      ACCLAB_OMP_TUNED_OUTER(tuning_, (map(alloc: in[0:n], out[0:n])),
          for (int ix = 1; ix < rows - 1; ++ix) {
            _Pragma("omp simd")
            for (int jy = 1; jy < cols - 1; ++jy) {
              const int k = ix * cols + jy;
              out[k] = (c1f + wy2 * (in[k - cols] + in[k + cols]) +
                        hx2 * (in[k - 1] + in[k + 1])) * c2;
            }
          });
    } else {
      ACCLAB_OMP_TUNED_OUTER(tuning_, (map(alloc: in[0:n], out[0:n]) map(tofrom: change)
                                       reduction(max: change)),
          for (int ix = 1; ix < rows - 1; ++ix) {
            _Pragma("omp simd reduction(max: change)")
            for (int jy = 1; jy < cols - 1; ++jy) {
              const int k = ix * cols + jy;
              const float v = (c1f + wy2 * (in[k - cols] + in[k + cols]) +
                               hx2 * (in[k - 1] + in[k + 1])) * c2;
              const float d = __builtin_fabsf(v - in[k]);
              change = d > change ? d : change;
              out[k] = v;
            }
          });
    }
    return change;
  }

  float sweep_2d(float* in, float* out, bool check) {
    const int rows = static_cast<int>(p_.rows), cols = static_cast<int>(p_.cols);
    const int n = rows * cols;
    const float c1f = p_.c1f, wy2 = p_.wy2, hx2 = p_.hx2, c2 = p_.c2;
    float change = 0.0f;
    if (!check) {
      ACCLAB_OMP_TUNED(tuning_, (collapse(2) map(alloc: in[0:n], out[0:n])),
          for (int ix = 1; ix < rows - 1; ++ix) {
            for (int jy = 1; jy < cols - 1; ++jy) {
              const int k = ix * cols + jy;
              out[k] = (c1f + wy2 * (in[k - cols] + in[k + cols]) +
                        hx2 * (in[k - 1] + in[k + 1])) * c2;
            }
          });
    } else {
      ACCLAB_OMP_TUNED(tuning_, (collapse(2) map(alloc: in[0:n], out[0:n]) map(tofrom: change)
                                 reduction(max: change)),
          for (int ix = 1; ix < rows - 1; ++ix) {
            for (int jy = 1; jy < cols - 1; ++jy) {
              const int k = ix * cols + jy;
              const float v = (c1f + wy2 * (in[k - cols] + in[k + cols]) +
                               hx2 * (in[k - 1] + in[k + 1])) * c2;
              const float d = __builtin_fabsf(v - in[k]);
              change = d > change ? d : change;
              out[k] = v;
            }
          });
    }
    return change;
  }

  float sweep_flat(float* in, float* out, bool check) {
    const int cols = static_cast<int>(p_.cols);
    const int n = static_cast<int>(p_.points());
    const int first = cols, last = n - cols;  // interior rows only
    const float c1f = p_.c1f, wy2 = p_.wy2, hx2 = p_.hx2, c2 = p_.c2;
    float change = 0.0f;
    if (!check) {
      ACCLAB_OMP_TUNED(tuning_, (map(alloc: in[0:n], out[0:n])),
          for (int k = first; k < last; ++k) {
            const int jy = k % cols;
            if (jy != 0 && jy != cols - 1) {
              out[k] = (c1f + wy2 * (in[k - cols] + in[k + cols]) +
                        hx2 * (in[k - 1] + in[k + 1])) * c2;
            }
          });
    } else {
      ACCLAB_OMP_TUNED(tuning_, (map(alloc: in[0:n], out[0:n]) map(tofrom: change)
                                 reduction(max: change)),
          for (int k = first; k < last; ++k) {
            const int jy = k % cols;
            if (jy != 0 && jy != cols - 1) {
              const float v = (c1f + wy2 * (in[k - cols] + in[k + cols]) +
                               hx2 * (in[k - 1] + in[k + 1])) * c2;
              const float d = __builtin_fabsf(v - in[k]);
              change = d > change ? d : change;
              out[k] = v;
            }
          });
    }
    return change;
  }
  // clang-format on

  OmpTuning tuning_;
  std::string shape_;
  OmpResidentPair device_;
};

}  // namespace

TuningSet omp_target_tuned_tuning_set() {
  return omp_tunings("omp_target_tuned", omp_target_shapes()).set();
}

std::unique_ptr<Instance> make_omp_target_tuned(const Params& params) {
  return std::make_unique<OmpTargetTuned>(params);
}

}  // namespace acclab::jacobi2d
