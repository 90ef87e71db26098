// Beyond the course: fields resident on the device for the whole measurement (entered in
// setup, the result brought back in finish), in four loop shapes, each a step of the ladder. The
// shapes that launch a construct a step queue them on an async queue unless async=0:
//   acc_flat      one flat `parallel loop gang vector vector_length(256)` over all cells with
//                 32-bit indices, i, j and k recovered by unsigned division and remainder
//                 (one level of parallelism: GCC hands nothing between gang-redundant and
//                 vector-partitioned code): the simplest shape, at the price of three runtime
//                 divisions per cell.
//   acc_rows      `parallel loop gang worker collapse(2)` over the (k, j) rows, 8 workers per
//                 gang, and `loop vector` (32 lanes, one warp) over i: no division per cell,
//                 the j and k neighbour offsets once per row, a row's hand-over from its worker
//                 to the warp's lanes a shuffle. Same arguments as flat: present() and the
//                 coefficients, mapped at each launch.
//   acc_march     `parallel loop gang vector collapse(3)` over chunks of 16 planes along z and
//                 the (j, i) columns: each lane marches its column through the chunk with the
//                 cells below, at and above in registers, the directive form of the cuda
//                 variant's kernel. Five loads a cell instead of seven (the z neighbours come
//                 from registers), no division per cell, four planes' loads before their
//                 stores.
//   acc_tuned     every step in one `parallel` construct (acc_resident_steps.hpp): a gang per
//                 multiprocessor, the steps separated by a grid barrier, so one launch instead
//                 of one a step (at these sizes GCC's runtime spends about as long on a launch
//                 as a step's loads and stores take at copy bandwidth). Without CUDA to count
//                 the multiprocessors it runs flat instead; the output resident_gangs says
//                 which ran (0 for flat).
// The history of these shapes, and of one removed because it was wrong on the H200, is in
// bench/results/h200/diffusion3d/NOTES.md.
#include <openacc.h>

#include <cstdint>
#include <memory>

#include "kit/acc_resident.hpp"
#include "workloads/diffusion3d/acc_resident_steps.hpp"
#include "workloads/diffusion3d/diffusion3d.hpp"

namespace acclab::diffusion3d {
namespace {

struct QueueTunings {
  bool async = true;  // queue the steps asynchronously
};

const StepTunings<QueueTunings>& queue_tunings() {
  static const StepTunings<QueueTunings> tunings =
      StepTunings<QueueTunings>().flag({.key = "async",
                                        .help = "acc_flat, acc_rows, acc_march: 1 queues the "
                                                "steps asynchronously, 0 waits for each",
                                        .presets = same_in_all_presets("1")},
                                       &QueueTunings::async);
  return tunings;
}

const StepTunings<AccResidentShape>& resident_tunings() {
  static const StepTunings<AccResidentShape> tunings =
      acc_resident_tunings("acc_tuned", resident_default_workers);
  return tunings;
}

constexpr int row_workers = 8;    // warps per gang in the rows shape
constexpr int march_planes = 16;  // planes a lane marches through in the march shape

enum class AccShape { flat, rows, march, resident };

class AccTuned : public DiffusionInstance {
 public:
  AccTuned(const Params& params, AccShape shape)
      : DiffusionInstance(params),
        shape_(shape),
        tunings_(queue_tunings().read(params)),
        resident_shape_(shape == AccShape::resident
                            ? resident_tunings().read(params)
                            : AccResidentShape{.workers = resident_default_workers}) {}
  void setup() override {
    DiffusionInstance::setup();
    device_.enter(initial_.data(), f_.data(), fn_.data(), p_.points());
    gangs_ = 0;
    if (shape_ == AccShape::resident) {  // validate keeps the cells under 2^31
      resident_ = std::make_unique<ResidentSteps>("diffusion3d acc_tuned", resident_shape_);
      gangs_ = resident_->gangs();
    }
    extra_outputs_["resident_gangs"] = gangs_;
  }
  void reset() override { device_.reset(); }
  void run() override {
    const int queue = tunings_.async ? 1 : acc_async_sync;
    switch (shape_) {
      case AccShape::flat:
        run_flat(queue);
        break;
      case AccShape::rows:
        run_rows(queue);
        break;
      case AccShape::march:
        run_march(queue);
        break;
      case AccShape::resident:
        if (gangs_ > 0) {
          run_resident();
        } else {
          run_flat(queue);
        }
        break;
    }
#pragma acc wait
  }
  void finish() override {
    device_.fetch(const_cast<float*>(result_));
    device_.release();
    resident_.reset();
  }

 private:
  void run_flat(int queue) {
    const unsigned nx = p_.nx, ny = p_.ny, nz = p_.nz, plane = nx * ny, n = plane * nz;
    const float cc = p_.cc, ce = p_.ce, cw = p_.cw, cn = p_.cn, cs = p_.cs, ct = p_.ct, cb = p_.cb;
    iterate(f_.data(), fn_.data(), [&](const float* f, float* fn) {
#pragma acc parallel loop gang vector vector_length(256) present(f [0:n], fn [0:n]) async(queue)
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
    const float cc = p_.cc, ce = p_.ce, cw = p_.cw, cn = p_.cn, cs = p_.cs, ct = p_.ct, cb = p_.cb;
    iterate(f_.data(), fn_.data(), [&](const float* f, float* fn) {
#pragma acc parallel loop gang worker collapse(2) num_workers(row_workers) vector_length(32) \
    present(f [0:n], fn [0:n]) async(queue)
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

  void run_march(int queue) {
    const int nx = p_.nx, ny = p_.ny, nz = p_.nz, plane = nx * ny, n = plane * nz;
    const int chunks = (nz + march_planes - 1) / march_planes;
    const float cc = p_.cc, ce = p_.ce, cw = p_.cw, cn = p_.cn, cs = p_.cs, ct = p_.ct, cb = p_.cb;
    iterate(f_.data(), fn_.data(), [&](const float* f, float* fn) {
#pragma acc parallel loop gang vector collapse(3) vector_length(128) present(f [0:n], fn [0:n]) \
    async(queue)
      for (int chunk = 0; chunk < chunks; ++chunk) {
        for (int j = 0; j < ny; ++j) {
          for (int i = 0; i < nx; ++i) {
            const int k_begin = chunk * march_planes;
            const int k_end = k_begin + march_planes < nz ? k_begin + march_planes : nz;
            // Zero-flux walls: a missing neighbour is the cell itself (offset 0).
            const int di_plus = i<nx - 1, di_minus = i> 0;
            const int dj_plus = nx * (j < ny - 1), dj_minus = nx * (j > 0);
            const int column = j * nx + i;
            float below = f[(k_begin - (k_begin > 0)) * plane + column];
            float centre = f[k_begin * plane + column];
            // Four planes at a time, all their loads before any store: GCC cannot tell fn from
            // f, so a load after a store would wait for it.
            for (int k = k_begin; k < k_end; k += 4) {
              float east[4], west[4], north[4], south[4], up[4];
#pragma GCC unroll 4
              for (int u = 0; u < 4; ++u) {
                const int kk = k + u < nz - 1 ? k + u : nz - 1;
                const int ix = kk * plane + column;
                east[u] = f[ix + di_plus];
                west[u] = f[ix - di_minus];
                north[u] = f[ix + dj_plus];
                south[u] = f[ix - dj_minus];
                up[u] = f[ix + plane * (kk < nz - 1)];
              }
#pragma GCC unroll 4
              for (int u = 0; u < 4; ++u) {
                if (k + u < k_end) {
                  fn[(k + u) * plane + column] = cc * centre + ce * east[u] + cw * west[u] +
                                                 cn * north[u] + cs * south[u] + ct * up[u] +
                                                 cb * below;
                  below = centre;
                  centre = up[u];
                }
              }
            }
          }
        }
      }
    });
  }

  void run_resident() {
    const ResidentField field{int(p_.nx),         int(p_.ny), int(p_.nz),      int(p_.nx),
                              int(p_.nx * p_.ny), 0,          int(p_.points())};
    steps_ = resident_->run(field, p_, f_.data(), fn_.data(), p_.steps,
                            "acc_flat launches a construct per step instead");
    result_ = steps_ % 2 ? fn_.data() : f_.data();
  }

  AccShape shape_;
  QueueTunings tunings_;
  AccResidentShape resident_shape_;  // acc_tuned's construct
  AccResidentPair device_;
  int gangs_ = 0;  // the resident shape's gangs, 0 where it runs flat
  std::unique_ptr<ResidentSteps> resident_;
};

}  // namespace

TuningSet acc_queue_tuning_set() { return queue_tunings().set(); }
TuningSet acc_tuned_tuning_set() { return resident_tunings().set(); }

std::unique_ptr<Instance> make_acc_flat(const Params& params) {
  return std::make_unique<AccTuned>(params, AccShape::flat);
}

std::unique_ptr<Instance> make_acc_rows(const Params& params) {
  return std::make_unique<AccTuned>(params, AccShape::rows);
}

std::unique_ptr<Instance> make_acc_march(const Params& params) {
  return std::make_unique<AccTuned>(params, AccShape::march);
}

std::unique_ptr<Instance> make_acc_tuned(const Params& params) {
  return std::make_unique<AccTuned>(params, AccShape::resident);
}

}  // namespace acclab::diffusion3d
