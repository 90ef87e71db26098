// jacobi2d across MPI ranks: the grid's interior dealt out in blocks over a Cartesian process
// grid, each rank sweeping its block inside a ring of halo points that hold its neighbours'
// edges (or the grid's boundary values), the halos exchanged before every sweep. The steps
// (mpi_openmp, mpi_acc_staged, mpi_acc_overlap) differ in where the block lives and how the
// halos move; this is what they share: the decomposition, the sweep loop with the convergence
// check reduced over ranks, the gathered verification and the report.
//
// A stencil update does not depend on the decomposition: each point's arithmetic is the serial
// sweep's, so on the host the gathered grid equals the serial one bit for bit, and is checked so.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "core/mpi_env.hpp"
#include "kit/mpi_steps.hpp"
#include "core/profile.hpp"
#include "core/registry.hpp"
#include "workloads/jacobi2d/jacobi2d.hpp"

namespace acclab::jacobi2d {

// This rank's block: interior rows [row0, row0 + rows) and columns [col0, col0 + cols) of the
// global grid, stored with a one-point halo ring as (rows + 2) x (cols + 2) floats.
struct Block {
  std::array<int, 2> dims{1, 1};    // process grid: ranks along rows (x), along columns (y)
  std::array<int, 2> coords{0, 0};  // this rank's place in it
  std::int64_t row0 = 1, rows = 0, col0 = 1, cols = 0;
  // Neighbour ranks; -1 where the block touches the grid's boundary.
  int north = -1, south = -1, west = -1, east = -1;

  std::int64_t ld() const { return cols + 2; }  // floats from one local row to the next
  std::int64_t points() const { return (rows + 2) * ld(); }
  // Floats this rank receives in one exchange (its halo faces that have a neighbour).
  std::int64_t halo_floats() const;
};

// The process grid: `proc_grid` ("PxQ") when set, else MPI_Dims_create's for `ranks`. Throws
// UsageError naming --set proc_grid when it does not multiply to the ranks or when a block
// would hold no interior row or column.
std::array<int, 2> process_grid(const Problem& p, const std::string& proc_grid, int ranks);
// Rank `rank`'s block in `dims`: as even as the interior allows (the first blocks one row or
// column more when it does not divide).
Block block_of(const Problem& p, std::array<int, 2> dims, int rank);

// The shared part of every MPI step. Rank 0 verifies the gathered grid; every rank returns its
// verdict.
class MpiJacobiInstance : public Instance {
 public:
  explicit MpiJacobiInstance(const Params& params);
  ~MpiJacobiInstance() override;

  // The decomposition and the local grids (host), with the initial values.
  void setup() override;
  void reset() override;
  Verification verify() override;
  nlohmann::json distribution() override;
  void corrupt_result() override;
  // Rank 0's gathered grid after finish() (nullptr on the other ranks or before).
  const float* gathered() const { return full_.empty() ? nullptr : full_.data(); }

 protected:
  // Runs the sweeps of one run(): before each, `exchange(in)` fills in's halo ring; then
  // `sweep(in, out, check)` sweeps the block (returning its max change when check). At each
  // check the change is the largest over all ranks. Sets result_, sweeps_, residual_.
  template <typename Exchange, typename Sweep>
  void iterate(float* u0, float* u1, Exchange&& exchange, Sweep&& sweep);

  // A block's four edges packed one after the other, as the exchange moves them: its first
  // row, its last row, its first column, its last column (cols, cols, rows, rows floats).
  // Outgoing, they are this block's edges; incoming, the neighbours' edges for its halo ring.
  std::int64_t face_floats() const { return 2 * (b_.cols + b_.rows); }
  // Sends each edge of `out` (face layout) to the neighbour across it and receives that
  // neighbour's facing edge into `in`, by MPI_Sendrecv on host memory; the faces without a
  // neighbour are left as they were. A single process does nothing.
  void exchange_faces(const float* out, float* in);
  // The halo exchange on host grids: edges packed, exchanged, unpacked into the halo ring.
  void exchange_host(float* grid);
  // Brings every rank's block to rank 0's full grid (called in finish(), after the result is
  // in the host grid result_ points to).
  void gather();
  // The exchange alone, replayed `count` times after the runs (the way xfer% is measured):
  // seconds an exchange on the slowest rank. `exchange` is the step's own.
  template <typename Exchange>
  void time_exchange(Exchange&& exchange, float* grid);

  Problem p_;
  std::string proc_grid_;
  Block b_;
  // Whether the gathered grid must equal the serial one bit for bit (the sweep ran on the host,
  // or on the GPU without contracting multiply-adds); otherwise it is held to serial_tolerance.
  bool bitwise_ = true;
  std::string halo_path_ = "host";        // how halos move: host, host-staged, nccl, cuda-aware-mpi
  std::vector<float> initial_, u0_, u1_;  // local grids with their halo rings
  const float* result_ = nullptr;
  std::int64_t sweeps_ = 0;
  double residual_ = -1;
  double exchange_s_ = -1;   // the replayed exchange, seconds each
  double run_s_ = 0;         // the last run's own time, for the exchange's share
  std::vector<float> full_;  // rank 0: the gathered grid

 private:
  double reduce_change(float change) const;
  void* cart_ = nullptr;  // the Cartesian communicator (MPI_Comm), when several ranks
  std::vector<float> faces_out_, faces_in_;  // exchange_host's packed edges
};

template <typename Exchange, typename Sweep>
void MpiJacobiInstance::iterate(float* u0, float* u1, Exchange&& exchange, Sweep&& sweep) {
  const auto start = std::chrono::steady_clock::now();
  sweeps_ = 0;
  residual_ = -1;
  for (std::int64_t s = 1; s <= p_.iters; ++s) {
    {
      profile::Region region("exchange");
      exchange(u0);
    }
    const bool check = p_.check_after(s);
    float change = 0;
    {
      profile::Region region(check ? "sweep+check" : "sweep");
      change = sweep(u0, u1, check);
    }
    std::swap(u0, u1);
    sweeps_ = s;
    if (check) {
      residual_ = reduce_change(change);
      if (residual_ < p_.tol) break;
    }
  }
  result_ = u0;
  run_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

template <typename Exchange>
void MpiJacobiInstance::time_exchange(Exchange&& exchange, float* grid) {
  exchange_s_ = mpi::time_exchange([&] { exchange(grid); });
}

}  // namespace acclab::jacobi2d
