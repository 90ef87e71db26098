#include "workloads/apsp/mpi_blocks.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>

#include "core/error.hpp"
#include "kit/mpi_steps.hpp"

namespace acclab::apsp {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A rank's blocks to rank 0 (and there from `from`), in pieces: MPI's counts are ints, and a
// rank's rows x columns may pass them.
constexpr std::size_t gather_piece = std::size_t(1) << 30;
template <class T>
void send_pieces(const T* data, std::size_t count, MPI_Datatype type, int tag, MPI_Comm comm) {
  for (std::size_t first = 0; first < count; first += gather_piece) {
    MPI_Send(data + first, int(std::min(gather_piece, count - first)), type, 0, tag, comm);
  }
}
template <class T>
void receive_pieces(T* data, std::size_t count, MPI_Datatype type, int from, int tag,
                    MPI_Comm comm) {
  for (std::size_t first = 0; first < count; first += gather_piece) {
    MPI_Recv(data + first, int(std::min(gather_piece, count - first)), type, from, tag, comm,
             MPI_STATUS_IGNORE);
  }
}

// The rows (or columns) of the `blocks` blocks of an n-row matrix dealt cyclically over `parts`
// that part `index` holds: whole blocks, and the last block's rows where it is this part's.
int share_of(int n, int block, int parts, int index) {
  const int blocks = (n + block - 1) / block;
  const int held = blocks / parts + (index < blocks % parts ? 1 : 0);
  int rows = held * block;
  if (held > 0 && (blocks - 1) % parts == index) rows -= blocks * block - n;
  return rows;
}

// The union of two spans that touch or are empty (a rank's pivot rows of round K and K + 1).
Span joined(Span a, Span b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return {std::min(a.begin, b.begin), std::max(a.end, b.end)};
}

}  // namespace

struct MpiApspInstance::Comms {
  MPI_Comm cart = MPI_COMM_NULL, row = MPI_COMM_NULL, col = MPI_COMM_NULL;
  std::vector<MPI_Request> pending;  // the current round's panel broadcasts
  ~Comms() {
    for (MPI_Comm* c : {&row, &col, &cart}) {
      if (*c != MPI_COMM_NULL) MPI_Comm_free(c);
    }
  }
};

std::array<int, 2> process_grid_dims(const std::string& proc_grid, int ranks) {
  std::array<int, 2> dims{0, 0};
  if (proc_grid.empty()) {
    if (ranks > 1) {
      MPI_Dims_create(ranks, 2, dims.data());
    } else {
      dims = {1, 1};
    }
    return dims;
  }
  return mpi::parse_process_grid<2>(proc_grid, ranks, "PrxPc with Pr * Pc");
}

std::string too_few_blocks(const Problem& p, const std::string& proc_grid, int ranks,
                           std::array<int, 2> dims) {
  const int blocks = (p.n + p.block - 1) / p.block;
  if (dims[0] <= blocks && dims[1] <= blocks) return "";
  const std::string what =
      fmt::format("the {} blocks of {} rows (n = {}, block = {})", blocks, p.block, p.n, p.block);
  std::string message =
      proc_grid.empty()
          ? fmt::format(
                "{} ranks: their process grid {}x{} (MPI_Dims_create's) has more ranks "
                "along a side than {}",
                ranks, dims[0], dims[1], what)
          : fmt::format("--set proc_grid={}: more ranks along a side than {}", proc_grid, what);
  // What helps: the squarest grid of these ranks where it fits (MPI_Dims_create's already is
  // the squarest, so only a grid the user chose can be bettered), a block small enough that
  // the matrix has a block for each rank along the grid's longer side, fewer ranks.
  std::array<int, 2> squarest{ranks, 1};
  for (int a = 1; a <= ranks; ++a) {
    if (ranks % a == 0 && std::max(a, ranks / a) < std::max(squarest[0], squarest[1])) {
      squarest = {a, ranks / a};
    }
  }
  std::vector<std::string> helps;
  const int squarest_side = std::max(squarest[0], squarest[1]);
  if (squarest_side < std::max(dims[0], dims[1]) && squarest_side <= blocks) {
    helps.push_back(fmt::format("--set proc_grid={}x{} fits", squarest[0], squarest[1]));
  }
  const int side = std::max(dims[0], dims[1]);
  if (p.n >= side) {
    // ceil(n / b) >= side exactly when b <= (n - 1) / (side - 1).
    helps.push_back(fmt::format("--set block={} or less gives {} blocks or more",
                                (p.n - 1) / (side - 1), side));
  } else {
    message += fmt::format(" (no block size helps: n = {} is fewer than {} rows)", p.n, side);
  }
  helps.push_back("run fewer ranks");
  return fmt::format("{}; {}", message, fmt::join(helps, ", or "));
}

std::array<int, 2> process_grid(const Problem& p, const std::string& proc_grid, int ranks) {
  const std::array<int, 2> dims = process_grid_dims(proc_grid, ranks);
  if (std::string refusal = too_few_blocks(p, proc_grid, ranks, dims); !refusal.empty()) {
    throw UsageError(std::move(refusal));
  }
  return dims;
}

Grid grid_of(const Problem& p, std::array<int, 2> dims, int rank) {
  Grid g;
  g.dims = dims;
  g.coords = {rank / dims[1], rank % dims[1]};
  g.n = p.n;
  g.block = p.block;
  g.blocks = (p.n + p.block - 1) / p.block;
  g.rows = share_of(p.n, p.block, dims[0], g.coords[0]);
  g.cols = share_of(p.n, p.block, dims[1], g.coords[1]);
  return g;
}

std::uint64_t share_digest_sum(const Grid& g, const float* local, int vertices) {
  std::uint64_t sum = 0;
  for (int r = 0; r < g.rows; ++r) {
    const std::int64_t i = g.global_row(r);
    if (i >= vertices) continue;
    for (int c = 0; c < g.cols; ++c) {
      const int j = g.global_col(c);
      if (j < vertices) sum += digest_term(i * vertices + j, local[std::size_t(r) * g.cols + c]);
    }
  }
  return sum;
}

MpiApspInstance::MpiApspInstance(const Params& params)
    : ApspInstance(params), proc_grid_(p_.proc_grid) {
  g_ = grid_of(p_, process_grid(p_, proc_grid_, mpi::size()), mpi::rank());
}

MpiApspInstance::~MpiApspInstance() = default;

Round MpiApspInstance::round_of(int index) const {
  Round r;
  r.index = index;
  r.begin = index * g_.block;
  r.size = std::min(g_.block, g_.n - r.begin);
  r.prow = index % g_.dims[0];
  r.pcol = index % g_.dims[1];
  r.slot = index % 2;
  r.in_row = r.prow == g_.coords[0];
  r.in_col = r.pcol == g_.coords[1];
  if (r.in_row) r.rows = {g_.local_row(r.begin), g_.local_row(r.begin) + r.size};
  if (r.in_col) r.cols = {g_.local_col(r.begin), g_.local_col(r.begin) + r.size};
  return r;
}

bool MpiApspInstance::lookahead() const {
  // Alone, a rank gains nothing from lookahead: there is no broadcast to hide (lookahead=auto).
  return p_.lookahead == Problem::Lookahead::on ||
         (p_.lookahead == Problem::Lookahead::automatic && mpi::size() > 1);
}

void MpiApspInstance::setup() {
  if (mpi::size() > 1 && !comms_) {
    comms_ = std::make_unique<Comms>();
    const int periods[2] = {0, 0};
    // Ranks keep their numbers (no reordering): grid_of's coordinates are world ranks'.
    MPI_Cart_create(MPI_COMM_WORLD, 2, g_.dims.data(), periods, 0, &comms_->cart);
    // A rank's place in its row communicator is its process column, in its column
    // communicator its process row: the roots of the broadcasts below.
    MPI_Comm_split(comms_->cart, g_.coords[0], g_.coords[1], &comms_->row);
    MPI_Comm_split(comms_->cart, g_.coords[1], g_.coords[0], &comms_->col);
  }
  // Every rank draws the graph (n edges_per_vertex edges, cheap beside n^2) and keeps the
  // edges that land in its blocks: no rank builds another's.
  const std::vector<Edge> edges = graph_ ? *graph_ : generate_graph(p_);
  const float none = p_.none();
  local_initial_.assign(std::size_t(g_.rows) * g_.cols, none);
  for (int r = 0; r < g_.rows; ++r) {
    const int c = g_.local_col(g_.global_row(r));
    if (c >= 0) local_initial_[std::size_t(r) * g_.cols + c] = 0.0f;
  }
  for (const Edge& e : edges) {
    const int r = g_.local_row(e.from), c = g_.local_col(e.to);
    if (r < 0 || c < 0) continue;
    float& slot = local_initial_[std::size_t(r) * g_.cols + c];
    const float w = e.weight + 0.0f;  // as initial_matrix: -0 stored as +0
    slot = p_.semiring == Semiring::max_plus ? std::max(slot, w) : std::min(slot, w);
  }
  local_ = local_initial_;
  if (p_.paths) {
    local_next_.resize(local_initial_.size());
    initial_local_successors();
  }
  const int b = g_.block;
  row_panel_.assign(2 * std::size_t(b) * g_.cols, 0.0f);
  column_panel_.assign(2 * std::size_t(b) * g_.rows, 0.0f);
  diag_.assign(2 * std::size_t(b) * b, 0.0f);
  if (p_.paths) {
    next_panel_.assign(2 * std::size_t(b) * g_.rows, 0);
    next_diag_.assign(std::size_t(b) * b, 0);
  }
  // Rank 0 alone holds the whole matrix: the initial one for the path checks, and the result
  // gathered at finish(). Not where the result stays on the ranks.
  if (mpi::is_root() && gather_result_) {
    initial_ = initial_matrix(p_, edges);
    d_.assign(initial_.size(), 0.0f);
    if (p_.paths) next_.assign(initial_.size(), 0);
  }
}

void MpiApspInstance::initial_local_successors() {
  const float none = p_.none();
  for (int r = 0; r < g_.rows; ++r) {
    const int i = g_.global_row(r);
    for (int c = 0; c < g_.cols; ++c) {
      const int j = g_.global_col(c);
      const std::size_t at = std::size_t(r) * g_.cols + c;
      local_next_[at] = i == j || local_initial_[at] != none ? j : -1;
    }
  }
}

void MpiApspInstance::reset() {
  std::memcpy(local_.data(), local_initial_.data(), sizeof(float) * local_.size());
  if (p_.paths) initial_local_successors();
  upload();
}

void MpiApspInstance::prepare(const Round& r) {
  const int mm = r.size * r.size;
  if (r.diagonal()) close_diagonal(r);
  if (comms_) {
    if (r.diagonal()) to_host(Buffer::diagonal, r);
    const auto start = Clock::now();
    // A's H and S (and NH) to the pivot row's ranks for B, its H and S to the pivot column's
    // for C. Every rank of a row (column) communicator takes part, or none does.
    if (r.in_row) {
      MPI_Bcast(diag_.data(), 2 * mm, MPI_FLOAT, r.pcol, comms_->row);
      if (p_.paths) MPI_Bcast(next_diag_.data(), mm, MPI_INT32_T, r.pcol, comms_->row);
    }
    if (r.in_col) MPI_Bcast(diag_.data(), 2 * mm, MPI_FLOAT, r.prow, comms_->col);
    charge_broadcast(r.index, since(start));
    if (!r.diagonal()) {
      if (r.in_row) received_bytes_ += double(mm) * (2 * sizeof(float) + (p_.paths ? 4 : 0));
      if (r.in_col) received_bytes_ += double(mm) * 2 * sizeof(float);
      if (r.in_row || r.in_col) to_device(Buffer::diagonal, r);
    }
  }
  if (r.in_row) update_row_panel(r);
  if (r.in_col) update_column_panel(r);
  if (!comms_) return;  // one rank: the panels stay where B and C left them
  if (r.in_row) to_host(Buffer::row_panel, r);
  if (r.in_col) to_host(Buffer::column_panel, r);
  // The row panel down every process column (from the pivot process row), the column panel
  // along every process row (from the pivot process column).
  const auto start = Clock::now();
  auto& pending = comms_->pending;
  pending.assign(p_.paths ? 3 : 2, MPI_REQUEST_NULL);
  MPI_Ibcast(row_slot(r.slot), r.size * g_.cols, MPI_FLOAT, r.prow, comms_->col, &pending[0]);
  MPI_Ibcast(column_slot(r.slot), r.size * g_.rows, MPI_FLOAT, r.pcol, comms_->row, &pending[1]);
  if (p_.paths) {
    MPI_Ibcast(next_slot(r.slot), r.size * g_.rows, MPI_INT32_T, r.pcol, comms_->row, &pending[2]);
  }
  pending_round_ = r.index;
  charge_broadcast(r.index, since(start));
  if (!r.in_row) received_bytes_ += double(r.size) * g_.cols * sizeof(float);
  if (!r.in_col) received_bytes_ += double(r.size) * g_.rows * (sizeof(float) + (p_.paths ? 4 : 0));
}

void MpiApspInstance::complete(const Round& r) {
  if (!comms_) return;
  const auto start = Clock::now();
  MPI_Waitall(int(comms_->pending.size()), comms_->pending.data(), MPI_STATUSES_IGNORE);
  charge_broadcast(r.index, since(start));
  if (!r.in_row) to_device(Buffer::row_panel, r);
  if (!r.in_col) to_device(Buffer::column_panel, r);
}

void MpiApspInstance::nudge() {
  const auto start = Clock::now();
  int done = 0;
  MPI_Testall(int(comms_->pending.size()), comms_->pending.data(), &done, MPI_STATUSES_IGNORE);
  charge_broadcast(pending_round_, since(start));
}

void MpiApspInstance::start_accounting() {
  broadcast_s_ = 0;
  round_broadcast_s_.assign(std::size_t(g_.blocks), 0.0);
  received_bytes_ = 0;
}

void MpiApspInstance::run() {
  const auto start = Clock::now();
  start_accounting();
  const bool ahead = lookahead();
  const Span all_rows{0, g_.rows}, all_cols{0, g_.cols};
  prepare(round_of(0));
  for (int k = 0; k < g_.blocks; ++k) {
    const Round r = round_of(k);
    complete(r);
    if (k + 1 == g_.blocks) {
      relax(r, all_rows, r.rows, all_cols, r.cols);
      break;
    }
    const Round next = round_of(k + 1);
    if (!ahead) {
      relax(r, all_rows, r.rows, all_cols, r.cols);
      prepare(next);
      continue;
    }
    // This round's D on the next round's pivot rows and columns first, then the next round's
    // A, B and C and its broadcasts started, then this round's D on the rest.
    relax(r, next.rows, r.rows, all_cols, r.cols);
    const Span skip_rows = joined(r.rows, next.rows), skip_cols = joined(r.cols, next.cols);
    relax(r, all_rows, skip_rows, next.cols, r.cols);
    prepare(next);
    // The rest in pieces of rows, the started broadcasts nudged between them: Open MPI moves a
    // nonblocking broadcast on only inside MPI calls (no progress thread), so without these a
    // panel larger than its eager limit would wait for the next round's MPI_Waitall.
    const int pieces = comms_ ? progress_pieces : 1;
    for (int q = 0; q < pieces; ++q) {
      const Span piece{int(std::int64_t(g_.rows) * q / pieces),
                       int(std::int64_t(g_.rows) * (q + 1) / pieces)};
      relax(r, piece, skip_rows, all_cols, skip_cols);
      if (q + 1 < pieces) nudge();
    }
  }
  wait_for_phases();
  run_s_ = since(start);
}

void MpiApspInstance::finish() {
  fetch();
  if (gather_result_) gather();
}

double MpiApspInstance::share_bytes() const {
  const double b = g_.block, elements = double(g_.rows) * g_.cols;
  const double floats = 2 * elements + 2 * b * (g_.cols + g_.rows) + 2 * b * b;
  const double ints = p_.paths ? elements + 2 * b * g_.rows + b * b : 0.0;
  return sizeof(float) * floats + sizeof(std::int32_t) * ints;
}

double MpiApspInstance::device_share_bytes() const {
  const double b = g_.block, elements = double(g_.rows) * g_.cols;
  const double floats = elements + 2 * b * (g_.cols + g_.rows) + 2 * b * b;
  const double ints = p_.paths ? elements + 2 * b * g_.rows + b * b : 0.0;
  return sizeof(float) * floats + sizeof(std::int32_t) * ints;
}

std::string MpiApspInstance::device_refusal(std::string_view step, double free_bytes, int gpus,
                                            int device) const {
  if (free_bytes <= 0 || gpus <= 0) return "";
  const double need = device_share_bytes();
  const int local = mpi::local_size();
  const int sharing = local / gpus + (device < local % gpus ? 1 : 0);
  if (need * sharing <= free_bytes) return "";
  constexpr double gib = 1024.0 * 1024 * 1024;
  return fmt::format(
      "apsp/{} with n = {} on {} rank{} ({}x{}): rank {}'s blocks ({} x {}), panels{} need "
      "{:.2f} GiB of device memory{}, {:.2f} GiB free on GPU {}: use more ranks (GPUs)",
      step, g_.n, mpi::size(), mpi::size() == 1 ? "" : "s", g_.dims[0], g_.dims[1], mpi::rank(),
      g_.rows, g_.cols, p_.paths ? " and successors" : "", need / gib,
      sharing > 1
          ? fmt::format(" ({:.2f} GiB for the {} ranks on its GPU)", need * sharing / gib, sharing)
          : "",
      free_bytes / gib, device);
}

void MpiApspInstance::check_device_share(std::string_view step, double free_bytes, int gpus,
                                         int device) const {
  const std::string refusal = device_refusal(step, free_bytes, gpus, device);
  const mpi::Agreement agreed = mpi::agree(refusal.empty() ? 0 : 2, refusal);
  if (agreed.status != 0) throw UsageError(agreed.message);
}

void MpiApspInstance::gather() {
  // Each rank's blocks (and successors) to rank 0, which lays them out by the block-cyclic map.
  auto place = [&](const Grid& g, const float* from, const std::int32_t* next_from) {
    for (int r = 0; r < g.rows; ++r) {
      const std::size_t row = std::size_t(g.global_row(r)) * p_.n;
      for (int c = 0; c < g.cols; ++c) {
        const std::size_t at = std::size_t(r) * g.cols + c;
        d_[row + g.global_col(c)] = from[at];
        if (next_from) next_[row + g.global_col(c)] = next_from[at];
      }
    }
  };
  if (!comms_) {
    place(g_, local_.data(), p_.paths ? local_next_.data() : nullptr);
    return;
  }
  if (!mpi::is_root()) {
    send_pieces(local_.data(), local_.size(), MPI_FLOAT, 21, comms_->cart);
    if (p_.paths) {
      send_pieces(local_next_.data(), local_next_.size(), MPI_INT32_T, 22, comms_->cart);
    }
    return;
  }
  std::vector<float> incoming;
  std::vector<std::int32_t> incoming_next;
  for (int rank = 0; rank < mpi::size(); ++rank) {
    if (rank == 0) {
      place(g_, local_.data(), p_.paths ? local_next_.data() : nullptr);
      continue;
    }
    const Grid other = grid_of(p_, g_.dims, rank);
    const std::size_t other_count = std::size_t(other.rows) * other.cols;
    incoming.resize(other_count);
    receive_pieces(incoming.data(), other_count, MPI_FLOAT, rank, 21, comms_->cart);
    if (p_.paths) {
      incoming_next.resize(other_count);
      receive_pieces(incoming_next.data(), other_count, MPI_INT32_T, rank, 22, comms_->cart);
    }
    place(other, incoming.data(), p_.paths ? incoming_next.data() : nullptr);
  }
}

Verification MpiApspInstance::verify() {
  Verification v;
  if (!gather_result_) {
    // No rank holds the matrix to compare (acclab apsp checks its result across the ranks).
    v.detail = "not verified: the result stays spread over the ranks";
    v.outputs = {{"tolerance", 0}, {"difference", std::numeric_limits<double>::infinity()}};
    return v;
  }
  if (mpi::is_root()) v = ApspInstance::verify();
  return mpi::shared_verdict(v);
}

nlohmann::json MpiApspInstance::distribution() {
  double received = 0;
  for (double bytes : mpi::all_gather(received_bytes_)) received += bytes;
  double slowest_round = 0;
  for (double seconds : round_broadcast_s_) slowest_round = std::max(slowest_round, seconds);
  nlohmann::json d = {
      {"ranks", mpi::size()},
      {"proc_grid", fmt::format("{}x{}", g_.dims[0], g_.dims[1])},
      {"block", g_.block},
      {"rounds", g_.blocks},
      {"local_rows", g_.rows},
      {"local_cols", g_.cols},
      {"lookahead", lookahead()},
      {"panel_path", panel_path_},
      // Bytes received by broadcast over all ranks (each receiver counted), a round.
      {"broadcast_bytes_per_round", received / g_.blocks},
      // The slowest rank's time in broadcasts and waits for panels, and that over its run; a
      // round, on average and the slowest one's.
      {"broadcast_s", mpi::max_over_ranks(broadcast_s_)},
      {"broadcast_s_per_round", mpi::max_over_ranks(broadcast_s_) / g_.blocks},
      {"broadcast_s_slowest_round", mpi::max_over_ranks(slowest_round)},
      {"broadcast_share", mpi::max_over_ranks(run_s_ > 0 ? broadcast_s_ / run_s_ : 0.0)},
      {"mpi_library", mpi::initialised() ? mpi::library_version() : "not started"}};
  return d;
}

void MpiApspInstance::corrupt_result() {
  if (mpi::is_root()) ApspInstance::corrupt_result();
}

}  // namespace acclab::apsp
