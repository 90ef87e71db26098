#include "workloads/apsp/mpi_solve.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <climits>
#include <cstdint>
#include <stdexcept>

#include "core/error.hpp"
#include "core/mpi_env.hpp"
#include "workloads/apsp/mpi_blocks.hpp"

namespace acclab::apsp {
namespace {

using Pair = std::pair<int, int>;

bool several_ranks() { return mpi::initialised() && mpi::size() > 1; }

// Elements of the result spread over the ranks, read by every rank alike: the rank holding an
// element gives its bits, every other rank zero bits, and MPI_BOR over the ranks leaves each
// element exactly as its holder had it. Collective: every rank asks for the same elements.
class SpreadReader {
 public:
  explicit SpreadReader(const MpiApspInstance& blocks)
      : g_(blocks.grid()), d_(blocks.local_result()), next_(blocks.local_successors()) {}

  std::vector<float> distances(const std::vector<Pair>& at) const { return fetch(d_.data(), at); }
  std::vector<std::int32_t> successors(const std::vector<Pair>& at) const {
    return fetch(next_.data(), at);
  }

 private:
  template <class T>
  std::vector<T> fetch(const T* local, const std::vector<Pair>& at) const {
    static_assert(sizeof(T) == sizeof(std::uint32_t));
    std::vector<std::uint32_t> bits(at.size(), 0);
    for (std::size_t k = 0; k < at.size(); ++k) {
      const int r = g_.local_row(at[k].first), c = g_.local_col(at[k].second);
      if (r >= 0 && c >= 0)
        bits[k] = std::bit_cast<std::uint32_t>(local[std::size_t(r) * g_.cols + c]);
    }
    constexpr std::size_t piece = std::size_t(1) << 26;  // MPI's counts are ints
    for (std::size_t first = 0; several_ranks() && first < bits.size(); first += piece) {
      const int count = int(std::min(piece, bits.size() - first));
      MPI_Allreduce(MPI_IN_PLACE, bits.data() + first, count, MPI_UINT32_T, MPI_BOR,
                    MPI_COMM_WORLD);
    }
    std::vector<T> values(at.size());
    for (std::size_t k = 0; k < at.size(); ++k) values[k] = std::bit_cast<T>(bits[k]);
    return values;
  }

  const Grid& g_;
  const std::vector<float>& d_;
  const std::vector<std::int32_t>& next_;
};

// The initial matrix's elements read off the edges every rank holds, by initial_matrix's rule:
// 0 on the diagonal, the best of parallel edges, -0 stored as +0.
class EdgeWeights {
 public:
  EdgeWeights(const Problem& p, const std::vector<Edge>& edges) : p_(p) {
    for (const Edge& e : edges) entries_.push_back({key(e.from, e.to), e.weight + 0.0f});
    std::sort(entries_.begin(), entries_.end(),
              [](const Entry& a, const Entry& b) { return a.key < b.key; });
    std::vector<Entry> merged;
    for (const Entry& e : entries_) {
      if (!merged.empty() && merged.back().key == e.key) {
        merged.back().weight = best(merged.back().weight, e.weight);
      } else {
        merged.push_back(e);
      }
    }
    entries_ = std::move(merged);
  }

  float operator()(int x, int y) const {
    float w = x == y ? 0.0f : p_.none();
    const std::uint64_t k = key(x, y);
    const auto it = std::lower_bound(entries_.begin(), entries_.end(), k,
                                     [](const Entry& e, std::uint64_t k) { return e.key < k; });
    if (it != entries_.end() && it->key == k) w = best(w, it->weight);
    return w;
  }

 private:
  struct Entry {
    std::uint64_t key;
    float weight;
  };
  static std::uint64_t key(int x, int y) { return std::uint64_t(x) << 32 | std::uint32_t(y); }
  float best(float a, float b) const {
    return p_.semiring == Semiring::max_plus ? std::max(a, b) : std::min(a, b);
  }

  Problem p_;
  std::vector<Entry> entries_;
};

// successor_path's walk from u to v for every pair, all walks a hop at a time: each hop asks the
// ranks for next[x][v] of every walk still going (one collective a hop, the same on every rank).
std::vector<std::vector<int>> walks(const Problem& p, const SpreadReader& spread,
                                    const std::vector<Pair>& pairs) {
  std::vector<std::vector<int>> paths(pairs.size());
  std::vector<int> at(pairs.size());  // each walk's vertex
  std::vector<std::size_t> going;
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const auto [u, v] = pairs[k];
    paths[k] = {u};
    at[k] = u;
    if (u != v) going.push_back(k);
  }
  while (!going.empty()) {
    std::vector<Pair> ask;
    for (std::size_t k : going) ask.push_back({at[k], pairs[k].second});
    const std::vector<std::int32_t> next = spread.successors(ask);
    std::vector<std::size_t> still;
    for (std::size_t a = 0; a < going.size(); ++a) {
      const std::size_t k = going[a];
      const int x = next[a];
      if (x < 0 && paths[k].size() == 1) paths[k].clear();  // no successor from u at all
      if (x < 0 || x >= p.n) continue;
      paths[k].push_back(x);
      at[k] = x;
      if (x != pairs[k].second && int(paths[k].size()) < p.n) still.push_back(k);
    }
    going = std::move(still);
  }
  return paths;
}

// Refuses, on every rank alike, a share that the node's available host memory cannot hold with
// the shares of the node's other ranks.
void check_share(const UserGraph& user, const MpiApspInstance& blocks, std::size_t edges,
                 bool paths, Machine& machine) {
  refuse_on_every_rank([&] {
    // What setup() allocates: the share, and its copy of the edges it deals from.
    const double mine = blocks.share_bytes() + double(edges) * sizeof(Edge);
    double node = mine;
    int node_ranks = 1;
    if (several_ranks()) {
      MPI_Comm on_node;
      MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, mpi::rank(), MPI_INFO_NULL,
                          &on_node);
      MPI_Allreduce(&mine, &node, 1, MPI_DOUBLE, MPI_SUM, on_node);
      MPI_Comm_size(on_node, &node_ranks);
      MPI_Comm_free(&on_node);
    }
    const double have = machine.host().available_bytes;
    if (have <= 0 || node <= have) return;
    const Grid& g = blocks.grid();
    constexpr double gib = 1073741824.0;
    throw UsageError(fmt::format(
        "{}: {} vertices on {} rank{} (process grid {}x{}, blocks of {}): rank {}'s share ({} x "
        "{} elements, panels{} and edges) needs {:.2f} GiB of host memory{}; {:.2f} GiB "
        "available",
        user.source, user.graph.n, mpi::size(), mpi::size() == 1 ? "" : "s", g.dims[0], g.dims[1],
        g.block, mpi::rank(), g.rows, g.cols, paths ? ", successors" : "", mine / gib,
        node_ranks > 1
            ? fmt::format(", the {} ranks of its node {:.2f} GiB", node_ranks, node / gib)
            : "",
        have / gib));
  });
}

// Cycles and overflows refused as solve_graph refuses them (the lowest vertex, the first
// element), then the summary's reachable pairs and extreme distance, and the matrix's digest
// (each rank's share sum, added over the ranks: no rank gathers the matrix).
void examine(const UserGraph& user, const Problem& p, const MpiApspInstance& blocks,
             const SpreadReader& spread, GraphSolution& solution) {
  const Grid& g = blocks.grid();
  const std::vector<float>& d = blocks.local_result();
  const bool longest = p.semiring == Semiring::max_plus;
  int cycle = INT_MAX;
  std::int64_t overflow = INT64_MAX, reachable = 0;
  std::uint64_t digest = share_digest_sum(g, d.data(), int(user.graph.n));
  float extreme = p.none();
  for (int r = 0; r < g.rows; ++r) {
    const int i = g.global_row(r);
    for (int c = 0; c < g.cols; ++c) {
      const int j = g.global_col(c);
      const float x = d[std::size_t(r) * g.cols + c];
      if (i == j && (longest ? x > 0.0f : x < 0.0f)) cycle = std::min(cycle, i);
      if (overflows(p, x)) overflow = std::min(overflow, std::int64_t(i) * p.n + j);
      if (i == j || i >= user.graph.n || j >= user.graph.n || x == p.none()) continue;
      ++reachable;
      extreme = longest ? std::max(extreme, x) : std::min(extreme, x);
    }
  }
  if (several_ranks()) {
    MPI_Allreduce(MPI_IN_PLACE, &cycle, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &overflow, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &reachable, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &digest, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &extreme, 1, MPI_FLOAT, longest ? MPI_MAX : MPI_MIN,
                  MPI_COMM_WORLD);
  }
  if (cycle != INT_MAX) refuse_cycle(user, p, cycle);
  if (overflow != INT64_MAX) {
    const Pair at{int(overflow / p.n), int(overflow % p.n)};
    refuse_overflow(user, p, overflow, spread.distances({at})[0]);
  }
  solution.reachable = reachable;
  solution.matrix_digest = digest_text(digest);
  if (extreme != p.none()) solution.extreme = extreme;
}

// seed_test_lines' 20 lines: its pairs (seed_test_pairs), each distance asked of the rank
// holding it.
std::vector<std::string> seed_lines(const Problem& seed, const SpreadReader& spread) {
  const std::vector<Pair> pairs = seed_test_pairs(seed);
  const std::vector<float> d = spread.distances(pairs);
  std::vector<std::string> lines;
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    lines.push_back(fmt::format("test {} {} {:f}", pairs[k].first, pairs[k].second, d[k]));
  }
  return lines;
}

// check_successor_paths from `sources`: their rows of the distances and successors asked for
// once, then every reachable pair's walk.
PathCheck check_paths(const Problem& p, const SpreadReader& spread, const EdgeWeights& weight,
                      const std::vector<int>& sources) {
  std::vector<Pair> rows;
  for (int u : sources) {
    for (int v = 0; v < p.n; ++v) rows.push_back({u, v});
  }
  const std::vector<float> d = spread.distances(rows);
  const std::vector<std::int32_t> next = spread.successors(rows);
  std::vector<Pair> pairs;
  std::vector<std::int64_t> walk_of(rows.size(), -1);
  for (std::size_t k = 0; k < rows.size(); ++k) {
    if (rows[k].first == rows[k].second || d[k] == p.none()) continue;
    walk_of[k] = std::int64_t(pairs.size());
    pairs.push_back(rows[k]);
  }
  const std::vector<std::vector<int>> walked = walks(p, spread, pairs);
  const auto row_at = [&](int u, int v) {
    const auto a = std::find(sources.begin(), sources.end(), u) - sources.begin();
    return std::size_t(a) * p.n + v;
  };
  const ResultReader read{
      .distance = [&](int u, int v) { return d[row_at(u, v)]; },
      .successor = [&](int u, int v) { return next[row_at(u, v)]; },
      .walk = [&](int u, int v) { return walked[std::size_t(walk_of[row_at(u, v)])]; },
      .weight = [&](int x, int y) { return weight(x, y); }};
  return check_successor_paths(p, read, sources);
}

PathQuery query_path(const Problem& p, const SpreadReader& spread, const EdgeWeights& weight,
                     const std::vector<Edge>& edges, bool paths, Pair query, std::int64_t base) {
  const auto [u, v] = query;
  ResultReader read{.weight = [&](int x, int y) { return weight(x, y); }};
  if (paths) {
    const float length = spread.distances({query})[0];
    const std::vector<int> walk = walks(p, spread, {query})[0];
    read.distance = [&](int, int) { return length; };
    read.walk = [&](int, int) { return walk; };
    return query_successors(p, read, u, v, base);
  }
  std::vector<Pair> to_v;
  for (int x = 0; x < p.n; ++x) to_v.push_back({x, v});
  const std::vector<float> column = spread.distances(to_v);
  return query_distances(p, column, read, edges, u, v, base);
}

}  // namespace

int fitted_block(int n, int block, std::array<int, 2> dims) {
  const int side = std::max(dims[0], dims[1]);
  while (block > 1 && (n + block - 1) / block < side) block /= 2;
  return block;
}

GraphSolution solve_graph_across_ranks(const UserGraph& user, const std::vector<Edge>& edges,
                                       const Variant& variant, Params params,
                                       const GraphSolveOptions& options,
                                       std::optional<std::pair<int, int>> query, Machine& machine) {
  const Problem& given = problem_of(params);
  const std::array<int, 2> dims = process_grid_dims(given.proc_grid, mpi::size());
  const int rows = given.n;
  if (rows < std::max(dims[0], dims[1])) {
    throw UsageError(fmt::format(
        "{}: {} vertices are too few for {} ranks (process grid {}x{}): every process row and "
        "column needs one",
        user.source, user.graph.n, mpi::size(), dims[0], dims[1]));
  }
  // (set() drops the parsed problem: `given` is not read after it.)
  params.set("block", fitted_block(rows, given.block, dims));

  GraphSolution solution;
  solution.variant = variant.name;
  solution.n = user.graph.n;
  solution.semiring = options.semiring;
  solution.instance = variant.factory(params);
  auto* blocks = dynamic_cast<MpiApspInstance*>(solution.instance.get());
  if (!blocks)
    throw std::logic_error(variant.name + ": a distributed step without MpiApspInstance");
  blocks->keep_result_on_ranks();
  blocks->set_graph(edges);
  check_share(user, *blocks, edges.size(), options.paths, machine);
  blocks->setup();
  blocks->reset();
  if (options.progress) {
    options.progress(fmt::format("apsp {}: {} on {} vertices, {} ranks", user.source, variant.name,
                                 user.graph.n, mpi::size()));
  }
  const auto start = std::chrono::steady_clock::now();
  blocks->run();
  // The slowest rank's, as acclab run reports a distributed step's time.
  solution.seconds = mpi::max_over_ranks(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  blocks->finish();

  const Problem p = problem_of(params);
  const SpreadReader spread(*blocks);
  examine(user, p, *blocks, spread, solution);
  if (user.seed) solution.seed_lines = seed_lines(*user.seed, spread);
  const EdgeWeights weight(p, edges);
  if (options.paths) {
    const std::vector<int> sources = path_check_sources(user.graph.n);
    solution.path_sources = int(sources.size());
    solution.path_check = check_paths(p, spread, weight, sources);
  }
  if (query) {
    solution.query = query_path(p, spread, weight, edges, options.paths, *query, user.base);
  }
  solution.spread = spread_result(p, user.graph.n, *blocks);
  return solution;
}

}  // namespace acclab::apsp
