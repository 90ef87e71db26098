// --out of acclab apsp GRAPH with a distributed step: the matrix written by the ranks that hold
// it, byte for byte the file io::write_dense_matrix writes in one process (the layout and the
// CSV form are io/dense_matrix.hpp's), whole or not at all: into rank 0's temporary file
// (AtomicFile), renamed over the target once every rank has written its part.
#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <memory>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/mpi_env.hpp"
#include "workloads/apsp/mpi_blocks.hpp"
#include "workloads/apsp/mpi_solve.hpp"

namespace acclab::apsp {
namespace {

constexpr int block_row_tag = 31;

// io/dense_matrix.hpp's header: magic, version, rows, cols, little-endian.
std::array<unsigned char, io::kDenseHeaderBytes> dense_header(std::int64_t n) {
  std::array<unsigned char, io::kDenseHeaderBytes> header{};
  std::memcpy(header.data(), io::kDenseMagic.data(), io::kDenseMagic.size());
  const std::uint64_t fields[3] = {io::kDenseVersion, std::uint64_t(n), std::uint64_t(n)};
  for (int f = 0; f < 3; ++f) {
    for (int b = 0; b < 8; ++b) header[8 + 8 * f + b] = (unsigned char)(fields[f] >> (8 * b));
  }
  return header;
}

std::string mpi_reason(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, std::size_t(length));
}

// Rank 0's temporary file, opened before any rank writes: a failure there is every rank's.
std::unique_ptr<AtomicFile> open_on_rank_0(const std::string& path, const std::string& option) {
  std::unique_ptr<AtomicFile> file;
  refuse_on_every_rank([&] {
    if (mpi::is_root()) file = std::make_unique<AtomicFile>(path, option);
  });
  return file;
}

// Rank 0 renames its temporary over the target once every rank's part is in (`failure`: a
// rank's own fault, refused on every rank, the temporary then removed).
void commit_on_rank_0(const std::unique_ptr<AtomicFile>& file, const std::string& failure) {
  refuse_on_every_rank([&] {
    if (!failure.empty()) throw UsageError(failure);
  });
  refuse_on_every_rank([&] {
    if (file) file->commit();
  });
}

class SpreadMatrix : public SpreadResult {
 public:
  SpreadMatrix(const Problem& p, std::int64_t vertices, const MpiApspInstance& blocks)
      : p_(p), n_(vertices), blocks_(blocks) {}

  void write(const std::string& path, io::DenseFormat format,
             const std::string& option) const override {
    const std::vector<float>& local = blocks_.local_result();
    if (n_ != p_.n) {
      // A one-vertex graph ran as two: its one distance, d[0][0], is in rank 0's first block.
      refuse_on_every_rank([&] {
        if (mpi::is_root()) {
          io::write_dense_matrix(path, {local.data(), 1}, 1, 1, format, option);
        }
      });
    } else if (format == io::DenseFormat::csv) {
      write_gathered(open_on_rank_0(path, option), format);
    } else if (mpi::initialised()) {
      std::unique_ptr<AtomicFile> file = open_on_rank_0(path, option);
      // A device, a FIFO or stdout takes bytes in order, never MPI-IO's writes at offsets.
      const bool direct = mpi::broadcast(
          std::string(file && file->kind() == OutputKind::direct ? "direct" : "")) == "direct";
      if (direct) {
        write_gathered(std::move(file), format);
      } else {
        write_binary(std::move(file), path, option);
      }
    } else {
      // One process without MPI: its one block-cyclic share is the matrix in row-major order.
      io::write_dense_matrix(path, local, n_, n_, format, option);
    }
  }

  std::string summary() const override {
    const Grid& g = blocks_.grid();
    return fmt::format(
        "across {} MPI rank{}: process grid {}x{}, blocks of {} vertices, each rank "
        "holding its own",
        mpi::size(), mpi::size() == 1 ? "" : "s", g.dims[0], g.dims[1], g.block);
  }

 private:
  // Every rank its blocks at their offsets in one collective write, through a view of the file
  // that holds exactly the rank's elements of the 2D block-cyclic matrix (MPI_Type_create_darray
  // numbers the process grid row-major, as grid_of does, and lists a rank's elements in file
  // order, which is its local row-major order).
  void write_binary(std::unique_ptr<AtomicFile> file, const std::string& path,
                    const std::string& option) const {
    const std::string temporary = mpi::broadcast(
        file ? std::filesystem::absolute(file->temporary()).string() : std::string());
    const Grid& g = blocks_.grid();
    const std::vector<float>& local = blocks_.local_result();
    std::vector<float> little_endian;
    const float* values = local.data();
    if constexpr (std::endian::native != std::endian::little) {
      for (float x : local) {
        little_endian.push_back(
            std::bit_cast<float>(__builtin_bswap32(std::bit_cast<std::uint32_t>(x))));
      }
      values = little_endian.data();
    }
    std::string failure;
    auto failed = [&](int code) {
      if (code != MPI_SUCCESS && failure.empty()) {
        failure = fmt::format("{}{}: cannot write ({})", option.empty() ? "" : option + " ", path,
                              mpi_reason(code));
      }
    };
    MPI_File fh;
    const int opened =
        MPI_File_open(MPI_COMM_WORLD, temporary.c_str(), MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    failed(opened);
    if (opened == MPI_SUCCESS) {
      if (mpi::is_root()) {
        const auto header = dense_header(n_);
        failed(MPI_File_write_at(fh, 0, header.data(), int(header.size()), MPI_BYTE,
                                 MPI_STATUS_IGNORE));
      }
      const int sizes[2] = {p_.n, p_.n};
      const int distributions[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_CYCLIC};
      const int blocks[2] = {g.block, g.block};
      MPI_Datatype share;
      MPI_Type_create_darray(mpi::size(), mpi::rank(), 2, sizes, distributions, blocks,
                             g.dims.data(), MPI_ORDER_C, MPI_FLOAT, &share);
      MPI_Type_commit(&share);
      failed(MPI_File_set_view(fh, MPI_Offset(io::kDenseHeaderBytes), MPI_FLOAT, share, "native",
                               MPI_INFO_NULL));
      // A local row as one element: the rank's rows x columns may pass MPI's int counts.
      MPI_Datatype row;
      MPI_Type_contiguous(g.cols, MPI_FLOAT, &row);
      MPI_Type_commit(&row);
      failed(MPI_File_write_all(fh, values, g.rows, row, MPI_STATUS_IGNORE));
      MPI_Type_free(&row);
      MPI_Type_free(&share);
      failed(MPI_File_close(&fh));
    }
    commit_on_rank_0(file, failure);
  }

  // Rank 0 gathers block row I from the ranks of process row I mod Pr (each sends its m rows
  // of it, contiguous in its local array), formats its rows and appends them: it holds one
  // block row of the matrix at a time. The CSV form, or the binary one for an output that
  // must be written in order.
  void write_gathered(std::unique_ptr<AtomicFile> file, io::DenseFormat format) const {
    const bool binary = format == io::DenseFormat::binary;
    const Grid& g = blocks_.grid();
    const std::vector<float>& local = blocks_.local_result();
    std::string failure;
    std::vector<float> block_row, incoming;
    if (mpi::is_root()) block_row.resize(std::size_t(g.block) * p_.n);
    fmt::memory_buffer text;
    if (binary && mpi::is_root()) {
      const auto header = dense_header(n_);
      try {
        file->write(header.data(), header.size());
      } catch (const UsageError& e) {
        failure = e.what();
      }
    }
    for (int I = 0; I < g.blocks; ++I) {
      const int first = I * g.block, m = std::min(g.block, p_.n - first);
      const int prow = I % g.dims[0];
      const std::size_t local_first = std::size_t(I / g.dims[0]) * g.block * g.cols;
      if (!mpi::is_root()) {
        if (g.coords[0] == prow) {
          MPI_Send(local.data() + local_first, m * g.cols, MPI_FLOAT, 0, block_row_tag,
                   MPI_COMM_WORLD);
        }
        continue;
      }
      for (int pcol = 0; pcol < g.dims[1]; ++pcol) {
        const int rank = prow * g.dims[1] + pcol;
        const Grid from = grid_of(p_, g.dims, rank);
        const float* piece = local.data() + local_first;
        if (rank != 0) {
          incoming.resize(std::size_t(m) * from.cols);
          MPI_Recv(incoming.data(), m * from.cols, MPI_FLOAT, rank, block_row_tag, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
          piece = incoming.data();
        }
        for (int r = 0; r < m; ++r) {
          for (int c = 0; c < from.cols; ++c) {
            block_row[std::size_t(r) * p_.n + from.global_col(c)] =
                piece[std::size_t(r) * from.cols + c];
          }
        }
      }
      if (!failure.empty()) continue;  // still gathering, so that no rank waits on a send
      text.clear();
      for (int r = 0; binary && r < m; ++r) {
        for (int j = 0; j < p_.n; ++j) {
          const std::uint32_t bits =
              std::bit_cast<std::uint32_t>(block_row[std::size_t(r) * p_.n + j]);
          for (int b = 0; b < 4; ++b) text.push_back(char((bits >> (8 * b)) & 0xff));
        }
      }
      for (int r = 0; !binary && r < m; ++r) {
        for (int j = 0; j < p_.n; ++j) {
          // As io's CSV: fmt's shortest form that reads back to the same float, "inf", "-inf".
          if (j > 0) text.push_back(',');
          fmt::format_to(std::back_inserter(text), "{}", block_row[std::size_t(r) * p_.n + j]);
        }
        text.push_back('\n');
      }
      try {
        file->write(text.data(), text.size());
      } catch (const UsageError& e) {
        failure = e.what();
      }
    }
    commit_on_rank_0(file, failure);
  }

  Problem p_;
  std::int64_t n_;
  const MpiApspInstance& blocks_;
};

}  // namespace

std::unique_ptr<SpreadResult> spread_result(const Problem& p, std::int64_t vertices,
                                            const MpiApspInstance& blocks) {
  return std::make_unique<SpreadMatrix>(p, vertices, blocks);
}

}  // namespace acclab::apsp
