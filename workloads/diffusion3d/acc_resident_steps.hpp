// diffusion3d's resident construct: every step of a run in one OpenACC compute construct, a gang
// per multiprocessor, the steps separated by grid_barrier (kit/acc_grid_barrier.hpp), so one
// launch a run instead of one a step. acc_tuned runs it on the whole grid; the MPI steps on a
// box that has no neighbour to exchange with (one rank), so that MPI costs nothing there.
#pragma once

#include <cstdint>
#include <string>

#include "kit/acc_resident_shape.hpp"
#include "workloads/diffusion3d/diffusion3d.hpp"

namespace acclab::diffusion3d {

// The cells stepped: nx x ny x nz, walls on every side, in fields of `points` floats whose rows
// are `pitch` floats apart and planes `plane` apart, cell (0, 0, 0) at `base`; all below 2^31.
struct ResidentField {
  int nx, ny, nz, pitch, plane, base, points;
};

// Warps a gang of the resident construct unless a step's tunings say otherwise.
inline constexpr std::int64_t resident_default_workers = 16;

class ResidentSteps {
 public:
  // `who` names the step in errors. The gangs: shape.gangs_per_sm a multiprocessor on an NVIDIA
  // device, a few on the host fallback; 0 where CUDA cannot count the multiprocessors (then
  // run() must not be called: the caller steps one construct a step instead). `shape` is one
  // check_acc_resident_shape() accepts.
  explicit ResidentSteps(std::string who,
                         AccResidentShape shape = {.workers = resident_default_workers});
  ~ResidentSteps();
  ResidentSteps(const ResidentSteps&) = delete;
  ResidentSteps& operator=(const ResidentSteps&) = delete;

  int gangs() const { return gangs_; }
  // `steps` steps of `field` from f into fn and back (both present on the device), with the
  // coefficients of `p`. Returns the steps done (all of them, or it throws where the gangs
  // failed to meet at a barrier, naming `fallback`); the result is in f after an even count.
  std::int64_t run(const ResidentField& field, const Problem& p, float* f, float* fn,
                   std::int64_t steps, const std::string& fallback);

 private:
  template <int workers>
  std::int64_t run_with(const ResidentField& field, const Problem& p, float* f, float* fn,
                        std::int64_t steps, const std::string& fallback);

  std::string who_;
  AccResidentShape shape_;
  int gangs_ = 0;
  unsigned long long* arrived_ = nullptr;  // the barrier's count, on the device
};

}  // namespace acclab::diffusion3d
