// MPI ranks on the host: each rank sweeps its block with OpenMP threads over its rows, the
// halos exchanged by MPI_Sendrecv on the host grids before every sweep (columns packed first).
// The course's first MPI step, and the reference the device steps' exchanges are compared with.
#include "workloads/jacobi2d/mpi_blocks.hpp"

#include <cmath>

namespace acclab::jacobi2d {
namespace {

class MpiOpenMP : public MpiJacobiInstance {
 public:
  using MpiJacobiInstance::MpiJacobiInstance;
  void run() override {
    const std::int64_t rows = b_.rows, cols = b_.cols, ld = b_.ld();
    const float c1f = p_.c1f, wy2 = p_.wy2, hx2 = p_.hx2, c2 = p_.c2;
    iterate(
        u0_.data(), u1_.data(), [&](float* grid) { exchange_host(grid); },
        [&](const float* in, float* out, bool check) {
          float change = 0.0f;
#pragma omp parallel for schedule(static) reduction(max : change)
          for (std::int64_t i = 1; i <= rows; ++i) {
            for (std::int64_t j = 1; j <= cols; ++j) {
              const std::int64_t k = i * ld + j;
              // The serial sweep's expression, term for term: the same bits.
              out[k] = (c1f + wy2 * (in[k - ld] + in[k + ld]) + hx2 * (in[k - 1] + in[k + 1])) * c2;
              if (check) change = std::fmax(change, std::fabs(out[k] - in[k]));
            }
          }
          return change;
        });
  }
  void finish() override {
    time_exchange([&](float* grid) { exchange_host(grid); }, u1_.data() == result_ ? u0_.data() : u1_.data());
    gather();
  }
};

}  // namespace

std::unique_ptr<Instance> make_mpi_openmp(const Params& params) {
  return std::make_unique<MpiOpenMP>(params);
}

}  // namespace acclab::jacobi2d
