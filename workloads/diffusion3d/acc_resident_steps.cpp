// The resident construct's shape: 16 workers of 32 lanes a gang by default (acc_workers), a gang
// a multiprocessor (acc_gangs_per_sm); a warp takes whole (j, k)
// rows, its lanes four cells 32 apart at once (all their loads before the stores).
#include "workloads/diffusion3d/acc_resident_steps.hpp"

#include <openacc.h>

#include <stdexcept>

#include "core/machine.hpp"
#include "kit/acc_grid_barrier.hpp"
#include "kit/grid_barrier_check.hpp"

namespace acclab::diffusion3d {
namespace {

constexpr int warp = 32;
// Warps per gang (resident_default_workers): the loop takes more than 64 registers a lane
// (ptxas for sm_90), so a multiprocessor's 64K registers hold 16 warps of it, not 32.
constexpr int resident_cells = 4;  // cells a lane loads at once
constexpr int host_gangs = 3;      // the gangs where it runs on the host
constexpr int gang_dimension = 0;  // GOMP_DIM_GANG, for __builtin_goacc_parlevel_size

}  // namespace

ResidentSteps::ResidentSteps(std::string who, AccResidentShape shape)
    : who_(std::move(who)), shape_(shape) {
  gangs_ =
      acc_get_num_devices(acc_device_nvidia) > 0
          ? cuda_multiprocessors(acc_get_device_num(acc_device_nvidia)) * int(shape_.gangs_per_sm)
          : host_gangs;
  if (gangs_ > 0) {
    arrived_ = static_cast<unsigned long long*>(acc_malloc(sizeof *arrived_));
    if (!arrived_) throw std::runtime_error(who_ + ": acc_malloc failed");
  }
}

ResidentSteps::~ResidentSteps() {
  if (arrived_) acc_free(arrived_);
}

std::int64_t ResidentSteps::run(const ResidentField& field, const Problem& p, float* f, float* fn,
                                std::int64_t steps, const std::string& fallback) {
  std::int64_t done = 0;
  with_acc_workers(shape_.workers, [&](auto workers) {
    done = run_with<decltype(workers)::value>(field, p, f, fn, steps, fallback);
  });
  return done;
}

template <int resident_workers>
std::int64_t ResidentSteps::run_with(const ResidentField& field, const Problem& p, float* f,
                                     float* fn, std::int64_t steps, const std::string& fallback) {
  const int nx = field.nx, ny = field.ny, nz = field.nz, pitch = field.pitch, plane = field.plane,
            base = field.base, n = field.points, rows = ny * nz;
  const int gangs = gangs_, threads = gangs * resident_workers * warp,
            warps = gangs * resident_workers;
  const float cc = p.cc, ce = p.ce, cw = p.cw, cn = p.cn, cs = p.cs, ct = p.ct, cb = p.cb;
  const bool alternate = p.alternate;
  unsigned long long* arrived = arrived_;
  unsigned long long state[2] = {0, 0};  // gangs running, steps done
  const unsigned long long none = 0;
  acc_memcpy_to_device(arrived, const_cast<unsigned long long*>(&none), sizeof none);
#pragma acc parallel num_gangs(gangs) num_workers(resident_workers) vector_length(warp) \
    present(f [0:n], fn [0:n]) deviceptr(arrived) copyout(state [0:2])
  {
    // The gangs actually running: `gangs` on the device, one on the host fallback.
    const unsigned long long running = __builtin_goacc_parlevel_size(gang_dimension);
    unsigned long long expected = 0;  // arrivals at the barrier so far, this gang's included
    bool together = true;             // false once a gang gave up waiting at a barrier
    unsigned long long done = 0;      // steps this gang has finished
    for (std::int64_t s = 0; s < steps && together; ++s) {
      const float* from = s % 2 ? fn : f;
      float* to = s % 2 ? f : fn;
      // Every other step walks the rows back to front: it starts on the rows the step before
      // wrote last, which are still in L2.
      const bool back_to_front = alternate && s % 2 == 1;
#pragma acc loop gang worker vector
      for (int t = 0; t < threads; ++t) {
        const int lane = t % warp;
        for (int walked = t / warp; walked < rows; walked += warps) {
          const int row = back_to_front ? rows - 1 - walked : walked;
          const int j = row % ny, k = row / ny;
          // Zero-flux walls: a missing neighbour is the cell itself (offset 0).
          const int dj_plus = pitch * (j < ny - 1), dj_minus = pitch * (j > 0);
          const int dk_plus = plane * (k < nz - 1), dk_minus = plane * (k > 0);
          const int start = base + k * plane + j * pitch;
          for (int i0 = lane; i0 < nx; i0 += resident_cells * warp) {
            float centre[resident_cells], east[resident_cells], west[resident_cells],
                north[resident_cells], south[resident_cells], up[resident_cells],
                down[resident_cells];
#pragma GCC unroll 4
            for (int u = 0; u < resident_cells; ++u) {
              const int i = i0 + u * warp < nx ? i0 + u * warp : i0;
              const int ix = start + i;
              centre[u] = from[ix];
              east[u] = from[ix + (i < nx - 1)];
              west[u] = from[ix - (i > 0)];
              north[u] = from[ix + dj_plus];
              south[u] = from[ix - dj_minus];
              up[u] = from[ix + dk_plus];
              down[u] = from[ix - dk_minus];
            }
#pragma GCC unroll 4
            for (int u = 0; u < resident_cells; ++u) {
              if (i0 + u * warp < nx) {
                to[start + i0 + u * warp] = cc * centre[u] + ce * east[u] + cw * west[u] +
                                            cn * north[u] + cs * south[u] + ct * up[u] +
                                            cb * down[u];
              }
            }
          }
        }
      }
      together = grid_barrier(arrived, expected += running);
      ++done;
    }
    if (__builtin_goacc_parlevel_id(gang_dimension) == 0) {
      state[0] = running;
      state[1] = done;
    }
  }
  unsigned long long counted = 0;
  acc_memcpy_from_device(&counted, arrived, sizeof counted);
  check_grid_barrier(counted, state[0] * std::uint64_t(steps), who_, gangs, fallback);
  return std::int64_t(state[1]);
}

}  // namespace acclab::diffusion3d
