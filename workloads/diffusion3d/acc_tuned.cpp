// Beyond the course: fields resident on the device for the whole measurement (entered in
// setup, the result brought back in finish), steps queued on an async queue unless async=0.
// The loop shape is the acc_shape parameter:
//   flat          one flat `parallel loop gang vector vector_length(256)` over all cells with
//                 32-bit indices, i, j and k recovered by unsigned division and remainder
//                 (one level of parallelism: GCC hands nothing between gang-redundant and
//                 vector-partitioned code). The shape reached 0.54 of copy bandwidth for
//                 jacobi2d on an H200, but here costs three runtime divisions per cell.
//   rows          `parallel loop gang worker collapse(2)` over the (k, j) rows, 8 workers per
//                 gang, and `loop vector` (32 lanes, one warp) over i: no division per cell,
//                 the j and k neighbour offsets once per row, a row's hand-over from its worker
//                 to the warp's lanes a shuffle. Same arguments as flat: present() and the
//                 coefficients, mapped at each launch.
//   rows_globals  the rows loops with the fields' device addresses, sizes and coefficients in
//                 a `declare create` global (uploaded once before the steps), so that a launch
//                 maps no arguments. With any mapped argument GCC 12's nvptx plugin allocates a
//                 device block for the argument list at each launch, copies it, and queues a
//                 stream callback to free it; on the H200 every queued step cost about 100 us
//                 on top of its memory traffic (128^3 to 512^3), that block the likely cause.
#include <openacc.h>

#include "core/acc_resident.hpp"
#include "workloads/diffusion3d/diffusion3d.hpp"

namespace acclab::diffusion3d {

// rows_globals' launch arguments: a holds the device copy of the first field, b the second.
// One instance's at a time (AccTuned::use_globals uploads its own before its steps).
struct AccStepArgs {
  float* a;
  float* b;
  int nx, ny, nz;
  float cc, ce, cw, cn, cs, ct, cb;
};
AccStepArgs acc_tuned_step_args;
#pragma acc declare create(acc_tuned_step_args)

namespace {

constexpr int row_workers = 8;  // warps per gang in the rows shapes

// One step of the rows shape from the global arguments: reads field a and writes b
// (a_to_b), or the reverse. Nothing is mapped: the region names only the global.
template <bool a_to_b>
void step_rows_globals(int queue) {
#pragma acc parallel num_workers(row_workers) vector_length(32) async(queue)
  {
    const AccStepArgs args = acc_tuned_step_args;
    const float* __restrict f = a_to_b ? args.a : args.b;
    float* __restrict fn = a_to_b ? args.b : args.a;
    const int nx = args.nx, ny = args.ny, nz = args.nz, plane = nx * ny;
#pragma acc loop gang worker collapse(2)
    for (int k = 0; k < nz; ++k) {
      for (int j = 0; j < ny; ++j) {
        const int row = (k * ny + j) * nx;
        const int dj_plus = j == ny - 1 ? 0 : nx, dj_minus = j == 0 ? 0 : nx;
        const int dk_plus = k == nz - 1 ? 0 : plane, dk_minus = k == 0 ? 0 : plane;
#pragma acc loop vector
        for (int i = 0; i < nx; ++i) {
          const int ix = row + i;
          const int ip = i == nx - 1 ? ix : ix + 1;
          const int im = i == 0 ? ix : ix - 1;
          fn[ix] = args.cc * f[ix] + args.ce * f[ip] + args.cw * f[im] +
                   args.cn * f[ix + dj_plus] + args.cs * f[ix - dj_minus] +
                   args.ct * f[ix + dk_plus] + args.cb * f[ix - dk_minus];
        }
      }
    }
  }
}

class AccTuned : public DiffusionInstance {
 public:
  using DiffusionInstance::DiffusionInstance;
  ~AccTuned() override {
    if (globals_owner == this) globals_owner = nullptr;
  }
  void setup() override {
    DiffusionInstance::setup();
    device_.enter(initial_.data(), f_.data(), fn_.data(), p_.points());
    if (p_.acc_shape == AccShape::rows_globals) use_globals();
  }
  void reset() override { device_.reset(); }
  void run() override {
    const int queue = p_.async ? 1 : acc_async_sync;
    switch (p_.acc_shape) {
      case AccShape::flat: run_flat(queue); break;
      case AccShape::rows: run_rows(queue); break;
      case AccShape::rows_globals: run_rows_globals(queue); break;
    }
#pragma acc wait
  }
  void finish() override {
    device_.fetch(const_cast<float*>(result_));
    device_.release();
  }

 private:
  void run_flat(int queue) {
    const unsigned nx = p_.nx, ny = p_.ny, nz = p_.nz, plane = nx * ny, n = plane * nz;
    const float cc = p_.cc, ce = p_.ce, cw = p_.cw, cn = p_.cn, cs = p_.cs, ct = p_.ct,
                cb = p_.cb;
    iterate(f_.data(), fn_.data(), [&](const float* f, float* fn) {
#pragma acc parallel loop gang vector vector_length(256) present(f[0:n], fn[0:n]) async(queue)
      for (unsigned ix = 0; ix < n; ++ix) {
        const unsigned i = ix % nx, j = (ix / nx) % ny, k = ix / plane;
        const unsigned ip = i == nx - 1 ? ix : ix + 1;
        const unsigned im = i == 0 ? ix : ix - 1;
        const unsigned jp = j == ny - 1 ? ix : ix + nx;
        const unsigned jm = j == 0 ? ix : ix - nx;
        const unsigned kp = k == nz - 1 ? ix : ix + plane;
        const unsigned km = k == 0 ? ix : ix - plane;
        fn[ix] = cc * f[ix] + ce * f[ip] + cw * f[im] + cn * f[jp] + cs * f[jm] + ct * f[kp] +
                 cb * f[km];
      }
    });
  }

  void run_rows(int queue) {
    const int nx = p_.nx, ny = p_.ny, nz = p_.nz, plane = nx * ny, n = plane * nz;
    const float cc = p_.cc, ce = p_.ce, cw = p_.cw, cn = p_.cn, cs = p_.cs, ct = p_.ct,
                cb = p_.cb;
    iterate(f_.data(), fn_.data(), [&](const float* f, float* fn) {
#pragma acc parallel loop gang worker collapse(2) num_workers(row_workers) vector_length(32) \
    present(f[0:n], fn[0:n]) async(queue)
      for (int k = 0; k < nz; ++k) {
        for (int j = 0; j < ny; ++j) {
          const int row = (k * ny + j) * nx;
          const int dj_plus = j == ny - 1 ? 0 : nx, dj_minus = j == 0 ? 0 : nx;
          const int dk_plus = k == nz - 1 ? 0 : plane, dk_minus = k == 0 ? 0 : plane;
#pragma acc loop vector
          for (int i = 0; i < nx; ++i) {
            const int ix = row + i;
            const int ip = i == nx - 1 ? ix : ix + 1;
            const int im = i == 0 ? ix : ix - 1;
            fn[ix] = cc * f[ix] + ce * f[ip] + cw * f[im] + cn * f[ix + dj_plus] +
                     cs * f[ix - dj_minus] + ct * f[ix + dk_plus] + cb * f[ix - dk_minus];
          }
        }
      }
    });
  }

  void run_rows_globals(int queue) {
    if (globals_owner != this) use_globals();
    iterate(f_.data(), fn_.data(), [&](const float* f, float*) {
      if (f == f_.data()) {
        step_rows_globals<true>(queue);
      } else {
        step_rows_globals<false>(queue);
      }
    });
  }

  // Points the global arguments at this instance's device fields. Blocking.
  void use_globals() {
    acc_tuned_step_args = {static_cast<float*>(acc_deviceptr(f_.data())),
                           static_cast<float*>(acc_deviceptr(fn_.data())),
                           static_cast<int>(p_.nx),
                           static_cast<int>(p_.ny),
                           static_cast<int>(p_.nz),
                           p_.cc,
                           p_.ce,
                           p_.cw,
                           p_.cn,
                           p_.cs,
                           p_.ct,
                           p_.cb};
#pragma acc update device(acc_tuned_step_args)
    globals_owner = this;
  }

  static inline const AccTuned* globals_owner = nullptr;
  AccResidentPair device_;
};

}  // namespace

std::unique_ptr<Instance> make_acc_tuned(const Params& params) {
  return std::make_unique<AccTuned>(params);
}

}  // namespace acclab::diffusion3d
