// Beyond the seed: the fastest directive formulation we found for GCC 12 on an H200. Every one of
// the seed's steps gives each thread one element of C, so each multiply-add loads one element
// of A and one of B: the kernel is bound by load instructions and cache bandwidth, not by the
// FP64 units. Here each vector lane keeps a register block of rows x cols elements of C
// (16 x 4 by default), so one step of k loads 16 elements of A (the same address across the
// gang's lanes: one broadcast) and 4 of B (consecutive across lanes: coalesced) for 64
// multiply-adds. A gang covers `rows` rows and lanes x cols columns; its columns are lane,
// lane + lanes, ... so that each load of B is one contiguous row segment. Gangs are ordered
// with i fastest so that the gangs running at one time share the same columns of B in cache.
// Edges are handled by clamping the loads to the last row/column (no branch in the k loop) and
// guarding the stores. GCC ignores the `cache` directive and has no shared-memory tiling in
// OpenACC; registers are the only reuse a directive can ask for. The block is this step's own
// knob acc_block (declared below); each shape is compiled separately, as GCC needs the block's
// size at compile time to keep it in registers. 16 x 4 is the default because it was the fastest
// block of the sweep in bench/results/h200/matmul/NOTES.md.
#include <algorithm>
#include <string>
#include <vector>

#include "workloads/matmul/matmul.hpp"

namespace acclab::matmul {
namespace {

// The register block of C per lane, rows x cols, in the order of acc_block_names.
enum class AccBlock { b8x4, b8x8, b4x8, b16x4 };
const std::vector<std::string> acc_block_names = {"8x4", "8x8", "4x8", "16x4"};

struct AccTunings {
  std::string block = "16x4";
};

const StepTunings<AccTunings>& acc_tunings() {
  static const StepTunings<AccTunings> tunings = [] {
    StepTunings<AccTunings> t;
    t.text({.key = "acc_block",
            .help = "acc_tuned only: register block of C per vector lane, rows x columns",
            .presets = same_in_all_presets("16x4"),
            .choices = acc_block_names},
           &AccTunings::block);
    return t;
  }();
  return tunings;
}

}  // namespace

TuningSet acc_tuned_tuning_set() { return acc_tunings().set(); }

}  // namespace acclab::matmul

namespace acclab::matmul::acc {
namespace {

constexpr int lanes = 128;  // vector length

// C = A B with a rows x cols register block of C per lane.
template <int rows, int cols>
void multiply_blocked(const Problem& p, const double* a, const double* b, double* c) {
  const int m = p.m, n = p.n, k = p.k, lda = p.lda, ldb = p.ldb, ldc = p.ldc;
  const std::int64_t na = p.a_size(), nb = p.b_size(), nc = p.c_size();
  const int row_blocks = (m + rows - 1) / rows;
  const int col_blocks = (n + lanes * cols - 1) / (lanes * cols);
#pragma acc parallel loop gang collapse(2) vector_length(lanes) \
    copyin(a[0:na], b[0:nb]) copy(c[0:nc])
  for (int jb = 0; jb < col_blocks; ++jb) {
    for (int ib = 0; ib < row_blocks; ++ib) {
#pragma acc loop vector
      for (int lane = 0; lane < lanes; ++lane) {
        int a_row[rows], b_col[cols];
#pragma GCC unroll 16
        for (int r = 0; r < rows; ++r) {
          const int i = ib * rows + r;
          a_row[r] = (i < m ? i : m - 1) * lda;
        }
#pragma GCC unroll 16
        for (int s = 0; s < cols; ++s) {
          const int j = jb * lanes * cols + s * lanes + lane;
          b_col[s] = j < n ? j : n - 1;
        }
        double sum[rows][cols] = {};
        for (int q = 0; q < k; ++q) {
          double bq[cols];
#pragma GCC unroll 16
          for (int s = 0; s < cols; ++s) bq[s] = b[q * ldb + b_col[s]];
#pragma GCC unroll 16
          for (int r = 0; r < rows; ++r) {
            const double aq = a[a_row[r] + q];
#pragma GCC unroll 16
            for (int s = 0; s < cols; ++s) sum[r][s] += aq * bq[s];
          }
        }
#pragma GCC unroll 16
        for (int r = 0; r < rows; ++r) {
          const int i = ib * rows + r;
#pragma GCC unroll 16
          for (int s = 0; s < cols; ++s) {
            const int j = jb * lanes * cols + s * lanes + lane;
            if (i < m && j < n) c[i * ldc + j] = sum[r][s];
          }
        }
      }
    }
  }
}

void multiply_tuned(AccBlock block, const Problem& p, const double* a, const double* b, double* c) {
  switch (block) {
    case AccBlock::b8x4: multiply_blocked<8, 4>(p, a, b, c); break;
    case AccBlock::b8x8: multiply_blocked<8, 8>(p, a, b, c); break;
    case AccBlock::b4x8: multiply_blocked<4, 8>(p, a, b, c); break;
    case AccBlock::b16x4: multiply_blocked<16, 4>(p, a, b, c); break;
  }
}

}  // namespace
}  // namespace acclab::matmul::acc

namespace acclab::matmul {

std::unique_ptr<Instance> make_acc_tuned(const Params& params) {
  // acc_block's choices are the names, so the block is one of them.
  const std::string name = acc_tunings().read(params).block;
  const auto block = static_cast<AccBlock>(
      std::find(acc_block_names.begin(), acc_block_names.end(), name) - acc_block_names.begin());
  return make_acc(params, [block](const Problem& p, const double* a, const double* b, double* c) {
    acc::multiply_tuned(block, p, a, b, c);
  });
}

}  // namespace acclab::matmul
