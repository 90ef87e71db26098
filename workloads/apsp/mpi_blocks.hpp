// apsp across MPI ranks: blocked Floyd-Warshall on a Pr x Pc process grid. The matrix is cut
// into b x b blocks (b = the block parameter) dealt 2D block-cyclically: block (I, J) lives on
// process (I mod Pr, J mod Pc), and each rank keeps its blocks packed in one local array (its
// local rows and columns in global order). For each round K (pivot rows and columns
// [K b, K b + m), m = b but for the last):
//   A  the owner of the diagonal block runs its m steps on it, recording H[s][r] = d[kb+r][kb+s]
//      and S[s][c] = d[kb+s][kb+c] as they were before step kb+s, and broadcasts them along its
//      process row (for B) and column (for C);
//   B  the ranks of the pivot process row step their blocks of the pivot rows with A's H,
//      recording the row panel S[s][j] (pivot row kb+s before its step) for their columns;
//   C  the ranks of the pivot process column step their blocks of the pivot columns with A's S,
//      recording the column panel H[s][i] (d[i][kb+s] before that step) for their rows;
//   the row panel goes down every process column and the column panel along every process row
//   (MPI_Bcast / MPI_Ibcast on the row and column communicators);
//   D  every rank relaxes its other elements with H[s][i] + S[s][j], s in order.
// H and S are the operands of serial step kb+s, so the gathered result is bitwise the serial
// loop's (apsp.hpp), as multidevice's is. With paths the successors stay beside the distances:
// the column panel carries NH[s][i] = next[i][kb+s] (and A's NH for B), nothing else crosses.
// Lookahead: once round K's panels are in, each rank relaxes the blocks of round K+1's pivot
// rows and columns first, runs round K+1's A, B and C and starts its panel broadcasts, and only
// then relaxes the rest of round K.
//
// The steps (mpi_host, mpi_acc, mpi_cuda) differ in where the blocks live and how the phases
// run; this is what they share: the distribution, the rounds and their broadcasts, the gathered
// verification and the report.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/mpi_env.hpp"
#include "core/registry.hpp"
#include "workloads/apsp/apsp.hpp"

namespace acclab::apsp {

// The process grid and one rank's share of the block-cyclic matrix.
struct Grid {
  std::array<int, 2> dims{1, 1};    // process rows (Pr), process columns (Pc)
  std::array<int, 2> coords{0, 0};  // this rank's process row and column
  int n = 0, block = 64, blocks = 0;
  int rows = 0, cols = 0;  // local rows and columns

  // The global row (column) of a local one, and the local row (column) of a global one, -1
  // where this rank holds none of it.
  int global_row(int local) const { return global_of(local, dims[0], coords[0]); }
  int global_col(int local) const { return global_of(local, dims[1], coords[1]); }
  int local_row(int global) const { return local_of(global, dims[0], coords[0]); }
  int local_col(int global) const { return local_of(global, dims[1], coords[1]); }

 private:
  int global_of(int local, int parts, int index) const {
    return ((local / block) * parts + index) * block + local % block;
  }
  int local_of(int global, int parts, int index) const {
    const int b = global / block;
    return b % parts == index ? (b / parts) * block + global % block : -1;
  }
};

// The process grid: `proc_grid` ("PrxPc") when set, else MPI_Dims_create's for `ranks`. Throws
// UsageError naming --set proc_grid when it does not multiply to the ranks, or when a process
// row or column would hold no block.
std::array<int, 2> process_grid(const Problem& p, const std::string& proc_grid, int ranks);
// The refusal process_grid throws for `dims`, the grid of `ranks` (`proc_grid` as the user set
// it, "" for MPI_Dims_create's), or "" where every process row and column holds a block. It
// names only what helps: a smaller block, a squarer --set proc_grid where one fits, fewer ranks.
std::string too_few_blocks(const Problem& p, const std::string& proc_grid, int ranks,
                           std::array<int, 2> dims);
// The same grid before the matrix is known: the ranks' shape alone (UsageError as above when
// `proc_grid` does not multiply to them).
std::array<int, 2> process_grid_dims(const std::string& proc_grid, int ranks);
// Rank `rank`'s share in `dims` (ranks numbered row-major, as MPI_Cart_create numbers them).
Grid grid_of(const Problem& p, std::array<int, 2> dims, int rank);

// The digest's partial sum (apsp.hpp's digest_sum) over the elements a rank holds, `local` its
// blocks (g.rows x g.cols, row-major in local order), of the leading `vertices` x `vertices`
// matrix (g.n for all of it; fewer for a graph run padded to more vertices), each term indexed
// by its global place i vertices + j. The sums of every rank of a grid, added modulo 2^64, are
// the whole matrix's digest_sum: the digest of a result no rank holds whole.
std::uint64_t share_digest_sum(const Grid& g, const float* local, int vertices);

// Local indices [begin, end); empty when begin >= end.
struct Span {
  int begin = 0, end = 0;
  bool empty() const { return begin >= end; }
};

// Round K as one rank sees it.
struct Round {
  int index = 0;            // K
  int begin = 0, size = 0;  // pivot rows and columns [begin, begin + size)
  int prow = 0, pcol = 0;   // the process row (column) holding the pivot rows (columns)
  int slot = 0;             // the panels' slot: rounds alternate between two
  bool in_row = false;      // this rank holds blocks of the pivot rows (it runs B)
  bool in_col = false;      // ... of the pivot columns (it runs C)
  Span rows, cols;          // its local pivot rows and columns (empty when it holds none)
  bool diagonal() const { return in_row && in_col; }  // it runs A
};

class MpiApspInstance : public ApspInstance {
 public:
  explicit MpiApspInstance(const Params& params);
  ~MpiApspInstance() override;

  // The communicators, and this rank's blocks of the initial matrix (and successors). Rank 0
  // also keeps the whole initial matrix, for verify().
  void setup() override;
  void reset() override;
  // The rounds (the step's phases, the broadcasts between them).
  void run() override;
  // The blocks back from the device, then gathered into rank 0's d_ (and next_).
  void finish() override;
  // Rank 0 checks the gathered matrix as every apsp step's is checked; every rank returns its
  // verdict.
  Verification verify() override;
  nlohmann::json distribution() override;
  void corrupt_result() override;

  // For acclab apsp GRAPH (mpi_solve.hpp), before setup(): the result stays spread over the
  // ranks. No rank then holds the whole matrix: rank 0 keeps no initial matrix, finish() brings
  // the blocks back to the host arrays without gathering them, and verify() is not for it.
  void keep_result_on_ranks() { gather_result_ = false; }
  const Grid& grid() const { return g_; }
  // This rank's blocks (g_.rows x g_.cols, row-major in local order) after finish(), and with
  // paths their successors (global vertex numbers).
  const std::vector<float>& local_result() const { return local_; }
  const std::vector<std::int32_t>& local_successors() const { return local_next_; }
  // The host memory this rank's share takes once set up: its blocks and their initial state,
  // two slots of each panel and the diagonal, and with paths the successors beside them (the
  // graph's edges aside).
  double share_bytes() const;
  // The device memory a GPU step's share takes: its blocks, two slots of each panel and the
  // diagonal's operands, and with paths the successors beside them.
  double device_share_bytes() const;
  // Why this rank's share (and those of the ranks on its GPU, taken as its own: `gpus` GPUs
  // dealt by local rank, this rank on `device`) does not fit in `free_bytes` of device memory,
  // or "" when it fits, or when there is no GPU or its free memory is unknown (0).
  std::string device_refusal(std::string_view step, double free_bytes, int gpus, int device) const;
  // Collective: a refusal on any rank (device_refusal) is every rank's, as a UsageError with
  // the figures of the lowest rank that refused.
  void check_device_share(std::string_view step, double free_bytes, int gpus, int device) const;

 protected:
  // The phases on this rank's blocks (host or device arrays: the step's). Each reads and writes
  // the arrays below as their comments say.
  // A: the diagonal block's steps; H and S into diag_ (m x m each), NH into next_diag_.
  virtual void close_diagonal(const Round& r) = 0;
  // B: the pivot rows outside the pivot columns, with diag_'s H (and next_diag_); the row panel
  // into the round's slot of row_panel_.
  virtual void update_row_panel(const Round& r) = 0;
  // C: the pivot columns outside the pivot rows, with diag_'s S; the column panel into the
  // round's slot of column_panel_ (and next_panel_).
  virtual void update_column_panel(const Round& r) = 0;
  // D: local rows `rows` less `skip_rows` by columns `cols` less `skip_cols`, with the round's
  // panels.
  virtual void relax(const Round& r, Span rows, Span skip_rows, Span cols, Span skip_cols) = 0;
  // What MPI moves lives in the host arrays: a step on a device copies them over, to the host
  // before a broadcast and back after one. Called only where there are other ranks (one rank's
  // panels stay where its phases leave them). Nothing for a host step.
  enum class Buffer { diagonal, row_panel, column_panel };
  virtual void to_host(Buffer, const Round&) {}
  virtual void to_device(Buffer, const Round&) {}
  // Waits for the phases asked for so far, where a step queues them and returns at once (its
  // device's queue); run() calls it before its time ends. Nothing where they block.
  virtual void wait_for_phases() {}
  // The local blocks (and successors) from the device to the host arrays, and back.
  virtual void fetch() {}
  virtual void upload() {}

  float* row_slot(int slot) { return row_panel_.data() + std::size_t(slot) * g_.block * g_.cols; }
  float* column_slot(int slot) {
    return column_panel_.data() + std::size_t(slot) * g_.block * g_.rows;
  }
  std::int32_t* next_slot(int slot) {
    return next_panel_.data() + std::size_t(slot) * g_.block * g_.rows;
  }
  Round round_of(int index) const;
  bool lookahead() const;
  // A's results to the pivot row and column, then B and C, then the panels' broadcasts started.
  // Here MPI on the host arrays; a step that moves the panels itself (mpi_cuda through NCCL)
  // overrides these three.
  virtual void prepare(const Round& r);
  // Waits for the round's panels and brings the received ones to the step's arrays.
  virtual void complete(const Round& r);
  // Lets MPI move the started broadcasts on (MPI_Testall), between pieces of D.
  virtual void nudge();

  // The last run's broadcast accounting started afresh (run() calls it).
  void start_accounting();
  // SECONDS of this rank's time in round K's broadcasts and waits for its panels.
  void charge_broadcast(int k, double seconds) {
    broadcast_s_ += seconds;
    round_broadcast_s_[std::size_t(k)] += seconds;
  }

  Grid g_;
  std::string panel_path_ = "host";        // how panels reach MPI: host, host-staged, nccl
  double run_s_ = 0, broadcast_s_ = 0;     // the last run's time, and its time in broadcasts
  std::vector<double> round_broadcast_s_;  // broadcast_s_ by round
  int pending_round_ = 0;                  // the round whose panels' broadcasts are started
  double received_bytes_ = 0;  // bytes this rank received by broadcast in the last run
  // This rank's blocks, g_.rows x g_.cols (row-major, local order), and their initial state;
  // with paths the successors beside them (global vertex numbers; their initial state is read
  // off the initial blocks at each reset, so that a rank holds one n^2 / ranks of them).
  std::vector<float> local_, local_initial_;
  std::vector<std::int32_t> local_next_;
  // Panels, two slots each: row panel [slot][s][local column], column panel and its successors
  // [slot][s][local row]; the diagonal's H then S ([s][r], [s][c], m x m each) and NH.
  std::vector<float> row_panel_, column_panel_, diag_;
  std::vector<std::int32_t> next_panel_, next_diag_;

 private:
  struct Comms;
  static constexpr int progress_pieces = 4;
  void gather();
  // local_next_ = the initial successors of local_initial_ (apsp.hpp's rule).
  void initial_local_successors();

  std::string proc_grid_;
  bool gather_result_ = true;     // finish() gathers the matrix on rank 0
  std::unique_ptr<Comms> comms_;  // when several ranks
};

// A step whose phases are templates on the semiring and on paths, as Step's members
// diagonal<max_plus, paths>(r), row_panel, column_panel and tiles (relax's arguments): each
// phase runs the one instance that fits the problem (Step befriends this class).
template <class Step>
class MpiPhasesBySemiring : public MpiApspInstance {
 public:
  using MpiApspInstance::MpiApspInstance;

 protected:
  void close_diagonal(const Round& r) override {
    dispatch([&]<bool max_plus, bool paths>() { self().template diagonal<max_plus, paths>(r); });
  }
  void update_row_panel(const Round& r) override {
    dispatch([&]<bool max_plus, bool paths>() { self().template row_panel<max_plus, paths>(r); });
  }
  void update_column_panel(const Round& r) override {
    dispatch(
        [&]<bool max_plus, bool paths>() { self().template column_panel<max_plus, paths>(r); });
  }
  void relax(const Round& r, Span rows, Span skip_rows, Span cols, Span skip_cols) override {
    if (rows.empty() || cols.empty()) return;
    dispatch([&]<bool max_plus, bool paths>() {
      self().template tiles<max_plus, paths>(r, rows, skip_rows, cols, skip_cols);
    });
  }

 private:
  Step& self() { return static_cast<Step&>(*this); }
  template <class Body>
  void dispatch(Body&& body) {
    const bool max_plus = p_.semiring == Semiring::max_plus;
    if (max_plus && p_.paths) body.template operator()<true, true>();
    if (max_plus && !p_.paths) body.template operator()<true, false>();
    if (!max_plus && p_.paths) body.template operator()<false, true>();
    if (!max_plus && !p_.paths) body.template operator()<false, false>();
  }
};

}  // namespace acclab::apsp
