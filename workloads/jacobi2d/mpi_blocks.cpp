#include "workloads/jacobi2d/mpi_blocks.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/compare.hpp"
#include "core/error.hpp"

namespace acclab::jacobi2d {
namespace {

MPI_Comm comm_of(void* cart) { return *static_cast<MPI_Comm*>(cart); }
int or_null(int rank) { return rank < 0 ? MPI_PROC_NULL : rank; }

}  // namespace

std::int64_t Block::halo_floats() const {
  return (north >= 0 ? cols : 0) + (south >= 0 ? cols : 0) + (west >= 0 ? rows : 0) +
         (east >= 0 ? rows : 0);
}

std::array<int, 2> process_grid(const Problem& p, const std::string& proc_grid, int ranks) {
  std::array<int, 2> dims{0, 0};
  if (proc_grid.empty()) {
    if (ranks > 1) {
      MPI_Dims_create(ranks, 2, dims.data());
    } else {
      dims = {1, 1};
    }
  } else {
    dims = mpi::parse_process_grid<2>(proc_grid, ranks, "PxQ with P * Q");
  }
  if (dims[0] > p.rows - 2 || dims[1] > p.cols - 2) {
    throw UsageError(mpi::too_many_ranks(
        proc_grid, ranks, fmt::format("{}x{}", dims[0], dims[1]),
        fmt::format("the {} x {} interior has points", p.rows - 2, p.cols - 2)));
  }
  return dims;
}

Block block_of(const Problem& p, std::array<int, 2> dims, int rank) {
  Block b;
  b.dims = dims;
  b.coords = {rank / dims[1], rank % dims[1]};  // row-major, as MPI_Cart_create numbers them
  const auto [row0, rows] = mpi::share(p.rows - 2, dims[0], b.coords[0]);
  const auto [col0, cols] = mpi::share(p.cols - 2, dims[1], b.coords[1]);
  b.row0 = 1 + row0;
  b.rows = rows;
  b.col0 = 1 + col0;
  b.cols = cols;
  auto at = [&](int r, int c) { return r * dims[1] + c; };
  if (b.coords[0] > 0) b.north = at(b.coords[0] - 1, b.coords[1]);
  if (b.coords[0] + 1 < dims[0]) b.south = at(b.coords[0] + 1, b.coords[1]);
  if (b.coords[1] > 0) b.west = at(b.coords[0], b.coords[1] - 1);
  if (b.coords[1] + 1 < dims[1]) b.east = at(b.coords[0], b.coords[1] + 1);
  return b;
}

MpiJacobiInstance::MpiJacobiInstance(const Params& params)
    : p_(problem_of(params)), proc_grid_(p_.proc_grid) {
  b_ = block_of(p_, process_grid(p_, proc_grid_, mpi::size()), mpi::rank());
}

MpiJacobiInstance::~MpiJacobiInstance() {
  if (cart_) {
    MPI_Comm_free(static_cast<MPI_Comm*>(cart_));
    delete static_cast<MPI_Comm*>(cart_);
  }
}

void MpiJacobiInstance::setup() {
  if (mpi::size() > 1 && !cart_) {
    // Ranks keep their numbers (no reordering): block_of's neighbours are world ranks.
    auto* cart = new MPI_Comm;
    const int periods[2] = {0, 0};
    MPI_Cart_create(MPI_COMM_WORLD, 2, b_.dims.data(), periods, 0, cart);
    cart_ = cart;
  }
  // The block and its ring cut out of the initial grid, row by row (the grid is built whole
  // once per rank: its boundary values are the seed's formula, not worth a second copy).
  const std::vector<float> whole = initial_grid(p_);
  initial_.assign(static_cast<std::size_t>(b_.points()), 0.0f);
  for (std::int64_t i = 0; i < b_.rows + 2; ++i) {
    std::memcpy(&initial_[i * b_.ld()], &whole[(b_.row0 - 1 + i) * p_.cols + b_.col0 - 1],
                sizeof(float) * b_.ld());
  }
  u0_ = initial_;
  u1_ = initial_;
  faces_out_.assign(static_cast<std::size_t>(face_floats()), 0.0f);
  faces_in_.assign(static_cast<std::size_t>(face_floats()), 0.0f);
}

void MpiJacobiInstance::reset() {
  std::memcpy(u0_.data(), initial_.data(), initial_.size() * sizeof(float));
  std::memcpy(u1_.data(), initial_.data(), initial_.size() * sizeof(float));
}

double MpiJacobiInstance::reduce_change(float change) const {
  return mpi::max_over_ranks(static_cast<double>(change));
}

void MpiJacobiInstance::exchange_faces(const float* out, float* in) {
  if (!cart_) return;
  const MPI_Comm comm = comm_of(cart_);
  const int cols = static_cast<int>(b_.cols), rows = static_cast<int>(b_.rows);
  const std::int64_t north = 0, south = cols, west = 2 * b_.cols, east = west + rows;
  // Each call pairs a send across one side with the receive from the opposite side, so that
  // every rank takes part in all four in the same order.
  MPI_Sendrecv(out + north, cols, MPI_FLOAT, or_null(b_.north), 0, in + south, cols, MPI_FLOAT,
               or_null(b_.south), 0, comm, MPI_STATUS_IGNORE);
  MPI_Sendrecv(out + south, cols, MPI_FLOAT, or_null(b_.south), 1, in + north, cols, MPI_FLOAT,
               or_null(b_.north), 1, comm, MPI_STATUS_IGNORE);
  MPI_Sendrecv(out + west, rows, MPI_FLOAT, or_null(b_.west), 2, in + east, rows, MPI_FLOAT,
               or_null(b_.east), 2, comm, MPI_STATUS_IGNORE);
  MPI_Sendrecv(out + east, rows, MPI_FLOAT, or_null(b_.east), 3, in + west, rows, MPI_FLOAT,
               or_null(b_.west), 3, comm, MPI_STATUS_IGNORE);
}

void MpiJacobiInstance::exchange_host(float* grid) {
  if (!cart_) return;
  const std::int64_t ld = b_.ld(), rows = b_.rows, cols = b_.cols;
  float* out = faces_out_.data();
  float* in = faces_in_.data();
  for (std::int64_t j = 0; j < cols; ++j) {
    out[j] = grid[ld + 1 + j];
    out[cols + j] = grid[rows * ld + 1 + j];
  }
  for (std::int64_t i = 0; i < rows; ++i) {
    out[2 * cols + i] = grid[(i + 1) * ld + 1];
    out[2 * cols + rows + i] = grid[(i + 1) * ld + cols];
  }
  exchange_faces(out, in);
  if (b_.north >= 0) std::memcpy(grid + 1, in, sizeof(float) * cols);
  if (b_.south >= 0) std::memcpy(grid + (rows + 1) * ld + 1, in + cols, sizeof(float) * cols);
  for (std::int64_t i = 0; i < rows; ++i) {
    if (b_.west >= 0) grid[(i + 1) * ld] = in[2 * cols + i];
    if (b_.east >= 0) grid[(i + 1) * ld + cols + 1] = in[2 * cols + rows + i];
  }
}

void MpiJacobiInstance::gather() {
  // Each block's interior, packed, to rank 0, which lays it into the whole grid.
  std::vector<float> packed(static_cast<std::size_t>(b_.rows * b_.cols));
  for (std::int64_t i = 0; i < b_.rows; ++i) {
    std::memcpy(&packed[i * b_.cols], result_ + (i + 1) * b_.ld() + 1, sizeof(float) * b_.cols);
  }
  if (!mpi::is_root()) {
    MPI_Send(packed.data(), static_cast<int>(packed.size()), MPI_FLOAT, 0, 9, comm_of(cart_));
    return;
  }
  full_ = initial_grid(p_);
  std::vector<float> incoming;
  for (int r = 0; r < mpi::size(); ++r) {
    const Block other = block_of(p_, b_.dims, r);
    const float* from = packed.data();
    if (r != 0) {
      incoming.resize(static_cast<std::size_t>(other.rows * other.cols));
      MPI_Recv(incoming.data(), static_cast<int>(incoming.size()), MPI_FLOAT, r, 9, comm_of(cart_),
               MPI_STATUS_IGNORE);
      from = incoming.data();
    }
    for (std::int64_t i = 0; i < other.rows; ++i) {
      std::memcpy(&full_[(other.row0 + i) * p_.cols + other.col0], from + i * other.cols,
                  sizeof(float) * other.cols);
    }
  }
}

Verification MpiJacobiInstance::verify() {
  Verification v;
  if (mpi::is_root()) {
    v = verify_result(p_, full_.empty() ? nullptr : full_.data(), sweeps_, residual_);
    if (!full_.empty()) {
      const std::int64_t sweeps = p_.tol_mode ? sweeps_ : p_.iters;
      mpi::compare_with_serial(v, full_.data(), reference_after(p_, sweeps).data(), p_.points(),
                               bitwise_, "points", "grid");
    }
  }
  return mpi::shared_verdict(v);
}

nlohmann::json MpiJacobiInstance::distribution() {
  return mpi::halo_distribution({fmt::format("{}x{}", b_.dims[0], b_.dims[1]), halo_path_,
                                 b_.halo_floats(), exchange_s_, sweeps_, run_s_});
}

void MpiJacobiInstance::corrupt_result() {
  if (full_.empty()) return;
  full_[(p_.rows / 2) * p_.cols + p_.cols / 2] += 1.0f;
}

}  // namespace acclab::jacobi2d
