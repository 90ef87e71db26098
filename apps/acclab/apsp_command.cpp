// acclab apsp FILE: all-pairs longest (max-plus) or shortest (min-plus) paths of a user's graph
// by one of the apsp workload's variants, the distance matrix written with --out, paths
// printed with --query: read off the matrix, or with --paths followed along the successor
// matrix the variant kept.
#include "apsp_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/machine.hpp"
#include "core/registry.hpp"
#include "core/runner.hpp"
#include "io/dense_matrix.hpp"
#include "io/graph.hpp"
#include "progress.hpp"
#include "workloads/apsp/apsp.hpp"

namespace acclab {

void add_apsp_options(CLI::App* cmd, ApspArgs& args) {
  auto* file = cmd->add_option(
      "file", args.file, "graph: DIMACS .gr, Matrix Market coordinate, or a 'u v [w]' edge list");
  auto* seed = cmd->add_option("--seed-graph", args.seed_graph,
                               "instead of a file: the seed's random graph of N vertices (C "
                               "rand), and its 20 test lines");
  file->excludes(seed);
  seed->excludes(file);
  cmd->add_option("--semiring", args.semiring, "max-plus (longest paths) or min-plus (shortest)");
  cmd->add_option("--variant", args.variant,
                  "apsp variant (default cuda_blocked with a CUDA GPU, else multicore)");
  cmd->add_option("--devices", args.devices, "multidevice: GPUs (partitions on the host)");
  cmd->add_option("--out", args.out,
                  "write the distance matrix here (written whole or not at all)");
  cmd->add_option("--out-format", args.out_format,
                  "binary (default; io/dense_matrix.hpp gives the layout) or csv (n <= 4096)");
  cmd->add_option("--query", args.query, "print the best path from U to V (ids as in the file)")
      ->expected(2);
  cmd->add_flag("--paths", args.paths,
                "keep the successor matrix (n^2 int32 more; variants serial, multicore, "
                "optimize, multidevice): --query follows it, and paths from 8 sampled sources "
                "are re-summed");
}

int apsp_command(const ApspArgs& args, const Registry& registry) {
  if (args.semiring != "max-plus" && args.semiring != "min-plus") {
    throw UsageError(fmt::format("--semiring {}: expected max-plus or min-plus", args.semiring));
  }
  if (args.devices < 1 || args.devices > apsp::max_devices) {
    throw UsageError(
        fmt::format("--devices {}: GPU count must be 1 to {}", args.devices, apsp::max_devices));
  }
  std::string out_format = args.out_format;
  if (out_format.empty()) out_format = args.out.ends_with(".csv") ? "csv" : "binary";
  if (out_format != "binary" && out_format != "csv") {
    throw UsageError(fmt::format("--out-format {}: expected binary or csv", out_format));
  }

  if (!args.out.empty()) check_output_path("--out", args.out);  // before the run
  if (args.file.empty() && args.seed_graph == 0) {
    throw UsageError("apsp: expected a graph FILE or --seed-graph N");
  }
  io::Graph graph;
  std::string source = args.file, kind;
  // Vertex ids as the user writes them: 1-based in DIMACS and Matrix Market, 0-based in an
  // edge list and in the seed's program.
  std::int64_t base = 0;
  apsp::Problem seed;  // the seed's generator, when --seed-graph
  if (args.seed_graph != 0) {
    if (args.seed_graph < 21 || args.seed_graph > 46340) {
      throw UsageError(
          fmt::format("--seed-graph {}: expected 21 to 46340 vertices (20 distinct "
                      "edges per vertex)",
                      args.seed_graph));
    }
    seed.n = int(args.seed_graph);
    seed.generator = apsp::Generator::seed;
    seed.semiring =
        args.semiring == "min-plus" ? apsp::Semiring::min_plus : apsp::Semiring::max_plus;
    graph.n = seed.n;
    for (const auto& e : apsp::generate_graph(seed))
      graph.edges.push_back({e.from, e.to, e.weight});
    source = fmt::format("seed graph {}", seed.n);
    kind = "the seed's generator";
  } else {
    const io::GraphFormat format = io::detect_graph_format(args.file);
    graph = io::read_graph(args.file);
    base = format == io::GraphFormat::edge_list ? 0 : 1;
    kind = std::string(io::to_string(format));
  }
  if (graph.n > 46340) {
    throw UsageError(
        fmt::format("{}: {} vertices: the dense n x n matrix would reach 2^31 "
                    "elements (at most 46340 vertices)",
                    source, graph.n));
  }
  if (graph.n < 1) throw UsageError(fmt::format("{}: no vertices", source));
  if (out_format == "csv" && !args.out.empty() && graph.n > 4096) {
    throw UsageError(
        fmt::format("--out-format csv: {} vertices is too many for CSV (at most "
                    "4096); use binary",
                    graph.n));
  }
  std::vector<apsp::Edge> edges;
  edges.reserve(graph.edges.size());
  for (const auto& e : graph.edges) {
    const double w = e.weight;
    if (!(std::abs(w) <= std::numeric_limits<float>::max())) {
      throw UsageError(fmt::format("{}: edge {} -> {}: weight {} outside float range", source,
                                   e.from + base, e.to + base, w));
    }
    edges.push_back({int(e.from), int(e.to), float(w)});
  }
  int query_u = -1, query_v = -1;
  if (!args.query.empty()) {
    for (std::int64_t id : args.query) {
      if (id < base || id >= graph.n + base) {
        throw UsageError(fmt::format("--query {} {}: vertex {} outside {}..{}", args.query[0],
                                     args.query[1], id, base, graph.n - 1 + base));
      }
    }
    query_u = int(args.query[0] - base);
    query_v = int(args.query[1] - base);
  }

  // By default the fastest variant here that can do what was asked: cuda_blocked keeps no
  // successors, so --paths takes multidevice (OpenACC, blocked; on the H200 0.06 s at n = 3000
  // where optimize took 0.21 s at 2048) on a GPU.
  const bool gpu = cuda_gpu_count() > 0;
  const auto& variants = registry.variants();
  const bool openacc = std::any_of(variants.begin(), variants.end(), [](const Variant& v) {
    return v.workload == "apsp" && v.name == "multidevice";
  });
  const std::string default_variant = !gpu          ? "multicore"
                                      : !args.paths ? "cuda_blocked"
                                      : openacc     ? "multidevice"
                                                    : "multicore";
  const std::string variant_name = args.variant.empty() ? default_variant : args.variant;
  const auto selected = registry.select("apsp", variant_name);
  if (selected.size() != 1 || selected[0]->name != variant_name) {
    throw UsageError(
        fmt::format("--variant {}: expected one apsp variant (acclab list)", variant_name));
  }
  const Variant& variant = *selected[0];
  if (args.devices != 1 && !apsp::uses_devices(variant.name)) {
    throw UsageError(
        fmt::format("--devices {}: --variant {} runs on one device (only {} split "
                    "over several)",
                    args.devices, variant_name, fmt::join(apsp::devices_variants, " and ")));
  }
  if (variant.backend == Backend::cuda && cuda_gpu_count() == 0) {
    throw UsageError(fmt::format("--variant {}: no CUDA GPU on this machine", variant_name));
  }
  const Workload& workload = registry.workload("apsp");
  const Params params = Params::resolve(
      workload.params, "small",
      {fmt::format("n={}", std::max<std::int64_t>(graph.n, 2)), "semiring=" + args.semiring,
       "edges_per_vertex=1", fmt::format("devices={}", args.devices),
       fmt::format("paths={}", args.paths ? 1 : 0)});
  workload.validate(params);
  Machine machine;
  // The matrix, its initial state, the result's copy; with --paths the successors.
  const double bytes = (3.0 * sizeof(float) + (args.paths ? sizeof(std::int32_t) : 0.0)) *
                       double(graph.n) * double(graph.n);
  if (bytes > machine.host().available_bytes) {
    throw UsageError(fmt::format(
        "{}: {} vertices need {:.2f} GiB of host memory, {:.2f} GiB "
        "available",
        source, graph.n, bytes / 1073741824.0, machine.host().available_bytes / 1073741824.0));
  }

  if (variant.backend != Backend::serial && variant.backend != Backend::openmp) {
    Runner(machine).check_memory(variant, workload, params);  // device memory, before allocating
  }
  auto instance = variant.factory(params);
  auto* apsp_instance = dynamic_cast<apsp::ApspInstance*>(instance.get());
  if (!apsp_instance) throw std::logic_error("apsp variant without an ApspInstance");
  // A one-vertex graph runs as two vertices, the second isolated.
  apsp_instance->set_graph(edges);
  instance->setup();
  instance->reset();
  Progress progress;
  progress.start();
  progress.update(fmt::format("apsp {}: {} on {} vertices", source, variant_name, graph.n));
  const auto start = std::chrono::steady_clock::now();
  instance->run();
  progress.stop();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  instance->finish();
  const apsp::Problem p = apsp::problem_of(params);
  const std::vector<float>& d = apsp_instance->result();

  const bool longest = p.semiring == apsp::Semiring::max_plus;
  if (const auto cycle = apsp::cycle_vertex(p, d.data())) {
    throw UsageError(fmt::format(
        "{}: vertex {} lies on a {} cycle, so {} paths through it are undefined (no output "
        "written)",
        source, *cycle + base, longest ? "positive" : "negative",
        longest ? "longest" : "shortest"));
  }

  // Sums past the float range: +inf in max-plus (-inf in min-plus) is no path length, and
  // opposite infinities make NaN. (A positive cycle also grows values without bound: the
  // cycle is reported first.)
  for (std::int64_t e = 0; e < p.elements(); ++e) {
    const float x = d[e];
    if (std::isnan(x) || (std::isinf(x) && x != p.none())) {
      throw UsageError(
          fmt::format("{}: the distance from {} to {} overflows float ({}); scale "
                      "the weights down (no output written)",
                      source, e / p.n + base, e % p.n + base, x));
    }
  }

  std::int64_t reachable = 0;
  float extreme = p.none();
  for (std::int64_t i = 0; i < graph.n; ++i) {
    for (std::int64_t j = 0; j < graph.n; ++j) {
      const float x = d[std::size_t(i) * p.n + j];
      if (i == j || x == p.none()) continue;
      ++reachable;
      if (extreme == p.none() || (longest ? x > extreme : x < extreme)) extreme = x;
    }
  }
  fmt::print("apsp {}: {} vertices, {} edges ({}), {} paths by {} in {:.3f} s\n", source, graph.n,
             graph.edges.size(), kind, longest ? "longest" : "shortest", variant_name, seconds);
  if (args.seed_graph != 0) {
    // The seed's own output: "time ..." then its 20 test lines.
    fmt::print("time {:f} {}\n", seconds, graph.n);
    for (const auto& line : apsp::seed_test_lines(seed, d)) fmt::print("{}\n", line);
  }
  fmt::print("reachable ordered pairs: {} of {}; {} finite distance: {}\n", reachable,
             graph.n * (graph.n - 1), longest ? "largest" : "smallest",
             reachable ? fmt::format("{:g}", extreme) : std::string("none"));

  int status = 0;
  if (args.paths) {
    // Sources spread over the file's vertices, every target each.
    const int sources = int(std::min<std::int64_t>(graph.n, 8));
    std::vector<int> rows;
    for (int s = 0; s < sources; ++s) rows.push_back(int(std::int64_t(s) * graph.n / sources));
    const auto& next = apsp_instance->successors();
    const auto check = apsp::check_successor_paths(p, apsp_instance->initial().data(), d.data(),
                                                   next.data(), rows);
    fmt::print("paths: successors followed from {} sources, {} paths {}\n", sources, check.paths,
               check.broken == 0
                   ? fmt::format("re-sum to their lengths (worst {:.2g} of the rounding bound)",
                                 check.worst_over_bound)
                   : fmt::format("checked, {} BROKEN, first {}", check.broken, check.first_broken));
    if (check.broken != 0) status = 1;
  }

  if (query_u >= 0 && args.paths) {
    const auto& next = apsp_instance->successors();
    const float length = d[std::size_t(query_u) * p.n + query_v];
    const auto path = apsp::successor_path(p, next.data(), query_u, query_v);
    std::string vertices;
    for (int x : path) vertices += fmt::format("{}{}", vertices.empty() ? "" : " ", x + base);
    if (path.empty() && length == p.none()) {
      fmt::print("query {} -> {}: unreachable\n", query_u + base, query_v + base);
    } else if (path.empty() || path.back() != query_v) {
      fmt::print("query {} -> {}: length {:g}, but the successors stop short: {}\n", query_u + base,
                 query_v + base, length, vertices);
      status = 1;
    } else {
      const double along = apsp::path_length(p, apsp_instance->initial().data(), path);
      double sum_abs = 0;
      for (std::size_t s = 0; s + 1 < path.size(); ++s) {
        sum_abs += std::abs(apsp_instance->initial()[std::size_t(path[s]) * p.n + path[s + 1]]);
      }
      fmt::print("query {} -> {}: length {:g} (along the path {:g}), {} edges: {}\n",
                 query_u + base, query_v + base, length, along, path.size() - 1, vertices);
      if (!(std::abs(along - length) <= apsp::rounding_bound(p, sum_abs, length))) {
        fmt::print("query {} -> {}: the path's weights do not re-sum to its length\n",
                   query_u + base, query_v + base);
        status = 1;
      }
    }
  } else if (query_u >= 0) {
    const auto path = apsp::best_path(p, d.data(), edges, query_u, query_v);
    if (path.empty()) {
      fmt::print("query {} -> {}: unreachable\n", query_u + base, query_v + base);
    } else {
      // The length again, summed along the path in path order.
      double along = 0;
      for (std::size_t s = 0; s + 1 < path.size(); ++s) {
        float w = p.none();
        for (const auto& e : edges) {
          if (e.from == path[s] && e.to == path[s + 1] &&
              (w == p.none() || (longest ? e.weight > w : e.weight < w))) {
            w = e.weight;
          }
        }
        along += w;
      }
      std::string vertices;
      for (int x : path) vertices += fmt::format("{}{}", vertices.empty() ? "" : " ", x + base);
      fmt::print("query {} -> {}: length {:g} (along the path {:g}), {} edges: {}\n",
                 query_u + base, query_v + base, d[std::size_t(query_u) * p.n + query_v], along,
                 path.size() - 1, vertices);
    }
  }

  if (!args.out.empty()) {
    // The matrix of the file's vertices (a one-vertex graph ran padded to two).
    std::vector<float> matrix;
    std::span<const float> values(d);
    if (graph.n != p.n) {
      matrix.resize(std::size_t(graph.n) * graph.n);
      for (std::int64_t i = 0; i < graph.n; ++i) {
        for (std::int64_t j = 0; j < graph.n; ++j) {
          matrix[std::size_t(i) * graph.n + j] = d[std::size_t(i) * p.n + j];
        }
      }
      values = matrix;
    }
    io::write_dense_matrix(args.out, values, graph.n, graph.n,
                           out_format == "csv" ? io::DenseFormat::csv : io::DenseFormat::binary);
    fmt::print("distance matrix ({}) written to {}\n", out_format, args.out);
  }
  if (status != 0) fmt::print(stderr, "acclab: apsp: a successor path failed its check\n");
  return status;
}

}  // namespace acclab
