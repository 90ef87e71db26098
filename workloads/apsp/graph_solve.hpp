// All-pairs paths of a user's graph (acclab apsp FILE): one of the workload's variants run on
// the graph's edges, the result refused where a cycle or an overflow leaves paths undefined,
// summarised, and, with paths, the successor matrix followed and its paths re-summed.
//
// A distributed step (mpi_*) runs across the MPI ranks (one rank without mpirun): rank 0 reads
// the graph and every rank gets its edges (graph_from_rank_0), each rank builds and keeps only
// its blocks, and the checks, the summary, the paths and --out are computed by the ranks
// together (mpi_solve.hpp), so that no rank ever holds the whole matrix. Every function here is
// then called by every rank, and a refusal is every rank's (one line from rank 0, exit 2).
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/machine.hpp"
#include "core/registry.hpp"
#include "io/dense_matrix.hpp"
#include "io/graph.hpp"
#include "workloads/apsp/apsp.hpp"

namespace acclab::apsp {

// A user's graph, with what messages and printed paths call it and its vertices.
struct UserGraph {
  io::Graph graph;
  std::string source;           // the file, or "seed graph N"
  std::string kind;             // the file's format, or "the seed's generator"
  std::int64_t base = 0;        // the id the user writes for vertex 0
  std::optional<Problem> seed;  // the seed's generator, when it drew the graph
};

// Reads a graph file (io/graph.hpp). Throws UsageError naming it for a graph without vertices
// or with more than max_vertices (apsp.hpp; the step chosen may take fewer: solve_graph).
UserGraph read_user_graph(const std::string& path);

// The seed's random graph of n vertices (21 to max_vertices: 20 distinct edges a vertex),
// weighted for `semiring` (generate_graph). Throws UsageError naming --seed-graph otherwise.
UserGraph seed_user_graph(std::int64_t n, Semiring semiring);

// Whether acclab apsp runs `variant` across the MPI ranks: a distributed step (mpi_*) does, alone
// too, and so does the default (none named) under mpirun. Throws UsageError for any other step
// named under mpirun with several ranks.
bool runs_across_ranks(const Registry& registry, const std::string& variant);

// Runs `check` on every rank and throws on every rank the UsageError of the lowest rank that
// threw one (mpi::agree), so that a refusal on one rank (rank 0's --out path, one rank's
// memory) stops them all alike; any other exception likewise, as std::runtime_error. A single
// process just runs it.
void refuse_on_every_rank(const std::function<void()>& check);

// `read()` on rank 0, and its graph on every rank (the edges broadcast); a UsageError there is
// every rank's. A single process just reads.
UserGraph graph_from_rank_0(const std::function<UserGraph()>& read);

struct GraphSolveOptions {
  Semiring semiring = Semiring::max_plus;
  std::string variant;  // empty: default_graph_variant()
  int devices = 1;
  bool paths = false;  // keep the successor matrix, follow it and re-sum its paths
  // Print a best path from the first to the second vertex (ids as the user writes them).
  std::optional<std::pair<std::int64_t, std::int64_t>> query;
  // Told what is about to run, once the variant is chosen and checked.
  std::function<void(const std::string&)> progress;
};

// The variant a solve of `vertices` vertices takes when none is named: the first of the fastest
// on a GPU that runs on one here and can do what was asked (the successors, with paths), else
// the fastest on the CPU that takes that many vertices (multicore, or mpi_host past
// max_vertices_32 where MPI is built). Under mpirun with several ranks: mpi_cuda with a CUDA GPU,
// else mpi_acc where OpenACC runs on a GPU, else mpi_host.
const Variant& default_graph_variant(const Registry& registry, Machine& machine, bool paths,
                                     std::int64_t vertices);

// The refusals of a result: a positive (max-plus) or negative (min-plus) cycle through
// `vertex`, so that paths through it are undefined; the distance at row-major `element` (of
// p.n x p.n) past the float range. UsageError, naming the graph and the vertices as the user
// writes them.
[[noreturn]] void refuse_cycle(const UserGraph& user, const Problem& p, int vertex);
[[noreturn]] void refuse_overflow(const UserGraph& user, const Problem& p, std::int64_t element,
                                  float value);
// Whether a result's element is no path length: NaN (opposite infinities summed), or the
// infinity of the other sign than none() (a sum past the float range).
inline bool overflows(const Problem& p, float x) {
  return std::isnan(x) || (std::isinf(x) && x != p.none());
}
// The sources --paths follows the successors from (to every target): up to 8, spread over the
// graph's n vertices.
std::vector<int> path_check_sources(std::int64_t n);

// What the path checks read of a result, element by element, so that they run alike on a
// matrix in one array and on one spread over MPI ranks.
struct ResultReader {
  std::function<float(int, int)> distance;          // d[u][v]
  std::function<std::int32_t(int, int)> successor;  // next[u][v] (with paths)
  std::function<std::vector<int>(int, int)> walk;   // successor_path's walk from u to v
  std::function<float(int, int)> weight;            // the initial matrix's [x][y]
};
// check_successor_paths (apsp.hpp) on what `read` reads.
PathCheck check_successor_paths(const Problem& p, const ResultReader& read,
                                const std::vector<int>& sources);
// path_length (apsp.hpp) with the initial matrix's weights as `weight` reads them.
double path_length(const Problem& p, const std::function<float(int, int)>& weight,
                   const std::vector<int>& path);
// best_path (apsp.hpp) from the result's column v alone, column[x] = d[x][v]: all it reads.
std::vector<int> best_path_to(const Problem& p, std::span<const float> column,
                              const std::vector<Edge>& edges, int u, int v);

// A queried path, with ids as the user writes them.
struct PathQuery {
  enum class Outcome {
    found,           // a path whose weights re-sum to its length
    unreachable,     // no path
    stops_short,     // the successors end before the target (a failure)
    does_not_resum,  // the path's weights re-summed disagree with its length (a failure)
  };
  Outcome outcome = Outcome::unreachable;
  std::int64_t from = 0, to = 0;
  float length = 0;                    // the distance matrix's
  double along = 0;                    // its edges' weights summed in path order
  std::vector<std::int64_t> vertices;  // from `from`; ends at `to` unless stops_short
};

// The path from u to v along the successors (`read`'s walk), re-summed from the initial matrix
// (the best of parallel edges) and checked against the distance.
PathQuery query_successors(const Problem& p, const ResultReader& read, int u, int v,
                           std::int64_t base);
// The path from u to v read off the distances to v (best_path_to), its weights summed along it.
PathQuery query_distances(const Problem& p, std::span<const float> column, const ResultReader& read,
                          const std::vector<Edge>& edges, int u, int v, std::int64_t base);

// A result that stays spread over the MPI ranks that computed it (mpi_solve.hpp).
class SpreadResult {
 public:
  virtual ~SpreadResult() = default;
  // The matrix written to `path` by the ranks together, whole or not at all; errors name
  // `option` (the command line's, or "") before the path. Collective.
  virtual void write(const std::string& path, io::DenseFormat format,
                     const std::string& option) const = 0;
  // One line: the ranks, their process grid and the blocks.
  virtual std::string summary() const = 0;
};

struct GraphSolution {
  std::string variant;
  std::int64_t n = 0;  // the graph's vertices
  Semiring semiring = Semiring::max_plus;
  double seconds = 0;          // the variant's run() alone
  std::int64_t reachable = 0;  // ordered pairs of distinct vertices with a path
  // The largest (max-plus) or smallest (min-plus) distance between distinct vertices, if any.
  std::optional<float> extreme;
  std::vector<std::string> seed_lines;  // the seed program's test lines, for its graph
  // apsp.hpp's matrix_digest of the n x n distances: for a spread result the ranks' share sums
  // added, so that solves on any number of ranks (GPUs) and by any variant compare bitwise.
  std::string matrix_digest;
  // With paths: the sources the successors were followed from, to every target.
  int path_sources = 0;
  std::optional<PathCheck> path_check;
  std::optional<PathQuery> query;

  // Whether every path followed reached its target with its length (status 0).
  bool paths_ok() const;
  // The distances between the graph's vertices, row-major n x n (not for a spread result).
  std::span<const float> distances() const;
  // The distances written to `path` (io/dense_matrix.hpp), whole or not at all; by every rank
  // together for a spread result. Errors are "OPTION FILE: reason" (`option` may be "").
  void write_distances(const std::string& path, io::DenseFormat format,
                       const std::string& option = "") const;

  std::unique_ptr<Instance> instance;    // holds the matrices distances() reads
  std::vector<float> unpadded;           // a one-vertex graph's, which ran as two vertices
  std::unique_ptr<SpreadResult> spread;  // a distributed step's result, on its ranks
};

// Checks the options against the graph, the registry and this machine's memories, runs the
// variant and examines its result. Throws UsageError, before anything is allocated, for a vertex
// id, weight, variant or --devices the graph or machine cannot take, and afterwards for a
// positive (max-plus) or negative (min-plus) cycle, naming a vertex on it, or a distance past
// the float range. A distributed step runs across the ranks (solve_graph_across_ranks); every
// rank calls this, and every rank throws alike.
GraphSolution solve_graph(const UserGraph& graph, const GraphSolveOptions& options,
                          const Registry& registry, Machine& machine);

}  // namespace acclab::apsp
