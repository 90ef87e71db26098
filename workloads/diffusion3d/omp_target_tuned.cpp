// The resident OpenACC steps (acc_flat, acc_rows) in OpenMP target form: fields resident on the
// device for the whole measurement (entered in setup, the result brought back in finish), one
// target region a step, its shape from the tunings (kit/omp_tuned.hpp): omp_construct,
// omp_simd, omp_teams/omp_threads, and omp_shape: rows (the default: collapse(2) over k and j, a
// thread a row, its i an inner `omp simd` loop over the warp's lanes, acc_rows' mapping),
// collapse (collapse(3) over k, j, i, which GCC 12 runs on one lane a warp), or flat (one flat
// loop over all cells with 32-bit indices, i, j and k recovered by division, acc_flat's form).
// No `nowait`: each step reads the field the one before wrote (jacobi2d's omp_target_tuned says
// why that would not overlap on GCC 12).
#include <string>

#include "kit/omp_resident.hpp"
#include "kit/omp_tuned.hpp"
#include "workloads/diffusion3d/diffusion3d.hpp"

namespace acclab::diffusion3d {
namespace {

class OmpTargetTuned : public DiffusionInstance {
 public:
  explicit OmpTargetTuned(const Params& params)
      : DiffusionInstance(params),
        tuning_(omp_tunings("omp_target_tuned", omp_target_shapes()).read(params)),
        shape_(omp_shape_of(tuning_, omp_target_shapes())) {}

  void setup() override {
    DiffusionInstance::setup();
    device_.enter(initial_.data(), f_.data(), fn_.data(), p_.points());
  }
  void reset() override { device_.reset(); }
  void run() override {
    iterate(f_.data(), fn_.data(), [&](const float* f, float* fn) {
      if (shape_ == "rows") {
        step_rows(f, fn);
      } else if (shape_ == "collapse") {
        step_3d(f, fn);
      } else {
        step_flat(f, fn);
      }
    });
  }
  void finish() override {
    device_.fetch(const_cast<float*>(result_));
    device_.release();
  }

 private:
  // The macro's arguments are directive clauses and a loop: left as written.
  // clang-format off
  void step_rows(const float* f, float* fn) {
    const int nx = p_.nx, ny = p_.ny, nz = p_.nz, plane = nx * ny, n = plane * nz;
    const float cc = p_.cc, ce = p_.ce, cw = p_.cw, cn = p_.cn, cs = p_.cs, ct = p_.ct,
                cb = p_.cb;
    ACCLAB_OMP_TUNED_OUTER(tuning_, (collapse(2) map(alloc: f[0:n], fn[0:n])),
        for (int k = 0; k < nz; ++k) {
          for (int j = 0; j < ny; ++j) {
            const int row = plane * k + nx * j;
            const int north = j == ny - 1 ? 0 : nx, south = j == 0 ? 0 : -nx;
            const int top = k == nz - 1 ? 0 : plane, bottom = k == 0 ? 0 : -plane;
            _Pragma("omp simd")
            for (int i = 0; i < nx; ++i) {
              const int ix = row + i;
              const int ip = i == nx - 1 ? ix : ix + 1;
              const int im = i == 0 ? ix : ix - 1;
              fn[ix] = cc * f[ix] + ce * f[ip] + cw * f[im] + cn * f[ix + north] +
                       cs * f[ix + south] + ct * f[ix + top] + cb * f[ix + bottom];
            }
          }
        });
  }

  void step_3d(const float* f, float* fn) {
    const int nx = p_.nx, ny = p_.ny, nz = p_.nz, plane = nx * ny, n = plane * nz;
    const float cc = p_.cc, ce = p_.ce, cw = p_.cw, cn = p_.cn, cs = p_.cs, ct = p_.ct,
                cb = p_.cb;
    ACCLAB_OMP_TUNED(tuning_, (collapse(3) map(alloc: f[0:n], fn[0:n])),
        for (int k = 0; k < nz; ++k) {
          for (int j = 0; j < ny; ++j) {
            for (int i = 0; i < nx; ++i) {
              const int ix = plane * k + nx * j + i;
              const int ip = i == nx - 1 ? ix : ix + 1;
              const int im = i == 0 ? ix : ix - 1;
              const int jp = j == ny - 1 ? ix : ix + nx;
              const int jm = j == 0 ? ix : ix - nx;
              const int kp = k == nz - 1 ? ix : ix + plane;
              const int km = k == 0 ? ix : ix - plane;
              fn[ix] = cc * f[ix] + ce * f[ip] + cw * f[im] + cn * f[jp] + cs * f[jm] +
                       ct * f[kp] + cb * f[km];
            }
          }
        });
  }

  void step_flat(const float* f, float* fn) {
    const unsigned nx = p_.nx, ny = p_.ny, nz = p_.nz, plane = nx * ny, n = plane * nz;
    const float cc = p_.cc, ce = p_.ce, cw = p_.cw, cn = p_.cn, cs = p_.cs, ct = p_.ct,
                cb = p_.cb;
    ACCLAB_OMP_TUNED(tuning_, (map(alloc: f[0:n], fn[0:n])),
        for (unsigned ix = 0; ix < n; ++ix) {
          const unsigned i = ix % nx, j = (ix / nx) % ny, k = ix / plane;
          const unsigned ip = i == nx - 1 ? ix : ix + 1;
          const unsigned im = i == 0 ? ix : ix - 1;
          const unsigned jp = j == ny - 1 ? ix : ix + nx;
          const unsigned jm = j == 0 ? ix : ix - nx;
          const unsigned kp = k == nz - 1 ? ix : ix + plane;
          const unsigned km = k == 0 ? ix : ix - plane;
          fn[ix] = cc * f[ix] + ce * f[ip] + cw * f[im] + cn * f[jp] + cs * f[jm] +
                   ct * f[kp] + cb * f[km];
        });
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

}  // namespace acclab::diffusion3d
