// Problem definition, graph generators, parameters and verification shared by every apsp
// variant.
#include "workloads/apsp/apsp.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <queue>
#include <random>
#include <set>
#include <utility>

#include "core/compare.hpp"
#include "core/error.hpp"

namespace acclab::apsp {

Problem problem_of(const Params& params) {
  Problem p;
  p.n = static_cast<int>(std::min<std::int64_t>(params.integer("n"), 1 << 30));
  p.semiring = params.text("semiring") == "min-plus" ? Semiring::min_plus : Semiring::max_plus;
  p.generator = params.text("graph") == "random" ? Generator::random : Generator::seed;
  p.edges_per_vertex =
      static_cast<int>(std::min<std::int64_t>(params.integer("edges_per_vertex"), 1 << 30));
  p.random_seed = static_cast<std::uint64_t>(params.integer("random_seed"));
  p.devices = static_cast<int>(std::min<std::int64_t>(params.integer("devices"), 1 << 20));
  p.block = static_cast<int>(std::min<std::int64_t>(params.integer("block"), 1 << 20));
  p.paths = params.flag("paths");
  p.share_gpus = params.flag("share_gpus");
  const std::string lookahead = params.text("lookahead");
  p.lookahead = lookahead == "on"    ? Problem::Lookahead::on
                : lookahead == "off" ? Problem::Lookahead::off
                                     : Problem::Lookahead::automatic;
  const std::string unroll = params.text("unroll");
  p.unroll = unroll == "auto" ? 0 : std::stoi(unroll);
  return p;
}

int columns_per_lane(const Problem& p) {
  if (p.unroll > 0) return p.unroll;
  int u = 16;
  while (u > 1 && 4 * optimize_lanes * u > p.n) u /= 2;
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
       .help = "multidevice: pivot rows exchanged at once (rows per partition are multiples)",
       .presets = same_in_all_presets("64"),
       .maximum = 1024},
      {.key = "lookahead",
       .type = ParamType::text,
       .help = "multidevice: the next pivot rows' owner steps them, and starts their copy, before "
               "the rest of the round (auto: with two or more partitions)",
       .presets = same_in_all_presets("auto"),
       .choices = {"auto", "on", "off"}},
      {.key = "share_gpus",
       .type = ParamType::boolean,
       .help = "multidevice, cuda_blocked_multi: 1 lets partitions share GPUs (partition q on GPU "
               "q mod GPUs), each with its own queues: the exchange checked on one GPU",
       .presets = same_in_all_presets("0")},
      {.key = "unroll",
       .type = ParamType::text,
       .help = "optimize, managed: columns a vector lane relaxes an iteration, its loads issued "
               "together (auto: 16 from n = 16384 up, fewer on smaller rows)",
       .presets = same_in_all_presets("auto"),
       .choices = {"auto", "1", "2", "4", "8", "16"}},
      {.key = "paths",
       .type = ParamType::boolean,
       .help = "1: keep the successor matrix (n^2 int32 more; serial, multicore, optimize, "
               "multidevice), verified against the serial loop's and by re-summing paths",
       .presets = same_in_all_presets("0")},
  };
  w.validate = [](const Params& params) {
    const std::int64_t n = params.integer("n");
    // n^2 indices are 32-bit ints in the GPU kernels.
    if (n > 46340) throw UsageError(fmt::format("--set n={}: n^2 reaches 2^31", n));
    const std::int64_t edges = params.integer("edges_per_vertex");
    if (edges > n - 1) {
      throw UsageError(fmt::format(
          "--set edges_per_vertex={}: more than the n - 1 = {} distinct edges a vertex can have",
          edges, n - 1));
    }
  };
  // The matrix and its initial state, the cached reference, the edge list; with paths the
  // successors, the reference's and multidevice's partition copies.
  w.host_bytes = [](const Params& params) {
    const double n = double(params.integer("n"));
    const double successors = params.flag("paths") ? 3.0 * sizeof(std::int32_t) : 0.0;
    // The edges (12 bytes each), and verify()'s Dijkstra: the graph again, its adjacency lists
    // (16 bytes an edge, twice for the vectors' growth, 24 a vertex), its heap (16 an edge) and
    // a row of distances.
    const double edges = n * double(params.integer("edges_per_vertex"));
    // The variant that needs the most: multidevice, whose partitions hold their rows apart
    // from the matrix, each its two snapshot slots (2 block x n) and its history (block x its
    // rows), and two published snapshots on the host; with paths the successors' history
    // (their rows are among `successors`).
    const double block = double(params.integer("block"));
    const double partitions = double(params.integer("devices"));
    const double multidevice =
        sizeof(float) * (n * n + partitions * 2 * block * n + block * n + 2 * block * n) +
        (params.flag("paths") ? sizeof(std::int32_t) * block * n : 0.0);
    return (3.0 * sizeof(float) + successors) * n * n + 12.0 * edges +
           (12.0 + 32.0 + 16.0) * edges + (24.0 + 8.0) * n + multidevice;
  };
  // cuda_blocked: the matrix and its initial state, and 64-wide history and snapshot panels;
  // the others need less. With paths (optimize) the successors too.
  w.device_bytes = [](const Params& params) {
    const double n = double(params.integer("n"));
    const double successors = params.flag("paths") ? sizeof(std::int32_t) : 0.0;
    return (2.0 * sizeof(float) + successors) * n * n +
           2.0 * sizeof(float) * n * std::max<double>(64, double(params.integer("block")));
  };
  return w;
}

std::vector<Edge> generate_graph(const Problem& p) {
  const std::int64_t count = std::int64_t(p.n) * p.edges_per_vertex;
  const float sign = p.semiring == Semiring::max_plus ? 1.0f : -1.0f;
  std::vector<Edge> edges;
  edges.reserve(static_cast<std::size_t>(count));
  std::vector<bool> present(static_cast<std::size_t>(p.elements()), false);
  if (p.generator == Generator::seed) {
    std::srand(static_cast<unsigned>(p.n));
    while (std::int64_t(edges.size()) < count) {
      const int prev = std::rand() % p.n;
      const int next = std::rand() % p.n;
      const std::size_t at = std::size_t(prev) * p.n + next;
      if (prev == next || present[at]) continue;
      present[at] = true;
      edges.push_back({prev, next, sign * float(std::log((std::rand() % 99 + 1.0) / 100))});
    }
  } else {
    std::mt19937_64 rng(p.random_seed);
    while (std::int64_t(edges.size()) < count) {
      const int prev = static_cast<int>(rng() % std::uint64_t(p.n));
      const int next = static_cast<int>(rng() % std::uint64_t(p.n));
      const std::size_t at = std::size_t(prev) * p.n + next;
      if (prev == next || present[at]) continue;
      present[at] = true;
      const double u = 0.01 + 0.99 * double(rng() >> 11) * 0x1p-53;  // [0.01, 1)
      edges.push_back({prev, next, sign * float(std::log(u))});
    }
  }
  return edges;
}

std::vector<std::string> seed_test_lines(const Problem& p, const std::vector<float>& d) {
  // The generator's state is where generate_graph left it: draw the graph again first.
  generate_graph(p);
  std::vector<std::string> lines;
  while (lines.size() < 20) {
    const int prev = std::rand() % p.n;
    const int next = std::rand() % p.n;
    if (prev == next) continue;
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

bool supports_paths(std::string_view variant) {
  return std::find(paths_variants.begin(), paths_variants.end(), variant) != paths_variants.end();
}

bool uses_devices(std::string_view variant) {
  return std::find(devices_variants.begin(), devices_variants.end(), variant) !=
         devices_variants.end();
}

void initial_successors(const Problem& p, const float* initial, std::int32_t* next) {
  const float none = p.none();
  for (int i = 0; i < p.n; ++i) {
    const float* row = initial + std::size_t(i) * p.n;
    std::int32_t* out = next + std::size_t(i) * p.n;
    for (int j = 0; j < p.n; ++j) out[j] = i == j || row[j] != none ? j : -1;
  }
}

std::vector<int> successor_path(const Problem& p, const std::int32_t* next, int u, int v) {
  if (u == v) return {u};
  if (next[std::size_t(u) * p.n + v] < 0) return {};
  std::vector<int> path = {u};
  for (int x = u; x != v && int(path.size()) < p.n;) {
    x = next[std::size_t(x) * p.n + v];
    if (x < 0 || x >= p.n) break;
    path.push_back(x);
  }
  return path;
}

double path_length(const Problem& p, const float* initial, const std::vector<int>& path) {
  double length = 0;
  for (std::size_t s = 0; s + 1 < path.size(); ++s) {
    const float w = initial[std::size_t(path[s]) * p.n + path[s + 1]];
    if (w == p.none() || path[s] == path[s + 1]) return p.none();
    length += w;
  }
  return length;
}

double rounding_bound(const Problem& p, double sum_abs, float d) {
  return double(p.n) * 0x1p-24 * std::max(sum_abs, double(std::abs(d))) + 1e-30;
}

PathCheck check_successor_paths(const Problem& p, const float* initial, const float* d,
                                const std::int32_t* next, const std::vector<int>& sources) {
  PathCheck check;
  Difference worst;  // the largest difference over its bound, indexed u n + v
  auto fail = [&](int u, int v, const std::string& what) {
    if (check.broken++ == 0) check.first_broken = fmt::format("path {} -> {}: {}", u, v, what);
  };
  for (int u : sources) {
    if (next[std::size_t(u) * p.n + u] != u) fail(u, u, "next[u][u] is not u");
    for (int v = 0; v < p.n; ++v) {
      if (v == u) continue;
      const float duv = d[std::size_t(u) * p.n + v];
      const std::int32_t first = next[std::size_t(u) * p.n + v];
      if (duv == p.none()) {
        if (first != -1) fail(u, v, fmt::format("unreachable, yet successor {}", first));
        continue;
      }
      ++check.paths;
      const auto path = successor_path(p, next, u, v);
      if (path.empty() || path.back() != v) {
        fail(u, v,
             fmt::format("the successors stop at {} after {} edges", path.empty() ? u : path.back(),
                         path.size() - 1));
        continue;
      }
      const double along = path_length(p, initial, path);
      if (along == double(p.none())) {
        fail(u, v, "the successors step along a missing edge");
        continue;
      }
      double sum_abs = 0;
      for (std::size_t s = 0; s + 1 < path.size(); ++s) {
        sum_abs += std::abs(initial[std::size_t(path[s]) * p.n + path[s + 1]]);
      }
      const double over = std::abs(along - double(duv)) / rounding_bound(p, sum_abs, duv);
      fold_difference(worst, over, std::int64_t(u) * p.n + v);
      check.worst_over_bound = worst.value;
      if (!(over <= 1.0)) {
        fail(u, v, fmt::format("length {} along the path, {} in the matrix", along, duv));
      }
    }
  }
  return check;
}

std::string matrix_digest(const Problem& p, const float* d) {
  // FNV-1a over 32-bit words: not cryptographic, enough to tell two results apart.
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (std::int64_t e = 0; e < p.elements(); ++e) {
    std::uint32_t bits;
    std::memcpy(&bits, &d[e], sizeof bits);
    hash = (hash ^ bits) * 0x100000001b3ULL;
  }
  return fmt::format("{:016x}", hash);
}

std::optional<int> cycle_vertex(const Problem& p, const float* d) {
  for (int i = 0; i < p.n; ++i) {
    const float dii = d[std::size_t(i) * p.n + i];
    if (p.semiring == Semiring::max_plus ? dii > 0.0f : dii < 0.0f) return i;
  }
  return std::nullopt;
}

std::vector<int> best_path(const Problem& p, const float* d, const std::vector<Edge>& edges, int u,
                           int v) {
  if (u == v) return {u};
  const auto at = [&](int a, int b) { return d[std::size_t(a) * p.n + b]; };
  if (at(u, v) == p.none()) return {};
  // Tight edges: (x, w) whose weight plus d[w][v] gives d[x][v], to float rounding (the matrix
  // summed the same weights in another order). A breadth-first search over them from u finds a
  // path to v whenever one exists, zero-weight cycles included.
  const auto tight = [&](const Edge& e) {
    const float dwv = at(e.to, v), dxv = at(e.from, v);
    if (dwv == p.none() || dxv == p.none()) return false;
    const float slack = 1e-5f * std::max({1.0f, std::abs(dxv), std::abs(e.weight)});
    return std::abs(e.weight + dwv - dxv) <= slack;
  };
  std::vector<std::vector<int>> out(static_cast<std::size_t>(p.n));
  for (const Edge& e : edges) {
    if (tight(e)) out[e.from].push_back(e.to);
  }
  std::vector<int> parent(static_cast<std::size_t>(p.n), -1);
  std::vector<int> queue = {u};
  parent[u] = u;
  for (std::size_t head = 0; head < queue.size() && parent[v] < 0; ++head) {
    const int x = queue[head];
    for (int w : out[x]) {
      if (parent[w] >= 0) continue;
      parent[w] = x;
      queue.push_back(w);
    }
  }
  if (parent[v] < 0) return {};
  std::vector<int> path;
  for (int x = v; x != u; x = parent[x]) path.push_back(x);
  path.push_back(u);
  std::reverse(path.begin(), path.end());
  return path;
}

namespace {

// Dijkstra from `source` on costs >= 0 (max-plus weights negated), in double: the best path
// lengths, +inf where unreachable, and each length's sum of |weights| (for the rounding bound).
std::vector<double> dijkstra(const Problem& p,
                             const std::vector<std::vector<std::pair<int, double>>>& out,
                             int source) {
  std::vector<double> dist(static_cast<std::size_t>(p.n), std::numeric_limits<double>::infinity());
  using Item = std::pair<double, int>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> queue;
  dist[source] = 0;
  queue.push({0.0, source});
  while (!queue.empty()) {
    const auto [du, u] = queue.top();
    queue.pop();
    if (du > dist[u]) continue;
    for (const auto& [v, cost] : out[u]) {
      if (du + cost < dist[v]) {
        dist[v] = du + cost;
        queue.push({dist[v], v});
      }
    }
  }
  return dist;
}

}  // namespace

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

Verification ApspInstance::verify() {
  Verification v;
  // Until a check below runs: nothing compared, nothing verified.
  v.outputs["tolerance"] = 0;
  v.outputs["difference"] = std::numeric_limits<double>::infinity();
  if (const auto cycle = cycle_vertex(p_, d_.data())) {
    v.detail = fmt::format("vertex {} lies on a {} cycle (d[{}][{}] = {})", *cycle,
                           p_.semiring == Semiring::max_plus ? "positive" : "negative", *cycle,
                           *cycle, d_[std::size_t(*cycle) * p_.n + *cycle]);
    return v;
  }
  std::string serial =
      fmt::format("not compared with the serial loop (n > {})", serial_check_limit);
  std::int64_t differ = 0;
  if (graph_) {
    // reference_result() and the check below draw the generated graph, not this one.
    v.detail = "not verified: a user's graph (acclab apsp checks cycles and overflow instead)";
    return v;
  }
  if (p_.n <= serial_check_limit) {
    const auto& reference = reference_result(p_);
    std::int64_t first = -1;
    for (std::int64_t e = 0; e < p_.elements(); ++e) {
      if (std::memcmp(&d_[e], &reference[e], sizeof(float)) != 0) {
        if (first < 0) first = e;
        ++differ;
      }
    }
    serial = differ == 0 ? "bitwise equal to the serial loop"
                         : fmt::format(
                               "{} elements differ from the serial loop, first ({}, {}): {} "
                               "against {}",
                               differ, first / p_.n, first % p_.n, d_[first], reference[first]);
  }
  // Sampled sources against Dijkstra on the same graph (costs -w for max-plus, w for min-plus,
  // all >= 0 for the generated graphs). Float sums of a path's L weights of one sign are within
  // L u sum|w| = L u |length| of the exact length (u = 2^-24), and L < n.
  std::vector<std::vector<std::pair<int, double>>> out(static_cast<std::size_t>(p_.n));
  for (const Edge& e : generate_graph(p_)) {
    out[e.from].push_back(
        {e.to, p_.semiring == Semiring::max_plus ? -double(e.weight) : double(e.weight)});
  }
  // Every row up to dijkstra_all_rows_limit (so that the serial loop, the reference of the
  // bitwise check, is itself checked whole), 8 sampled rows above.
  const int sources = p_.n <= dijkstra_all_rows_limit ? p_.n : std::min(p_.n, 8);
  std::vector<int> rows;
  for (int s = 0; s < sources; ++s) rows.push_back(int(std::int64_t(s) * p_.n / sources));
  Difference worst;  // the largest difference over its bound, indexed source n + j
  std::int64_t mismatched = 0;
  for (const int source : rows) {
    const auto dist = dijkstra(p_, out, source);
    for (int j = 0; j < p_.n; ++j) {
      const double expected = p_.semiring == Semiring::max_plus ? -dist[j] : dist[j];
      const double got = d_[std::size_t(source) * p_.n + j];
      if (std::isinf(expected) || std::isinf(got)) {
        mismatched += expected != got;
        continue;
      }
      const double diff = std::abs(got - expected);
      const double bound = double(p_.n) * 0x1p-24 * std::abs(expected) + 1e-30;
      mismatched += !(diff <= bound);
      fold_difference(worst, diff / bound, std::int64_t(source) * p_.n + j);
    }
  }
  v.ok = differ == 0 && mismatched == 0;
  // The primary check: bitwise against the serial loop (tolerance 0, the count of differing
  // elements); above serial_check_limit the Dijkstra rows (their worst difference over its
  // bound, tolerance 1).
  if (p_.n <= serial_check_limit) {
    v.outputs["tolerance"] = 0;
    v.outputs["difference"] = differ;
  } else {
    v.outputs["tolerance"] = 1.0;
    v.outputs["difference"] =
        mismatched > 0 && worst.value <= 1 ? std::numeric_limits<double>::infinity() : worst.value;
  }
  v.outputs["rows_checked_by_dijkstra"] = sources;
  v.outputs["matrix_digest"] = matrix_digest(p_, d_.data());
  v.outputs["dijkstra_worst_over_bound"] = worst.value;
  v.detail = fmt::format("{}; {} {} rows {} Dijkstra within n u |length|{}", serial,
                         sources == p_.n ? "all" : "sampled", sources,
                         mismatched == 0 ? "match" : "do not match",
                         mismatched == 0 ? "" : fmt::format(" ({} elements)", mismatched));
  if (p_.paths) {
    std::string successors =
        fmt::format("successors not compared with the serial loop's (n > {})", serial_check_limit);
    std::int64_t next_differ = 0;
    if (p_.n <= serial_check_limit) {
      const auto& reference = reference_successors(p_);
      std::int64_t first = -1;
      for (std::int64_t e = 0; e < p_.elements(); ++e) {
        if (next_[e] != reference[e]) {
          if (first < 0) first = e;
          ++next_differ;
        }
      }
      successors =
          next_differ == 0
              ? "successors equal to the serial loop's"
              : fmt::format(
                    "{} successors differ from the serial loop's, first ({}, {}): "
                    "{} against {}",
                    next_differ, first / p_.n, first % p_.n, next_[first], reference[first]);
    }
    const PathCheck paths =
        check_successor_paths(p_, initial_.data(), d_.data(), next_.data(), rows);
    v.ok = v.ok && next_differ == 0 && paths.broken == 0;
    v.outputs["paths_checked"] = paths.paths;
    v.outputs["paths_worst_over_bound"] = paths.worst_over_bound;
    v.detail += fmt::format("; {}; {} paths from the Dijkstra rows {}", successors, paths.paths,
                            paths.broken == 0 ? "re-sum to their distances"
                                              : fmt::format("checked, {} broken, first {}",
                                                            paths.broken, paths.first_broken));
  }
  return v;
}

void ApspInstance::corrupt_result() {
  float& x = d_[std::size_t(p_.n / 2) * p_.n + (p_.n / 2 + 1) % p_.n];
  x = std::isinf(x) ? 0.0f : x + 0.5f;
  // Row 0 is a sampled source: its path to 1 now goes nowhere.
  if (p_.paths) next_[1] = -1;
}

}  // namespace acclab::apsp
