// diffusion3d across MPI ranks: the nx x ny x nz cells dealt out in boxes over a 3D Cartesian
// process grid, each rank stepping its box inside a one-cell halo shell that holds its
// neighbours' facing cells, the six faces exchanged before every step. Where the box touches the
// domain's wall the stencil takes the cell itself for the missing neighbour, exactly as the
// original does, so the shell there is never read. The steps (mpi_openmp, mpi_acc_staged,
// mpi_acc_overlap) differ in where the box lives and how the faces move; this is what they
// share: the decomposition, the step loop, the gathered verification and the report.
//
// A stencil update does not depend on the decomposition: each cell's arithmetic is the
// original's, term for term, so on the host the gathered field equals the serial one bit for
// bit, and is checked so.
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
#include "workloads/diffusion3d/diffusion3d.hpp"

namespace acclab::diffusion3d {

// One face of a box, as the exchange moves it: `count` cells, na along its first direction
// (stride sa in the local field) times count / na along its second (stride sb); its first cell
// inside the box at `cell` and the halo cell facing it at `halo`; at `offset` in the packed
// faces.
struct Face {
  std::int64_t offset = 0, count = 0, na = 1, sa = 1, sb = 1, cell = 0, halo = 0;
};

// This rank's box: cells [origin[d], origin[d] + size[d]) along x, y, z (d = 0, 1, 2), stored
// with a one-cell halo shell, x fastest: (size[1] + 2) x (size[2] + 2) rows of sy() floats, each
// row's first box cell `lead` floats in and sy() a multiple of 32, so that every row of box cells
// starts on a 128-byte line as the whole grid's rows do (the CUDA step loads rows as float4: a
// row 16 bytes off its line costs a fifth more L1 wavefronts a warp); the shell cell before it
// and the one after it are the x faces' halo.
struct Block {
  std::array<int, 3> dims{1, 1, 1};    // process grid: ranks along x, y, z
  std::array<int, 3> coords{0, 0, 0};  // this rank's place in it
  std::array<std::int64_t, 3> origin{0, 0, 0}, size{0, 0, 0};
  // Neighbour ranks across the faces x-, x+, y-, y+, z-, z+; -1 at the domain's wall.
  std::array<int, 6> neighbour{-1, -1, -1, -1, -1, -1};

  static constexpr std::int64_t lead = 32;
  std::int64_t sy() const { return (lead + size[0] + 1 + 31) / 32 * 32; }  // from j to j + 1
  std::int64_t sz() const { return sy() * (size[1] + 2); }              // from k to k + 1
  std::int64_t points() const { return sz() * (size[2] + 2); }
  std::int64_t cells() const { return size[0] * size[1] * size[2]; }
  // Local index of box cell (i, j, k), each from -1 (the shell) to size (the shell).
  std::int64_t at(std::int64_t i, std::int64_t j, std::int64_t k) const {
    return (k + 1) * sz() + (j + 1) * sy() + lead + i;
  }
  // The six faces, x-, x+, y-, y+, z-, z+, packed one after the other.
  std::array<Face, 6> faces() const;
  std::int64_t face_floats() const;
  // Floats this rank receives in one exchange (its faces that have a neighbour).
  std::int64_t halo_floats() const;
};

// The process grid: `proc_grid` ("PxQxR": ranks along x, y, z) when set, else MPI_Dims_create's
// for `ranks`, its most ranks along z (whole x-y planes are the cheapest faces). Throws
// UsageError naming --set proc_grid when it does not multiply to the ranks or when a box would
// hold no cell along a side.
std::array<int, 3> process_grid(const Problem& p, const std::string& proc_grid, int ranks);
// Rank `rank`'s box in `dims`: as even as the cells allow (the first boxes along a side one
// cell more when it does not divide).
Block block_of(const Problem& p, std::array<int, 3> dims, int rank);

// One step of box `b` on the host for its planes [k_begin, k_end): the original's expression,
// term for term, a wall's missing neighbour replaced by the cell itself.
void step_block(const Problem& p, const Block& b, const float* f, float* fn, std::int64_t k_begin,
                std::int64_t k_end);

// The shared part of every MPI step. After finish(), rank 0's result_ is the gathered field
// (nullptr on the other ranks): verify() checks it there and every rank returns that verdict.
class MpiDiffusionInstance : public DiffusionInstance {
 public:
  explicit MpiDiffusionInstance(const Params& params);
  ~MpiDiffusionInstance() override;

  // The decomposition and the local fields on the host: initial_ the box's cells, f_ and fn_
  // the box inside its shell.
  void setup() override;
  void reset() override;
  Verification verify() override;
  nlohmann::json distribution() override;

 protected:
  // Runs the steps of one run(): before each, `exchange(f)` fills f's shell with the
  // neighbours' cells; then `step(f, fn)` steps the box. Sets block_result_ and steps_.
  template <typename Exchange, typename Step>
  void iterate_blocks(float* f, float* fn, Exchange&& exchange, Step&& step);

  // Sends each face of `out` (packed) to the neighbour across it and receives that
  // neighbour's facing face into `in`, by MPI_Sendrecv on host memory; the faces at a wall are
  // left as they were. A single process does nothing.
  void exchange_faces(const float* out, float* in);
  // The exchange on host fields: faces packed, exchanged, unpacked into the shell.
  void exchange_host(float* field);
  // Brings every rank's box to rank 0's whole field and points result_ at it (nullptr on the
  // other ranks). Called in finish(), with the box's result in the host field block_result_.
  void gather();
  // Frees the box's host fields once gathered (the last thing finish() does: no run follows),
  // so that rank 0 holds the whole field and the reference verify() builds, no more.
  void drop_box_fields();
  // The exchange alone, replayed after the runs (the way xfer% is measured): seconds an
  // exchange on the slowest rank. `exchange` is the step's own.
  template <typename Exchange>
  void time_exchange(Exchange&& exchange, float* field);
  // The host field not holding the result (for time_exchange to scribble on).
  float* spare_field() { return block_result_ == f_.data() ? fn_.data() : f_.data(); }

  std::string proc_grid_;
  Block b_;
  std::array<Face, 6> faces_{};
  // Whether the gathered field must equal the serial one bit for bit (the steps ran on the
  // host); otherwise it is held to the workload's own bound only.
  bool bitwise_ = true;
  std::string halo_path_ = "host";  // how faces move: host, host-staged
  const float* block_result_ = nullptr;
  double exchange_s_ = -1;   // the replayed exchange, seconds each
  double run_s_ = 0;         // the last run's own time, for the exchange's share
  std::vector<float> full_;  // rank 0: the gathered field

 private:
  void* cart_ = nullptr;  // the Cartesian communicator (MPI_Comm), when several ranks
  std::vector<float> faces_out_, faces_in_;  // exchange_host's packed faces
};

template <typename Exchange, typename Step>
void MpiDiffusionInstance::iterate_blocks(float* f, float* fn, Exchange&& exchange, Step&& step) {
  const auto start = std::chrono::steady_clock::now();
  result_ = nullptr;
  steps_ = 0;
  for (std::int64_t s = 0; s < p_.steps; ++s) {
    {
      profile::Region region("exchange");
      exchange(f);
    }
    {
      profile::Region region("step");
      step(f, fn);
    }
    std::swap(f, fn);
    ++steps_;
  }
  block_result_ = f;
  run_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

template <typename Exchange>
void MpiDiffusionInstance::time_exchange(Exchange&& exchange, float* field) {
  exchange_s_ = mpi::time_exchange([&] { exchange(field); });
}

}  // namespace acclab::diffusion3d
