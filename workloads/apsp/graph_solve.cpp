#include "workloads/apsp/graph_solve.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string_view>

#include "core/error.hpp"
#include "core/mpi_env.hpp"
#include "core/runner.hpp"
#ifdef ACCLAB_HAVE_MPI
#include "workloads/apsp/mpi_solve.hpp"
#endif

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
  if (user.graph.n > max_vertices) {
    throw UsageError(fmt::format("{}: {} vertices: more than the {} apsp takes", user.source,
                                 user.graph.n, max_vertices));
  }
  if (user.graph.n < 1) throw UsageError(fmt::format("{}: no vertices", user.source));
}

// The graph's edges as the variants take them. A weight that is not 0 must round to a normal
// float: 1e39 would become infinity and 1e-50 silently 0. The graph reader (src/io/graph.cpp)
// refuses such a weight with its file's line, in the same words; this holds graphs built
// otherwise to the same rule.
std::vector<Edge> float_edges(const UserGraph& user) {
  std::vector<Edge> edges;
  edges.reserve(user.graph.edges.size());
  for (const auto& e : user.graph.edges) {
    if (e.weight != 0 && !std::isnormal(static_cast<float>(e.weight))) {
      throw UsageError(fmt::format(
          "{}: edge {} -> {}: weight {} outside float range: a nonzero weight needs {:g} <= "
          "|weight| <= {:g} (apsp computes in float)",
          user.source, e.from + user.base, e.to + user.base, e.weight,
          std::numeric_limits<float>::min(), std::numeric_limits<float>::max()));
    }
    edges.push_back({int(e.from), int(e.to), float(e.weight)});
  }
  return edges;
}

// The named (or default) variant, refused where it cannot run as asked.
const Variant& chosen_variant(const UserGraph& user, const GraphSolveOptions& options,
                              const Registry& registry, Machine& machine) {
  const std::string name =
      options.variant.empty()
          ? default_graph_variant(registry, machine, options.paths, user.graph.n).name
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
  if (user.graph.n > max_vertices_of(name)) {
    throw UsageError(fmt::format("{}: {} vertices: --variant {} {}", user.source, user.graph.n,
                                 name, narrow_step_limit()));
  }
  return variant;
}

// The result refused where paths are undefined or their lengths do not fit in a float.
void check_result(const UserGraph& user, const Problem& p, const std::vector<float>& d) {
  if (const auto cycle = cycle_vertex(p, d.data())) refuse_cycle(user, p, *cycle);
  // Sums past the float range: +inf in max-plus (-inf in min-plus) is no path length, and
  // opposite infinities make NaN. (A positive cycle also grows values without bound: the
  // cycle is reported first.)
  for (std::int64_t e = 0; e < p.elements(); ++e) {
    if (overflows(p, d[e])) refuse_overflow(user, p, e, d[e]);
  }
}

// The reader of a result held whole in one process.
ResultReader array_reader(const Problem& p, const ApspInstance& result) {
  const auto at = [&p](int u, int v) { return std::size_t(u) * p.n + v; };
  return {.distance = [&, at](int u, int v) { return result.result()[at(u, v)]; },
          .successor = [&, at](int u, int v) { return result.successors()[at(u, v)]; },
          .walk = [&](int u, int v) { return successor_path(p, result.successors().data(), u, v); },
          .weight = [&, at](int x, int y) { return result.initial()[at(x, y)]; }};
}

std::vector<std::int64_t> user_ids(const std::vector<int>& path, std::int64_t base) {
  std::vector<std::int64_t> ids;
  for (int x : path) ids.push_back(x + base);
  return ids;
}

}  // namespace

void refuse_cycle(const UserGraph& user, const Problem& p, int vertex) {
  const bool longest = p.semiring == Semiring::max_plus;
  throw UsageError(fmt::format(
      "{}: vertex {} lies on a {} cycle, so {} paths through it are undefined (no output "
      "written)",
      user.source, vertex + user.base, longest ? "positive" : "negative",
      longest ? "longest" : "shortest"));
}

void refuse_overflow(const UserGraph& user, const Problem& p, std::int64_t element, float value) {
  throw UsageError(
      fmt::format("{}: the distance from {} to {} overflows float ({}); scale the weights down (no "
                  "output written)",
                  user.source, element / p.n + user.base, element % p.n + user.base, value));
}

std::vector<int> path_check_sources(std::int64_t n) {
  // Sources spread over the graph's vertices, every target each.
  const int count = int(std::min<std::int64_t>(n, 8));
  std::vector<int> rows;
  for (int s = 0; s < count; ++s) rows.push_back(int(std::int64_t(s) * n / count));
  return rows;
}

PathQuery query_successors(const Problem& p, const ResultReader& read, int u, int v,
                           std::int64_t base) {
  PathQuery q;
  q.from = u + base;
  q.to = v + base;
  q.length = read.distance(u, v);
  const std::vector<int> path = read.walk(u, v);
  q.vertices = user_ids(path, base);
  if (path.empty() && q.length == p.none()) {
    q.outcome = PathQuery::Outcome::unreachable;
    return q;
  }
  if (path.empty() || path.back() != v) {
    q.outcome = PathQuery::Outcome::stops_short;
    return q;
  }
  q.along = path_length(p, read.weight, path);
  double sum_abs = 0;
  for (std::size_t s = 0; s + 1 < path.size(); ++s) {
    sum_abs += std::abs(read.weight(path[s], path[s + 1]));
  }
  q.outcome = std::abs(q.along - q.length) <= rounding_bound(p, sum_abs, q.length)
                  ? PathQuery::Outcome::found
                  : PathQuery::Outcome::does_not_resum;
  return q;
}

PathQuery query_distances(const Problem& p, std::span<const float> column, const ResultReader& read,
                          const std::vector<Edge>& edges, int u, int v, std::int64_t base) {
  PathQuery q;
  q.from = u + base;
  q.to = v + base;
  q.length = column[u];
  const std::vector<int> path = best_path_to(p, column, edges, u, v);
  if (path.empty()) {
    q.outcome = PathQuery::Outcome::unreachable;
    return q;
  }
  q.vertices = user_ids(path, base);
  q.along = path_length(p, read.weight, path);
  q.outcome = PathQuery::Outcome::found;
  return q;
}

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
  if (n < 21 || n > max_vertices) {
    throw UsageError(
        fmt::format("--seed-graph {}: expected 21 to {} vertices (20 distinct edges per vertex)", n,
                    max_vertices));
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

namespace {

// The apsp variant called `name`, or null where this build registers none.
const Variant* apsp_variant(const Registry& registry, std::string_view name) {
  for (const Variant& v : registry.variants()) {
    if (v.workload == "apsp" && v.name == name) return &v;
  }
  return nullptr;
}

}  // namespace

const Variant& default_graph_variant(const Registry& registry, Machine& machine, bool paths,
                                     std::int64_t vertices) {
  if (mpi::size() > 1) {
    // Under mpirun only the MPI steps run across the ranks: the fastest that runs here.
    for (const std::string_view name : {"mpi_cuda", "mpi_acc"}) {
      const Variant* v = apsp_variant(registry, name);
      if (v && runs_on_a_gpu_here(*v, machine) && (!paths || has_tuning(*v, "paths"))) return *v;
    }
    if (const Variant* host = apsp_variant(registry, "mpi_host")) return *host;
    throw std::logic_error("apsp: no mpi_host variant registered");
  }
  // One process: the fastest on a GPU first (docs/apsp.md has the figures): cuda_blocked, then,
  // since it keeps no successors, multidevice (blocked OpenACC), ahead of optimize's kernel a
  // step. Both index in 64 bits. multicore is the fastest CPU variant; past its 32-bit indices,
  // mpi_host on one rank.
  for (const std::string_view name : {"cuda_blocked", "multidevice"}) {
    const Variant* v = apsp_variant(registry, name);
    if (v && (!paths || has_tuning(*v, "paths")) && runs_on_a_gpu_here(*v, machine) &&
        vertices <= max_vertices_of(name)) {
      return *v;
    }
  }
  for (const std::string_view name : {"multicore", "mpi_host"}) {
    const Variant* v = apsp_variant(registry, name);
    if (v && vertices <= max_vertices_of(name)) return *v;
  }
  // multicore past its size: the caller refuses it, naming the steps that would take the graph.
  if (const Variant* cpu = apsp_variant(registry, "multicore")) return *cpu;
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

void GraphSolution::write_distances(const std::string& path, io::DenseFormat format,
                                    const std::string& option) const {
  if (spread) {
    spread->write(path, format, option);
    return;
  }
  io::write_dense_matrix(path, distances(), n, n, format, option);
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

  const Variant& variant = chosen_variant(user, options, registry, machine);
  const Workload& workload = registry.workload("apsp");
  const bool min_plus = options.semiring == Semiring::min_plus;
  const Params params = Params::resolve(
      workload.params, "small",
      {fmt::format("n={}", std::max<std::int64_t>(n, 2)),
       std::string("semiring=") + (min_plus ? "min-plus" : "max-plus"), "edges_per_vertex=1",
       fmt::format("devices={}", options.devices), fmt::format("paths={}", options.paths ? 1 : 0)});
  workload.validate(params);
  if (variant.distributed) {
#ifdef ACCLAB_HAVE_MPI
    return solve_graph_across_ranks(user, edges, variant, params, options, query, machine);
#else
    throw std::logic_error("apsp: a distributed step in a build without MPI");
#endif
  }
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
  solution.n = n;
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
  const ResultReader read = array_reader(p, *result);
  if (options.paths) {
    const std::vector<int> rows = path_check_sources(n);
    solution.path_sources = int(rows.size());
    solution.path_check = check_successor_paths(p, read, rows);
  }
  if (query) {
    const auto [u, v] = *query;
    if (options.paths) {
      solution.query = query_successors(p, read, u, v, base);
    } else {
      std::vector<float> column(static_cast<std::size_t>(p.n));
      for (int x = 0; x < p.n; ++x) column[x] = d[std::size_t(x) * p.n + v];
      solution.query = query_distances(p, column, read, edges, u, v, base);
    }
  }
  if (n != p.n) {
    solution.unpadded.resize(std::size_t(n) * n);
    for (std::int64_t i = 0; i < n; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        solution.unpadded[std::size_t(i) * n + j] = d[std::size_t(i) * p.n + j];
      }
    }
  }
  solution.matrix_digest = digest_text(digest_sum(n, solution.distances().data()));
  return solution;
}

}  // namespace acclab::apsp
