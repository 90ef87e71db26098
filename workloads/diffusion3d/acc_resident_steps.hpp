// diffusion3d's resident construct: every step of a run in one OpenACC compute construct, a gang
// per multiprocessor, the steps separated by grid_barrier (kit/acc_grid_barrier.hpp), so one
// launch a run instead of one a step. acc_tuned runs it on the whole grid; the MPI steps on a
// box that has no neighbour to exchange with (one rank), so that MPI costs nothing there.
#pragma once

#include <cstdint>
#include <string>

#include "workloads/diffusion3d/diffusion3d.hpp"

namespace acclab::diffusion3d {

// The cells stepped: nx x ny x nz, walls on every side, in fields of `points` floats whose rows
// are `pitch` floats apart and planes `plane` apart, cell (0, 0, 0) at `base`; all below 2^31.
struct ResidentField {
  int nx, ny, nz, pitch, plane, base, points;
};

class ResidentSteps {
 public:
  // `who` names the step in errors. The gangs: one per multiprocessor on an NVIDIA device, a few
  // on the host fallback; 0 where CUDA cannot count the multiprocessors (then run() must not be
  // called: the caller steps one construct a step instead).
  explicit ResidentSteps(std::string who);
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
  std::string who_;
  int gangs_ = 0;
  unsigned long long* arrived_ = nullptr;  // the barrier's count, on the device
};

}  // namespace acclab::diffusion3d
