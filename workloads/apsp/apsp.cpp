// The problem, its parameters, the graph generators and the host matrix shared by every apsp
// variant (their checks are in verify.cpp, the successor matrix's paths in paths.cpp).
#include "workloads/apsp/apsp.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <unordered_set>
#include <utility>

#include "core/error.hpp"
#include "kit/omp_tuned.hpp"

namespace acclab::apsp {

bool is_wide_step(std::string_view step) {
  return std::find(wide_steps.begin(), wide_steps.end(), step) != wide_steps.end();
}

std::int64_t max_vertices_of(std::string_view step) {
  return is_wide_step(step) ? max_vertices : max_vertices_32;
}

std::string narrow_step_limit() {
  std::vector<std::string> built;
  for (const LadderRow& row : ladder()) {
    if (is_wide_step(row.name)) built.push_back(row.name);
  }
  return fmt::format(
      "indexes the dense n x n matrix in 32 bits, at most {} vertices (up to {}: {})",
      max_vertices_32, max_vertices, fmt::join(built, ", "));
}

namespace {

// Each parameter of the Problem, read here and nowhere else.
Problem parse_problem(const Params& params) {
  static const ProblemFields<Problem> fields = [] {
    ProblemFields<Problem> f;
    f.integer("n", &Problem::n_given).integer("edges_per_vertex", &Problem::edges_per_vertex_given);
    f.text("semiring", &Problem::semiring_name).text("graph", &Problem::graph_name);
    f.text("lookahead", &Problem::lookahead_name);
    f.integer("devices", &Problem::devices).integer("block", &Problem::block);
    f.flag("paths", &Problem::paths).flag("share_gpus", &Problem::share_gpus);
    f.flag("alternate", &Problem::alternate);
    f.text("proc_grid", &Problem::proc_grid);
    f.integer("random_seed", &Problem::random_seed_given);
    return f;
  }();
  Problem p;
  fields.fill(params, p);
  // Narrowed where validate refuses more (it names the values as given).
  p.n = static_cast<int>(std::min<std::int64_t>(p.n_given, 1 << 30));
  p.edges_per_vertex = static_cast<int>(std::min<std::int64_t>(p.edges_per_vertex_given, 1 << 30));
  p.random_seed = static_cast<std::uint64_t>(p.random_seed_given);
  p.semiring = p.semiring_name == "min-plus" ? Semiring::min_plus : Semiring::max_plus;
  p.generator = p.graph_name == "random" ? Generator::random : Generator::seed;
  p.lookahead = p.lookahead_name == "on"    ? Problem::Lookahead::on
                : p.lookahead_name == "off" ? Problem::Lookahead::off
                                            : Problem::Lookahead::automatic;
  return p;
}

}  // namespace

const Problem& problem_of(const Params& params) { return params.problem(parse_problem); }

int columns_per_lane(int unroll, int n) {
  if (unroll > 0) return unroll;
  int u = 16;
  while (u > 1 && 4 * optimize_lanes * u > n) u /= 2;
  return u;
}

Workload make_workload() {
  Workload w;
  w.name = "apsp";
  w.description = "Floyd seed: all-pairs longest (max-plus) or shortest paths, several GPUs";
  w.params = {
      {.key = "n", .help = "vertices", .presets = presets_of("4096", "97", "16384"), .minimum = 2},
      {.key = "semiring",
       .type = ParamType::text,
       .help = "max-plus: longest paths (the seed's); min-plus: shortest paths (weights negated)",
       .presets = same_in_all_presets("max-plus"),
       .choices = {"max-plus", "min-plus"}},
      {.key = "graph",
       .type = ParamType::text,
       .help = "seed: the seed's C-library rand() graph; random: the same kind from mt19937_64",
       .presets = presets_of("seed", "random", "random"),
       .choices = {"seed", "random"}},
      {.key = "edges_per_vertex",
       .help = "distinct directed edges per vertex (the seed's 20)",
       .presets = same_in_all_presets("20")},
      {.key = "random_seed",
       .help = "graph=random's seed",
       .presets = same_in_all_presets("1"),
       .minimum = 0},
      {.key = "devices",
       .help = "multidevice, cuda_blocked_multi: GPUs to split the rows over (multidevice: "
               "partitions on the host without a GPU)",
       .presets = same_in_all_presets("1"),
       .maximum = max_devices},
      {.key = "block",
       .help = "multidevice: pivot rows exchanged at once (rows per partition are multiples); "
               "mpi_*: the b of the b x b blocks dealt over the ranks",
       .presets = same_in_all_presets("64"),
       .maximum = 1024},
      {.key = "lookahead",
       .type = ParamType::text,
       .help = "multidevice: the next pivot rows' owner steps them, and starts their copy, before "
               "the rest of the round (auto: with two or more partitions); mpi_*: the next "
               "round's panels updated and their broadcasts started first (auto: two or more "
               "ranks)",
       .presets = same_in_all_presets("auto"),
       .choices = {"auto", "on", "off"}},
      {.key = "share_gpus",
       .type = ParamType::boolean,
       .help = "multidevice, cuda_blocked_multi: 1 lets partitions share GPUs (partition q on GPU "
               "q mod GPUs), each with its own queues: the exchange checked on one GPU",
       .presets = same_in_all_presets("0")},
      alternate_param("optimize_resident and omp_target_resident only"),
      {.key = "paths",
       .type = ParamType::boolean,
       .help = "1: keep the successor matrix (n^2 int32 more; serial, multicore, optimize, "
               "optimize_resident, multidevice, mpi_*, omp_target_*), verified against the "
               "serial loop's and by re-summing paths",
       .presets = same_in_all_presets("0")},
      {.key = "proc_grid",
       .type = ParamType::text,
       .help = "mpi_* only, optional: the process grid PrxPc (Pr ranks along rows, Pc along "
               "columns; default MPI_Dims_create's for the ranks running)",
       .presets = same_in_all_presets("")},
  };
  w.validate = [](const Params& params) {
    const Problem& p = problem_of(params);
    const std::int64_t n = p.n_given;
    // The steps that index in 32 bits refuse more (register.cpp); none takes more than this.
    if (n > max_vertices) {
      throw UsageError(
          fmt::format("--set n={}: more than the {} vertices apsp takes", n, max_vertices));
    }
    const std::int64_t edges = p.edges_per_vertex_given;
    if (edges > n - 1) {
      throw UsageError(fmt::format(
          "--set edges_per_vertex={}: more than the n - 1 = {} distinct edges a vertex can have",
          edges, n - 1));
    }
  };
  // The matrix and its initial state, the cached reference, the edge list; with paths the
  // successors, the reference's and multidevice's partition copies.
  w.host_bytes = [](const Params& params) {
    const Problem& p = problem_of(params);
    const double n = double(p.n_given);
    const double successors = p.paths ? 3.0 * sizeof(std::int32_t) : 0.0;
    // The edges (12 bytes each), and verify()'s Dijkstra: the graph again, its adjacency lists
    // (16 bytes an edge, twice for the vectors' growth, 24 a vertex), its heap (16 an edge) and
    // a row of distances.
    const double edges = n * double(p.edges_per_vertex_given);
    // The variant that needs the most: multidevice, whose partitions hold their rows apart
    // from the matrix, each its two snapshot slots (2 block x n) and its history (block x its
    // rows), and two published snapshots on the host; with paths the successors' history
    // (their rows are among `successors`).
    const double block = double(p.block);
    const double partitions = double(p.devices);
    const double multidevice =
        sizeof(float) * (n * n + partitions * 2 * block * n + block * n + 2 * block * n);
    const double history = p.paths ? sizeof(std::int32_t) * block * n : 0.0;
    // Or the mpi_* steps on one rank (the most a rank holds): besides rank 0's matrix, initial
    // matrix and reference, its blocks and their initial state (n^2 each), two slots of each
    // panel (2 block x n each) and the diagonal (2 block^2); with paths the blocks' successors
    // (among `successors`), their panel's two slots and diagonal (2 block x n + block^2 int32:
    // `history` and the rest, counted here with or without paths).
    const double mpi = sizeof(float) * (2 * n * n + 4 * block * n + 2 * block * block) +
                       sizeof(std::int32_t) * (block * n + block * block);
    return (3.0 * sizeof(float) + successors) * n * n + 12.0 * edges +
           (12.0 + 32.0 + 16.0) * edges + (24.0 + 8.0) * n + std::max(multidevice, mpi) + history;
  };
  // cuda_blocked: the matrix and its initial state, and 64-wide history and snapshot panels;
  // the others need less. With paths (optimize) the successors too.
  w.device_bytes = [](const Params& params) {
    const Problem& p = problem_of(params);
    const double n = double(p.n_given);
    const double successors = p.paths ? sizeof(std::int32_t) : 0.0;
    return (2.0 * sizeof(float) + successors) * n * n +
           2.0 * sizeof(float) * n * std::max<double>(64, double(p.block));
  };
  return w;
}

std::vector<Edge> generate_graph(const Problem& p) {
  const std::int64_t count = std::int64_t(p.n) * p.edges_per_vertex;
  const float sign = p.semiring == Semiring::max_plus ? 1.0f : -1.0f;
  std::vector<Edge> edges;
  edges.reserve(static_cast<std::size_t>(count));
  // The edges drawn so far, by from * n + to: 20 n of them, not a bit for each of the n^2
  // pairs, which past a few 100 000 vertices would not fit before the memory check could refuse.
  std::unordered_set<std::uint64_t> present;
  present.reserve(static_cast<std::size_t>(count));
  if (p.generator == Generator::seed) {
    std::srand(static_cast<unsigned>(p.n));
    while (std::int64_t(edges.size()) < count) {
      const int prev = std::rand() % p.n;
      const int next = std::rand() % p.n;
      if (prev == next || !present.insert(std::uint64_t(prev) * p.n + next).second) continue;
      edges.push_back({prev, next, sign * float(std::log((std::rand() % 99 + 1.0) / 100))});
    }
  } else {
    std::mt19937_64 rng(p.random_seed);
    while (std::int64_t(edges.size()) < count) {
      const int prev = static_cast<int>(rng() % std::uint64_t(p.n));
      const int next = static_cast<int>(rng() % std::uint64_t(p.n));
      if (prev == next || !present.insert(std::uint64_t(prev) * p.n + next).second) continue;
      const double u = 0.01 + 0.99 * double(rng() >> 11) * 0x1p-53;  // [0.01, 1)
      edges.push_back({prev, next, sign * float(std::log(u))});
    }
  }
  return edges;
}

std::vector<std::pair<int, int>> seed_test_pairs(const Problem& p) {
  // The generator's state is where generate_graph left it: draw the graph again first.
  generate_graph(p);
  std::vector<std::pair<int, int>> pairs;
  while (pairs.size() < 20) {
    const int prev = std::rand() % p.n;
    const int next = std::rand() % p.n;
    if (prev != next) pairs.push_back({prev, next});
  }
  return pairs;
}

std::vector<std::string> seed_test_lines(const Problem& p, const std::vector<float>& d) {
  std::vector<std::string> lines;
  for (const auto& [prev, next] : seed_test_pairs(p)) {
    lines.push_back(fmt::format("test {} {} {:f}", prev, next, d[std::size_t(prev) * p.n + next]));
  }
  return lines;
}

std::vector<float> initial_matrix(const Problem& p, const std::vector<Edge>& edges) {
  std::vector<float> d(static_cast<std::size_t>(p.elements()), p.none());
  for (int i = 0; i < p.n; ++i) d[std::size_t(i) * p.n + i] = 0.0f;
  for (const Edge& e : edges) {
    float& slot = d[std::size_t(e.from) * p.n + e.to];
    // -0 stored as +0: no sum of the matrix's values is then -0, so a GPU's max/min
    // instruction (which may order the zeros) and the serial loop's comparison agree bitwise.
    const float w = e.weight + 0.0f;
    slot = p.semiring == Semiring::max_plus ? std::max(slot, w) : std::min(slot, w);
  }
  return d;
}

void initial_successors(const Problem& p, const float* initial, std::int32_t* next) {
  const float none = p.none();
  for (int i = 0; i < p.n; ++i) {
    const float* row = initial + std::size_t(i) * p.n;
    std::int32_t* out = next + std::size_t(i) * p.n;
    for (int j = 0; j < p.n; ++j) out[j] = i == j || row[j] != none ? j : -1;
  }
}

ApspInstance::ApspInstance(const Params& params) : p_(problem_of(params)) {}

void ApspInstance::setup() {
  initial_ = initial_matrix(p_, graph_ ? *graph_ : generate_graph(p_));
  d_ = initial_;
  if (p_.paths) {
    next_.resize(initial_.size());
    initial_successors(p_, initial_.data(), next_.data());
  }
}

void ApspInstance::reset() {
  std::memcpy(d_.data(), initial_.data(), initial_.size() * sizeof(float));
  if (p_.paths) initial_successors(p_, initial_.data(), next_.data());
}

}  // namespace acclab::apsp
