#include "workloads/diffusion3d/mpi_blocks.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <cstring>

#include "core/error.hpp"

namespace acclab::diffusion3d {
namespace {

MPI_Comm comm_of(void* cart) { return *static_cast<MPI_Comm*>(cart); }
int or_null(int rank) { return rank < 0 ? MPI_PROC_NULL : rank; }

}  // namespace

std::array<Face, 6> Block::faces() const {
  const std::array<std::int64_t, 3> stride{1, sy(), sz()};
  std::array<Face, 6> out;
  std::int64_t offset = 0;
  for (int d = 0; d < 3; ++d) {
    // The face's two directions, in x, y, z order.
    const int a = d == 0 ? 1 : 0, b = d == 2 ? 1 : 2;
    for (int side = 0; side < 2; ++side) {
      Face& f = out[2 * d + side];
      f.offset = offset;
      f.count = size[a] * size[b];
      f.na = size[a];
      f.sa = stride[a];
      f.sb = stride[b];
      std::array<std::int64_t, 3> cell{0, 0, 0}, halo{0, 0, 0};
      cell[d] = side == 0 ? 0 : size[d] - 1;
      halo[d] = side == 0 ? -1 : size[d];
      f.cell = at(cell[0], cell[1], cell[2]);
      f.halo = at(halo[0], halo[1], halo[2]);
      offset += f.count;
    }
  }
  return out;
}

std::int64_t Block::face_floats() const {
  const auto f = faces();
  return f[5].offset + f[5].count;
}

std::int64_t Block::halo_floats() const {
  std::int64_t n = 0;
  const auto f = faces();
  for (int s = 0; s < 6; ++s) {
    if (neighbour[s] >= 0) n += f[s].count;
  }
  return n;
}

std::array<int, 3> process_grid(const Problem& p, const std::string& proc_grid, int ranks) {
  std::array<int, 3> dims{1, 1, 1};
  if (proc_grid.empty()) {
    if (ranks > 1) {
      int made[3] = {0, 0, 0};
      MPI_Dims_create(ranks, 3, made);
      // MPI_Dims_create's counts are non-increasing: the most ranks go along z.
      dims = {made[2], made[1], made[0]};
    }
  } else {
    dims = mpi::parse_process_grid<3>(proc_grid, ranks,
                                      "PxQxR (ranks along x, y, z) with P * Q * R");
  }
  if (dims[0] > p.nx || dims[1] > p.ny || dims[2] > p.nz) {
    throw UsageError(
        mpi::too_many_ranks(proc_grid, ranks, fmt::format("{}x{}x{}", dims[0], dims[1], dims[2]),
                            fmt::format("the {} x {} x {} grid has cells", p.nx, p.ny, p.nz)));
  }
  return dims;
}

Block block_of(const Problem& p, std::array<int, 3> dims, int rank) {
  Block b;
  b.dims = dims;
  // x fastest, as MPI_Cart_create numbers ranks over dims given as {z, y, x}.
  b.coords = {rank % dims[0], (rank / dims[0]) % dims[1], rank / (dims[0] * dims[1])};
  const std::array<std::int64_t, 3> n{p.nx, p.ny, p.nz};
  for (int d = 0; d < 3; ++d) {
    const auto [first, count] = mpi::share(n[d], dims[d], b.coords[d]);
    b.origin[d] = first;
    b.size[d] = count;
  }
  auto rank_at = [&](std::array<int, 3> c) { return (c[2] * dims[1] + c[1]) * dims[0] + c[0]; };
  for (int d = 0; d < 3; ++d) {
    std::array<int, 3> c = b.coords;
    if (b.coords[d] > 0) {
      c[d] = b.coords[d] - 1;
      b.neighbour[2 * d] = rank_at(c);
    }
    if (b.coords[d] + 1 < dims[d]) {
      c[d] = b.coords[d] + 1;
      b.neighbour[2 * d + 1] = rank_at(c);
    }
  }
  return b;
}

void step_block(const Problem& p, const Block& b, const float* f, float* fn, std::int64_t k_begin,
                std::int64_t k_end) {
  const std::int64_t bx = b.size[0], by = b.size[1], bz = b.size[2], sy = b.sy(), sz = b.sz();
  // A wall's side has no neighbour rank: there the original takes the cell itself.
  const bool wxm = b.neighbour[0] < 0, wxp = b.neighbour[1] < 0, wym = b.neighbour[2] < 0,
             wyp = b.neighbour[3] < 0, wzm = b.neighbour[4] < 0, wzp = b.neighbour[5] < 0;
  for (std::int64_t k = k_begin; k < k_end; ++k) {
    for (std::int64_t j = 0; j < by; ++j) {
      for (std::int64_t i = 0; i < bx; ++i) {
        const std::int64_t ix = b.at(i, j, k);
        const std::int64_t ip = i == bx - 1 && wxp ? ix : ix + 1;
        const std::int64_t im = i == 0 && wxm ? ix : ix - 1;
        const std::int64_t jp = j == by - 1 && wyp ? ix : ix + sy;
        const std::int64_t jm = j == 0 && wym ? ix : ix - sy;
        const std::int64_t kp = k == bz - 1 && wzp ? ix : ix + sz;
        const std::int64_t km = k == 0 && wzm ? ix : ix - sz;
        fn[ix] = p.cc * f[ix] + p.ce * f[ip] + p.cw * f[im] + p.cn * f[jp] + p.cs * f[jm] +
                 p.ct * f[kp] + p.cb * f[km];
      }
    }
  }
}

MpiDiffusionInstance::MpiDiffusionInstance(const Params& params)
    : DiffusionInstance(params), proc_grid_(p_.proc_grid) {
  b_ = block_of(p_, process_grid(p_, proc_grid_, mpi::size()), mpi::rank());
  faces_ = b_.faces();
}

MpiDiffusionInstance::~MpiDiffusionInstance() {
  if (cart_) {
    MPI_Comm_free(static_cast<MPI_Comm*>(cart_));
    delete static_cast<MPI_Comm*>(cart_);
  }
}

void MpiDiffusionInstance::setup() {
  if (mpi::size() > 1 && !cart_) {
    // Ranks keep their numbers (no reordering): block_of's neighbours are world ranks.
    auto* cart = new MPI_Comm;
    const int dims[3] = {b_.dims[2], b_.dims[1], b_.dims[0]};
    const int periods[3] = {0, 0, 0};
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, cart);
    cart_ = cart;
  }
  // The box's initial cells (no shell), computed here rather than cut out of the whole field:
  // a rank holds no more than its box, and the host memory estimate counts on it.
  initial_.assign(static_cast<std::size_t>(b_.cells()), 0.0f);
  std::int64_t m = 0;
  for (std::int64_t k = 0; k < b_.size[2]; ++k) {
    for (std::int64_t j = 0; j < b_.size[1]; ++j) {
      for (std::int64_t i = 0; i < b_.size[0]; ++i) {
        initial_[m++] = initial_value(p_, b_.origin[0] + i, b_.origin[1] + j, b_.origin[2] + k);
      }
    }
  }
  // The shell starts at 0: it is filled by the exchange before it is read, and never read at a
  // wall.
  f_.assign(static_cast<std::size_t>(b_.points()), 0.0f);
  fn_.assign(static_cast<std::size_t>(b_.points()), 0.0f);
  MpiDiffusionInstance::reset();
  // Packed faces only where there is something to exchange.
  const std::size_t faces = b_.halo_floats() > 0 ? std::size_t(b_.face_floats()) : 0;
  faces_out_.assign(faces, 0.0f);
  faces_in_.assign(faces, 0.0f);
}

void MpiDiffusionInstance::reset() {
  const std::int64_t bx = b_.size[0];
  for (std::int64_t k = 0; k < b_.size[2]; ++k) {
    for (std::int64_t j = 0; j < b_.size[1]; ++j) {
      const float* row = &initial_[(k * b_.size[1] + j) * bx];
      std::memcpy(&f_[b_.at(0, j, k)], row, sizeof(float) * bx);
      std::memcpy(&fn_[b_.at(0, j, k)], row, sizeof(float) * bx);
    }
  }
}

void MpiDiffusionInstance::drop_box_fields() {
  std::vector<float>().swap(initial_);
  std::vector<float>().swap(f_);
  std::vector<float>().swap(fn_);
  std::vector<float>().swap(faces_out_);
  std::vector<float>().swap(faces_in_);
  block_result_ = nullptr;
}

void MpiDiffusionInstance::exchange_faces(const float* out, float* in) {
  if (!cart_) return;
  const MPI_Comm comm = comm_of(cart_);
  for (int d = 0; d < 3; ++d) {
    const Face &lo = faces_[2 * d], &hi = faces_[2 * d + 1];
    const int count = static_cast<int>(lo.count);  // both faces of a direction alike
    const int down = or_null(b_.neighbour[2 * d]), up = or_null(b_.neighbour[2 * d + 1]);
    // Each call pairs a send across one side with the receive from the opposite side, so that
    // every rank takes part in all six in the same order.
    MPI_Sendrecv(out + lo.offset, count, MPI_FLOAT, down, 2 * d, in + hi.offset, count, MPI_FLOAT,
                 up, 2 * d, comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(out + hi.offset, count, MPI_FLOAT, up, 2 * d + 1, in + lo.offset, count, MPI_FLOAT,
                 down, 2 * d + 1, comm, MPI_STATUS_IGNORE);
  }
}

void MpiDiffusionInstance::exchange_host(float* field) {
  if (!cart_) return;
  float* out = faces_out_.data();
  float* in = faces_in_.data();
  for (int s = 0; s < 6; ++s) {
    if (b_.neighbour[s] < 0) continue;
    const Face& f = faces_[s];
    for (std::int64_t t = 0; t < f.count; ++t) {
      out[f.offset + t] = field[f.cell + (t % f.na) * f.sa + (t / f.na) * f.sb];
    }
  }
  exchange_faces(out, in);
  for (int s = 0; s < 6; ++s) {
    if (b_.neighbour[s] < 0) continue;
    const Face& f = faces_[s];
    for (std::int64_t t = 0; t < f.count; ++t) {
      field[f.halo + (t % f.na) * f.sa + (t / f.na) * f.sb] = in[f.offset + t];
    }
  }
}

void MpiDiffusionInstance::gather() {
  // Each box's cells row by row into rank 0's whole field: rank 0's own straight from its
  // field, the others' packed and sent.
  const auto rows_of = [&](const Block& box, auto&& row) {
    for (std::int64_t k = 0; k < box.size[2]; ++k) {
      for (std::int64_t j = 0; j < box.size[1]; ++j) row(j, k);
    }
  };
  if (!mpi::is_root()) {
    std::vector<float> packed(static_cast<std::size_t>(b_.cells()));
    float* to = packed.data();
    rows_of(b_, [&](std::int64_t j, std::int64_t k) {
      std::memcpy(to, block_result_ + b_.at(0, j, k), sizeof(float) * b_.size[0]);
      to += b_.size[0];
    });
    MPI_Send(packed.data(), static_cast<int>(packed.size()), MPI_FLOAT, 0, 9, comm_of(cart_));
    result_ = nullptr;
    return;
  }
  full_.assign(static_cast<std::size_t>(p_.points()), 0.0f);
  const auto cell = [&](const Block& box, std::int64_t j, std::int64_t k) {
    return ((box.origin[2] + k) * p_.ny + box.origin[1] + j) * p_.nx + box.origin[0];
  };
  rows_of(b_, [&](std::int64_t j, std::int64_t k) {
    std::memcpy(&full_[cell(b_, j, k)], block_result_ + b_.at(0, j, k), sizeof(float) * b_.size[0]);
  });
  std::vector<float> incoming;
  for (int r = 1; r < mpi::size(); ++r) {
    const Block other = block_of(p_, b_.dims, r);
    incoming.resize(static_cast<std::size_t>(other.cells()));
    MPI_Recv(incoming.data(), static_cast<int>(incoming.size()), MPI_FLOAT, r, 9, comm_of(cart_),
             MPI_STATUS_IGNORE);
    const float* from = incoming.data();
    rows_of(other, [&](std::int64_t j, std::int64_t k) {
      std::memcpy(&full_[cell(other, j, k)], from, sizeof(float) * other.size[0]);
      from += other.size[0];
    });
  }
  result_ = full_.data();
}

Verification MpiDiffusionInstance::verify() {
  Verification v;
  if (mpi::is_root()) {
    v = DiffusionInstance::verify();  // the workload's own bound, on the gathered field
    if (result_) {
      mpi::compare_with_serial(v, result_, reference_after(p_, p_.steps).data(), p_.points(),
                               bitwise_, "cells", "field");
    }
  }
  return mpi::shared_verdict(v);
}

nlohmann::json MpiDiffusionInstance::distribution() {
  return mpi::halo_distribution({fmt::format("{}x{}x{}", b_.dims[0], b_.dims[1], b_.dims[2]),
                                 halo_path_, b_.halo_floats(), exchange_s_, steps_, run_s_});
}

}  // namespace acclab::diffusion3d
