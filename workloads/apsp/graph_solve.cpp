#include "workloads/apsp/graph_solve.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string_view>

#include "core/error.hpp"
#include "core/runner.hpp"

namespace acclab::apsp {
namespace {

bool has_tuning(const Variant& variant, std::string_view tuning) {
  return std::find(variant.tunings.begin(), variant.tunings.end(), tuning) != variant.tunings.end();
}

// A GPU variant runs where it is meant to only on a GPU: OpenACC's fallback to the host is
// slower than the CPU variants.
bool runs_on_a_gpu_here(const Variant& variant, Machine& machine) {
  switch (variant.backend) {
    case Backend::cuda:
      return machine.cuda_available();
    case Backend::openacc:
      return machine.openacc_runs_on_gpu();
    default:
      return false;
  }
}

void check_size(const UserGraph& user) {
  if (user.graph.n > max_graph_vertices) {
    throw UsageError(
        fmt::format("{}: {} vertices: the dense n x n matrix would reach 2^31 elements (at most "
                    "{} vertices)",
                    user.source, user.graph.n, max_graph_vertices));
  }
  if (user.graph.n < 1) throw UsageError(fmt::format("{}: no vertices", user.source));
}

// The graph's edges as the variants take them, each weight within float's range.
std::vector<Edge> float_edges(const UserGraph& user) {
  std::vector<Edge> edges;
  edges.reserve(user.graph.edges.size());
  for (const auto& e : user.graph.edges) {
    if (!(std::abs(e.weight) <= std::numeric_limits<float>::max())) {
      throw UsageError(fmt::format("{}: edge {} -> {}: weight {} outside float range", user.source,
                                   e.from + user.base, e.to + user.base, e.weight));
    }
    edges.push_back({int(e.from), int(e.to), float(e.weight)});
  }
  return edges;
}

// The named (or default) variant, refused where it cannot run as asked.
const Variant& chosen_variant(const GraphSolveOptions& options, const Registry& registry,
                              Machine& machine) {
  const std::string name = options.variant.empty()
                               ? default_graph_variant(registry, machine, options.paths).name
                               : options.variant;
  const auto selected = registry.select("apsp", name);
  if (selected.size() != 1 || selected[0]->name != name) {
    throw UsageError(fmt::format("--variant {}: expected one apsp variant (acclab list)", name));
  }
  const Variant& variant = *selected[0];
  if (options.devices != 1 && !has_tuning(variant, "devices")) {
    std::vector<std::string> splitting;
    for (const auto& v : registry.variants()) {
      if (v.workload == "apsp" && has_tuning(v, "devices")) splitting.push_back(v.name);
    }
    throw UsageError(
        fmt::format("--devices {}: --variant {} runs on one device (only {} split over several)",
                    options.devices, name, fmt::join(splitting, " and ")));
  }
  if (variant.backend == Backend::cuda && !machine.cuda_available()) {
    throw UsageError(fmt::format("--variant {}: no CUDA GPU on this machine", name));
  }
  return variant;
}

// The result refused where paths are undefined or their lengths do not fit in a float.
void check_result(const UserGraph& user, const Problem& p, const std::vector<float>& d) {
  const bool longest = p.semiring == Semiring::max_plus;
  if (const auto cycle = cycle_vertex(p, d.data())) {
    throw UsageError(fmt::format(
        "{}: vertex {} lies on a {} cycle, so {} paths through it are undefined (no output "
        "written)",
        user.source, *cycle + user.base, longest ? "positive" : "negative",
        longest ? "longest" : "shortest"));
  }
  // Sums past the float range: +inf in max-plus (-inf in min-plus) is no path length, and
  // opposite infinities make NaN. (A positive cycle also grows values without bound: the
  // cycle is reported first.)
  for (std::int64_t e = 0; e < p.elements(); ++e) {
    const float x = d[e];
    if (std::isnan(x) || (std::isinf(x) && x != p.none())) {
      throw UsageError(fmt::format(
          "{}: the distance from {} to {} overflows float ({}); scale the weights down (no "
          "output written)",
          user.source, e / p.n + user.base, e % p.n + user.base, x));
    }
  }
}

std::vector<std::int64_t> user_ids(const std::vector<int>& path, std::int64_t base) {
  std::vector<std::int64_t> ids;
  for (int x : path) ids.push_back(x + base);
  return ids;
}

// The queried path along the successors the variant kept, its weights re-summed from the
// initial matrix (the best of parallel edges) and checked against the distance.
PathQuery query_successors(const Problem& p, const ApspInstance& result, int u, int v,
                           std::int64_t base) {
  PathQuery q;
  q.from = u + base;
  q.to = v + base;
  q.length = result.result()[std::size_t(u) * p.n + v];
  const std::vector<int> path = successor_path(p, result.successors().data(), u, v);
  q.vertices = user_ids(path, base);
  if (path.empty() && q.length == p.none()) {
    q.outcome = PathQuery::Outcome::unreachable;
    return q;
  }
  if (path.empty() || path.back() != v) {
    q.outcome = PathQuery::Outcome::stops_short;
    return q;
  }
  const float* initial = result.initial().data();
  q.along = path_length(p, initial, path);
  double sum_abs = 0;
  for (std::size_t s = 0; s + 1 < path.size(); ++s) {
    sum_abs += std::abs(initial[std::size_t(path[s]) * p.n + path[s + 1]]);
  }
  q.outcome = std::abs(q.along - q.length) <= rounding_bound(p, sum_abs, q.length)
                  ? PathQuery::Outcome::found
                  : PathQuery::Outcome::does_not_resum;
  return q;
}

// The queried path read off the distances (best_path), its weights summed along it from the
// initial matrix, which holds the best of parallel edges once for every hop.
PathQuery query_distances(const Problem& p, const ApspInstance& result,
                          const std::vector<Edge>& edges, int u, int v, std::int64_t base) {
  PathQuery q;
  q.from = u + base;
  q.to = v + base;
  q.length = result.result()[std::size_t(u) * p.n + v];
  const std::vector<int> path = best_path(p, result.result().data(), edges, u, v);
  if (path.empty()) {
    q.outcome = PathQuery::Outcome::unreachable;
    return q;
  }
  q.vertices = user_ids(path, base);
  q.along = path_length(p, result.initial().data(), path);
  q.outcome = PathQuery::Outcome::found;
  return q;
}

}  // namespace

UserGraph read_user_graph(const std::string& path) {
  UserGraph user;
  const io::GraphFormat format = io::detect_graph_format(path);
  user.graph = io::read_graph(path);
  user.source = path;
  user.kind = std::string(io::to_string(format));
  user.base = io::first_vertex_id(format);
  check_size(user);
  return user;
}

UserGraph seed_user_graph(std::int64_t n, Semiring semiring) {
  if (n < 21 || n > max_graph_vertices) {
    throw UsageError(
        fmt::format("--seed-graph {}: expected 21 to {} vertices (20 distinct edges per vertex)", n,
                    max_graph_vertices));
  }
  UserGraph user;
  Problem seed;
  seed.n = int(n);
  seed.generator = Generator::seed;
  seed.semiring = semiring;
  user.graph.n = seed.n;
  for (const auto& e : generate_graph(seed)) user.graph.edges.push_back({e.from, e.to, e.weight});
  user.source = fmt::format("seed graph {}", seed.n);
  user.kind = "the seed's generator";
  user.seed = seed;
  return user;
}

const Variant& default_graph_variant(const Registry& registry, Machine& machine, bool paths) {
  // The fastest on a GPU first (docs/apsp.md has the figures): cuda_blocked, then, since it keeps
  // no successors, multidevice (blocked OpenACC), ahead of optimize's kernel a step. multicore is
  // the fastest CPU variant.
  constexpr std::array<std::string_view, 2> fastest_on_a_gpu = {"cuda_blocked", "multidevice"};
  constexpr std::string_view fastest_on_the_cpu = "multicore";
  for (const std::string_view name : fastest_on_a_gpu) {
    for (const Variant& v : registry.variants()) {
      if (v.workload == "apsp" && v.name == name && (!paths || has_tuning(v, "paths")) &&
          runs_on_a_gpu_here(v, machine)) {
        return v;
      }
    }
  }
  for (const Variant& v : registry.variants()) {
    if (v.workload == "apsp" && v.name == fastest_on_the_cpu) return v;
  }
  throw std::logic_error("apsp: no multicore variant registered");
}

bool GraphSolution::paths_ok() const {
  const bool query_ok = !query || (query->outcome != PathQuery::Outcome::stops_short &&
                                   query->outcome != PathQuery::Outcome::does_not_resum);
  return query_ok && (!path_check || path_check->broken == 0);
}

std::span<const float> GraphSolution::distances() const {
  if (!unpadded.empty()) return unpadded;
  return static_cast<const ApspInstance&>(*instance).result();
}

GraphSolution solve_graph(const UserGraph& user, const GraphSolveOptions& options,
                          const Registry& registry, Machine& machine) {
  check_size(user);
  const std::int64_t n = user.graph.n, base = user.base;
  const std::vector<Edge> edges = float_edges(user);
  std::optional<std::pair<int, int>> query;
  if (options.query) {
    const auto [from, to] = *options.query;
    for (const std::int64_t id : {from, to}) {
      if (id < base || id >= n + base) {
        throw UsageError(fmt::format("--query {} {}: vertex {} outside {}..{}", from, to, id, base,
                                     n - 1 + base));
      }
    }
    query.emplace(int(from - base), int(to - base));
  }

  const Variant& variant = chosen_variant(options, registry, machine);
  const Workload& workload = registry.workload("apsp");
  const bool min_plus = options.semiring == Semiring::min_plus;
  const Params params = Params::resolve(
      workload.params, "small",
      {fmt::format("n={}", std::max<std::int64_t>(n, 2)),
       std::string("semiring=") + (min_plus ? "min-plus" : "max-plus"), "edges_per_vertex=1",
       fmt::format("devices={}", options.devices), fmt::format("paths={}", options.paths ? 1 : 0)});
  workload.validate(params);
  // In the graph's own terms before the runner's check, which also covers device memory.
  const double need = workload.host_bytes(params), have = machine.host().available_bytes;
  if (have > 0 && need > have) {
    throw UsageError(
        fmt::format("{}: {} vertices need {:.2f} GiB of host memory, {:.2f} GiB "
                    "available",
                    user.source, n, need / 1073741824.0, have / 1073741824.0));
  }
  Runner(machine).check_memory(variant, workload, params);

  GraphSolution solution;
  solution.variant = variant.name;
  solution.semiring = options.semiring;
  solution.instance = variant.factory(params);
  auto* result = dynamic_cast<ApspInstance*>(solution.instance.get());
  if (!result) throw std::logic_error("apsp variant without an ApspInstance");
  // A one-vertex graph runs as two vertices, the second isolated.
  result->set_graph(edges);
  solution.instance->setup();
  solution.instance->reset();
  if (options.progress) {
    options.progress(fmt::format("apsp {}: {} on {} vertices", user.source, variant.name, n));
  }
  const auto start = std::chrono::steady_clock::now();
  solution.instance->run();
  solution.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  solution.instance->finish();

  const Problem p = problem_of(params);
  const std::vector<float>& d = result->result();
  check_result(user, p, d);
  const bool longest = p.semiring == Semiring::max_plus;
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      const float x = d[std::size_t(i) * p.n + j];
      if (i == j || x == p.none()) continue;
      ++solution.reachable;
      if (!solution.extreme || (longest ? x > *solution.extreme : x < *solution.extreme)) {
        solution.extreme = x;
      }
    }
  }
  if (user.seed) solution.seed_lines = seed_test_lines(*user.seed, d);
  if (options.paths) {
    // Sources spread over the graph's vertices, every target each.
    solution.path_sources = int(std::min<std::int64_t>(n, 8));
    std::vector<int> rows;
    for (int s = 0; s < solution.path_sources; ++s) {
      rows.push_back(int(std::int64_t(s) * n / solution.path_sources));
    }
    solution.path_check = check_successor_paths(p, result->initial().data(), d.data(),
                                                result->successors().data(), rows);
  }
  if (query) {
    solution.query = options.paths
                         ? query_successors(p, *result, query->first, query->second, base)
                         : query_distances(p, *result, edges, query->first, query->second, base);
  }
  if (n != p.n) {
    solution.unpadded.resize(std::size_t(n) * n);
    for (std::int64_t i = 0; i < n; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        solution.unpadded[std::size_t(i) * n + j] = d[std::size_t(i) * p.n + j];
      }
    }
  }
  return solution;
}

}  // namespace acclab::apsp
