// The Floyd seed's all-pairs paths: Floyd-Warshall on a dense n x n float matrix over the
// max-plus semiring (longest paths, the seed's: d[i][j] = max(d[i][j], d[i][k] + d[k][j]),
// missing edges -inf) or min-plus (shortest paths, missing edges +inf).
//
// Conventions: the diagonal starts at 0 (the empty path), so after the run d[i][i] > 0
// (max-plus) or < 0 (min-plus) exactly when i lies on a positive (negative) cycle, and paths
// through such a vertex are undefined. The seed started its diagonal at -1e7 ("-INF") and had
// no self loops; for i != j and graphs without positive cycles the two conventions give the
// same values. Unreachable pairs stay -inf (+inf), where the seed printed -1e7.
//
// Every step's update of (i, j) uses d[i][k] and d[k][j] as they were after step k-1, as the
// serial loop does; with d[k][k] = 0 neither changes during step k, so any parallel order of
// one step, and the blocked schemes here (which snapshot each pivot row as of its step), give
// results bitwise equal to the serial loop.
//
// Paths (--set paths=1, acclab apsp --paths): a successor matrix next (int32, n x n) kept beside
// d. It starts at next[i][j] = j where an edge i -> j exists and next[i][i] = i, -1 elsewhere;
// whenever step k strictly improves d[i][j] (exactly when the serial loop's max / min takes
// the new value), next[i][j] = next[i][k]. Step k changes neither next[i][k] nor next[k][j]
// (d[k][k] = 0 again), so the successors, like the distances, do not depend on the order of
// one step's updates. Following next from u reaches v along a best path (in exact arithmetic;
// in float, its weights re-summed agree with d[u][v] to rounding).
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/registry.hpp"
#include "kit/omp_tuned.hpp"

namespace acclab::apsp {

// The loop nests omp_target_tuned runs (omp_shape), the default first.
inline const std::vector<OmpShape>& omp_target_shapes() {
  static const std::vector<OmpShape> shapes = {
      {"rows", "a thread a row, its columns over the warp's lanes (an inner omp simd)", true},
      {"collapse", "collapse(2) over rows and columns"}};
  return shapes;
}

enum class Semiring { max_plus, min_plus };
enum class Generator { seed, random };

// The parameters of one run, read once (problem_of) and the values derived from them.
struct Problem {
  // As given (validate names them so), before they are narrowed to the fields below.
  std::int64_t n_given = 0, edges_per_vertex_given = 0;
  std::string semiring_name, graph_name, lookahead_name;
  std::string proc_grid;  // mpi_*: PrxPc, or empty for MPI_Dims_create's

  int n = 0;
  Semiring semiring = Semiring::max_plus;
  Generator generator = Generator::seed;
  int edges_per_vertex = 20;
  std::int64_t random_seed_given = 1;
  std::uint64_t random_seed = 1;
  int devices = 1;  // multidevice, cuda_blocked_multi: GPUs (multidevice: host partitions without)
  int block = 64;   // multidevice: pivot rows exchanged at once
  // multidevice: the next owner computes the next pivot block before the rest of this round
  // (auto: when two or more partitions hold rows).
  enum class Lookahead { automatic, on, off } lookahead = Lookahead::automatic;
  bool share_gpus = false;  // multidevice, cuda_blocked_multi: partition q on GPU q mod GPUs
  bool paths = false;       // keep the successor matrix (paths=1)
  bool alternate = true;    // optimize_resident: odd steps walk the rows bottom-up

  std::int64_t elements() const { return std::int64_t(n) * n; }
  // The value of a missing edge: -inf for max-plus, +inf for min-plus.
  float none() const {
    return semiring == Semiring::max_plus ? -std::numeric_limits<float>::infinity()
                                          : std::numeric_limits<float>::infinity();
  }
};
// The problem of these values, parsed at the first call and kept with them (Params::problem).
const Problem& problem_of(const Params& params);

// optimize's and managed's vector lanes a row (their kernels' vector_length).
inline constexpr int optimize_lanes = 256;
// The columns a lane relaxes an iteration there (acc_managed_optimize.cpp) on rows of n: `unroll`
// (their knob of that name) where it is not 0, or for 0 (auto) the largest of 16, 8, 4 and 2
// that leaves at least four chunks of optimize_lanes * U columns in a row (1 when none does), so
// that the columns past the last chunk, which go one a lane, stay under a quarter of it.
int columns_per_lane(int unroll, int n);

Workload make_workload();

struct Edge {
  int from, to;
  float weight;
};

// The seed's graph: srand(n), then 20 n distinct directed edges (prev = rand() % n,
// next = rand() % n, redrawn on a self loop or a repeat) of weight log((rand() % 99 + 1) / 100),
// the C library's generator exactly as the seed calls it. generator=random draws the same kind
// of graph (edges_per_vertex n edges, weight log p for p uniform in [0.01, 1]) from mt19937_64,
// the same on every platform. For min-plus every weight is negated (-log p >= 0), so that the
// shortest paths are the same most-reliable paths and the result is exactly the max-plus one
// negated.
std::vector<Edge> generate_graph(const Problem& p);

// The seed's 20 test pairs (prev, next): the next 20 from the C library's rand() after the
// graph (prev != next), the graph drawn again first so that the generator is where the seed's
// left it. Only meaningful for generator=seed.
std::vector<std::pair<int, int>> seed_test_pairs(const Problem& p);
// The seed's 20 "test prev next value" lines: seed_test_pairs with d[prev][next].
std::vector<std::string> seed_test_lines(const Problem& p, const std::vector<float>& d);

// The initial matrix: 0 on the diagonal, the edge weights (the best of repeated edges, which the
// generators never make), none() elsewhere.
std::vector<float> initial_matrix(const Problem& p, const std::vector<Edge>& edges);

// Which variants keep the successor matrix (the tuning paths) and which split the rows over
// GPUs (the tuning devices) is said by their rows in ladder.json; the others refuse paths=1
// (register.cpp).
// The most GPUs (partitions) the devices parameter may ask for.
inline constexpr int max_devices = 64;

// How many vertices a step takes. The blocked steps (wide_steps) address the dense matrix in 64
// bits and take up to max_vertices (4 TiB of distances: past any machine's memory, which the
// runner checks first; vertex numbers, a tile's offsets and MPI's panel counts stay ints). The
// others index it in 32 bits, as the seed does, and take n^2 < 2^31: max_vertices_32 (8.6 GB).
inline constexpr std::int64_t max_vertices = std::int64_t(1) << 20;
inline constexpr std::int64_t max_vertices_32 = 46340;
inline constexpr std::array<std::string_view, 6> wide_steps = {
    "multidevice", "cuda_blocked", "cuda_blocked_multi", "mpi_host", "mpi_acc", "mpi_cuda"};
bool is_wide_step(std::string_view step);
// The most vertices `step` takes.
std::int64_t max_vertices_of(std::string_view step);
// Why a step that indexes in 32 bits refuses a graph past max_vertices_32, naming the wide steps
// this build has: "indexes the dense n x n matrix in 32 bits, at most ... (up to ...: ...)".
std::string narrow_step_limit();

// The initial successors of the initial matrix (header): next[i][j] = j where initial[i][j] is
// an edge's weight or i == j, -1 elsewhere. n x n, written into `next`.
void initial_successors(const Problem& p, const float* initial, std::int32_t* next);

// One Floyd-Warshall step k over rows [row_begin, row_end) of d (n x n, in place), and of the
// successors `next` when it is not null (the header's rule; d bitwise the same either way).
void relax_rows(const Problem& p, float* d, int k, int row_begin, int row_end);
void relax_rows(const Problem& p, float* d, std::int32_t* next, int k, int row_begin, int row_end);

// The threads of multicore's (and the reference's) steps: one below multicore_team_min_n,
// where a step (n^2 elements) is too short for a team to gain on its barrier and, on a loaded
// machine, each barrier waits for a descheduled thread (bench/results/cpu/apsp/NOTES.md has
// the measurements); OpenMP's from there on.
inline constexpr int multicore_team_min_n = 256;
int multicore_team(const Problem& p);

// The serial algorithm (rows of each step split over OpenMP threads: bitwise the serial loop,
// as the header says). Cached for the last problem asked.
const std::vector<float>& reference_result(const Problem& p);
// Its successor matrix (p.paths must be set), cached with it.
const std::vector<std::int32_t>& reference_successors(const Problem& p);

// The walk from u towards v along the successors: u, next[u][v], next[next[u][v]][v], ... It
// stops at v, at a vertex without a successor (-1 or out of range) or after n vertices, so it
// reached v exactly when its last vertex is v. {u} when u == v; empty when next[u][v] is -1.
std::vector<int> successor_path(const Problem& p, const std::int32_t* next, int u, int v);

// The path's length: the initial matrix's weights of its edges (the best of parallel edges)
// summed in path order in double; none() when an edge is missing. 0 for a single vertex.
double path_length(const Problem& p, const float* initial, const std::vector<int>& path);

// Whether a path's re-summed length `along` agrees with the matrix's d[u][v] to float
// rounding: both are sums of at most n - 1 weights whose magnitudes add up to at most `sum_abs`
// (the path's) or |d| (for weights of one sign), each within n u of it (u = 2^-24).
double rounding_bound(const Problem& p, double sum_abs, float d);

// Every path from the `sources` to every vertex followed along the successors and checked: it
// reaches its target along edges of the graph and its re-summed length agrees with d within
// rounding_bound; an unreachable pair has successor -1; next[u][u] = u.
struct PathCheck {
  std::int64_t paths = 0;   // pairs checked (reachable, u != v)
  std::int64_t broken = 0;  // pairs that failed
  double worst_over_bound = 0;
  std::string first_broken;  // one line about the first failure, empty if none
};
PathCheck check_successor_paths(const Problem& p, const float* initial, const float* d,
                                const std::int32_t* next, const std::vector<int>& sources);

// A 64-bit digest of the n x n result's bits, as 16 hex digits: runs that agree bitwise (one
// GPU against several, one variant against another, one rank against several) have the same
// digest. It is the sum modulo 2^64 of one term per element, a 64-bit mix of the element's
// row-major index e = i n + j and its 32 bits, not a hash chained in row-major order: a result
// spread over MPI ranks, which no rank can hold whole, is digested by each rank summing the terms
// of its own elements and the ranks adding their sums (mpi_blocks.hpp's share_digest_sum), and
// unsigned addition gives the same digest in any order and any distribution. One element's bits
// changed always change it (the mix is a bijection); it is not cryptographic: it tells results
// apart, it does not resist a crafted collision.
std::string matrix_digest(const Problem& p, const float* d);
// The terms' sum over the whole n x n matrix d (row-major), and the 16 hex digits of a sum.
std::uint64_t digest_sum(std::int64_t n, const float* d);
std::string digest_text(std::uint64_t sum);
// The term of the element at row-major index e holding x: splitmix64's finaliser on the index,
// xor the bits, finalised again. Mixing the index first makes one value at two places two
// unrelated terms, so that a value moved or two values swapped change the sum too.
inline std::uint64_t digest_term(std::int64_t e, float x) {
  const auto mix = [](std::uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  return mix(mix(std::uint64_t(e)) ^ std::bit_cast<std::uint32_t>(x));
}

// A vertex on a positive (max-plus) or negative (min-plus) cycle of the result, if any.
std::optional<int> cycle_vertex(const Problem& p, const float* d);

// A best path from u to v read off the result d and the graph's edges: the fewest edges along
// which each edge (x, w) is tight, its weight plus d[w][v] equal to d[x][v] up to float
// rounding. Empty when v is unreachable from u (or no tight path exists); {u} when u == v.
std::vector<int> best_path(const Problem& p, const float* d, const std::vector<Edge>& edges, int u,
                           int v);

// The host matrix, the result and its verification, shared by every variant.
class ApspInstance : public Instance {
 public:
  explicit ApspInstance(const Params& params);
  // Runs on these edges instead of the generated graph (acclab apsp FILE). Before setup().
  void set_graph(std::vector<Edge> edges) { graph_ = std::move(edges); }
  const std::vector<float>& result() const { return d_; }
  const std::vector<float>& initial() const { return initial_; }
  // The successor matrix after finish() (empty without paths).
  const std::vector<std::int32_t>& successors() const { return next_; }
  void setup() override;
  // Restores d and, with paths, the initial successors (host arrays).
  void reset() override;
  // Bitwise equal to the serial result (computed here up to n = serial_check_limit), and
  // source rows (all up to dijkstra_all_rows_limit, else 8 sampled) equal to Dijkstra's
  // distances within rounding at any n. With paths, also the successors equal to the serial
  // loop's (same limit), and every path from those rows re-summed equal to its distance within
  // rounding. outputs: tolerance 0 and difference = the elements that differ from the serial
  // loop (above serial_check_limit: tolerance 1 and the Dijkstra rows' worst difference over
  // its bound). Not for an instance given a user's graph (fails, saying so).
  Verification verify() override;
  void corrupt_result() override;

  static constexpr int serial_check_limit = 4096;
  // Up to this n every row is checked against Dijkstra (and with paths every path followed).
  static constexpr int dijkstra_all_rows_limit = 256;

 protected:
  Problem p_;
  std::vector<float> initial_, d_;
  std::vector<std::int32_t> next_;  // with paths: n x n successors, else empty
  std::optional<std::vector<Edge>> graph_;
};

// The rows of ladder.json built into this binary (generated from the table).
std::vector<LadderRow> ladder();

void register_variants(Registry& registry);

}  // namespace acclab::apsp
