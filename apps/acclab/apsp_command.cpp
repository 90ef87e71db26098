// acclab apsp FILE: all-pairs longest (max-plus) or shortest (min-plus) paths of a user's graph
// by one of the apsp workload's variants, the distance matrix written with --out, paths
// printed with --query: read off the matrix, or with --paths followed along the successor
// matrix the variant kept. With an mpi_* step it runs across the MPI ranks (mpirun; one rank
// without): rank 0 reads the graph, prints and checks --out's folder, and the ranks solve and
// write together (workloads/apsp/mpi_solve.hpp).
#include "apsp_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/machine.hpp"
#include "core/mpi_env.hpp"
#include "core/report.hpp"
#include "integer_option.hpp"
#include "io/dense_matrix.hpp"
#include "path_option.hpp"
#include "progress.hpp"
#include "safe_text.hpp"
#include "workloads/apsp/graph_solve.hpp"

namespace acclab {
namespace {

std::string joined(const std::vector<std::int64_t>& vertices) {
  return fmt::format("{}", fmt::join(vertices, " "));
}

void print_query(const apsp::PathQuery& q) {
  using Outcome = apsp::PathQuery::Outcome;
  switch (q.outcome) {
    case Outcome::unreachable:
      fmt::print("query {} -> {}: unreachable\n", q.from, q.to);
      return;
    case Outcome::stops_short:
      fmt::print("query {} -> {}: length {:g}, but the successors stop short: {}\n", q.from, q.to,
                 q.length, joined(q.vertices));
      return;
    case Outcome::found:
    case Outcome::does_not_resum:
      fmt::print("query {} -> {}: length {:g} (along the path {:g}), {} edges: {}\n", q.from, q.to,
                 q.length, q.along, q.vertices.size() - 1, joined(q.vertices));
      if (q.outcome == Outcome::does_not_resum) {
        fmt::print("query {} -> {}: the path's weights do not re-sum to its length\n", q.from,
                   q.to);
      }
      return;
  }
}

nlohmann::json query_json(const apsp::PathQuery& q) {
  using Outcome = apsp::PathQuery::Outcome;
  const char* outcome = q.outcome == Outcome::found         ? "found"
                        : q.outcome == Outcome::unreachable ? "unreachable"
                        : q.outcome == Outcome::stops_short ? "stops_short"
                                                            : "does_not_resum";
  nlohmann::json j = {{"from", q.from}, {"to", q.to}, {"outcome", outcome}};
  if (q.outcome != Outcome::unreachable) {
    j["length"] = q.length;
    j["along"] = q.along;
    j["vertices"] = q.vertices;
  }
  return j;
}

// The report as one JSON object (schema acclab.apsp/1): the lines' figures, the distribution
// (`mpi`, as acclab run reports it; null in one process) and the digest. Collective: every
// rank calls it (the distribution's figures are reduced), rank 0's stdout alone is kept.
void print_json(const ApspArgs& args, const apsp::UserGraph& graph,
                const apsp::GraphSolution& solution, const std::string& out_format,
                const Machine& machine) {
  const auto optional = [](const auto& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  nlohmann::json j = {
      {"schema", "acclab.apsp/1"},
      {"graph", graph.source},
      {"graph_kind", graph.kind},
      {"vertices", graph.graph.n},
      {"edges", graph.graph.edges.size()},
      {"semiring", args.semiring},
      {"variant", solution.variant},
      {"time_s", solution.seconds},
      {"mpi", solution.instance->distribution()},
      {"reachable_pairs", solution.reachable},
      {"extreme_distance", optional(solution.extreme)},
      {"matrix_digest", solution.matrix_digest},
      {"paths", nullptr},
      {"query", solution.query ? query_json(*solution.query) : nlohmann::json(nullptr)},
      {"out", args.out.empty() ? nlohmann::json(nullptr) : nlohmann::json(args.out)},
      {"out_format", args.out.empty() ? nlohmann::json(nullptr) : nlohmann::json(out_format)},
      {"build", machine.build_json()},
      {"command_line", process_command_line()}};
  if (graph.seed) j["seed_test_lines"] = solution.seed_lines;
  if (const auto& check = solution.path_check) {
    j["paths"] = {{"sources", solution.path_sources},
                  {"checked", check->paths},
                  {"broken", check->broken},
                  {"worst_over_bound", check->worst_over_bound},
                  {"first_broken", check->first_broken}};
  }
  fmt::print("{}\n", json_text(j, 2));  // the paths in it may hold bytes that are not UTF-8
}

// The report as lines.
void print_table(const apsp::UserGraph& graph, const apsp::GraphSolution& solution) {
  const std::int64_t n = graph.graph.n;
  const bool longest = solution.semiring == apsp::Semiring::max_plus;
  fmt::print("apsp {}: {} vertices, {} edges ({}), {} paths by {} in {:.3f} s\n", graph.source, n,
             graph.graph.edges.size(), graph.kind, longest ? "longest" : "shortest",
             solution.variant, solution.seconds);
  if (solution.spread) fmt::print("{}\n", solution.spread->summary());
  if (graph.seed) {
    // The seed's own output: "time ..." then its 20 test lines.
    fmt::print("time {:f} {}\n", solution.seconds, n);
    for (const auto& line : solution.seed_lines) fmt::print("{}\n", line);
  }
  fmt::print("reachable ordered pairs: {} of {}; {} finite distance: {}\n", solution.reachable,
             n * (n - 1), longest ? "largest" : "smallest",
             solution.extreme ? fmt::format("{:g}", *solution.extreme) : std::string("none"));
  fmt::print("matrix digest: {}\n", solution.matrix_digest);
  if (const auto& check = solution.path_check) {
    fmt::print(
        "paths: successors followed from {} sources, {} paths {}\n", solution.path_sources,
        check->paths,
        check->broken == 0
            ? fmt::format("re-sum to their lengths (worst {:.2g} of the rounding bound)",
                          check->worst_over_bound)
            : fmt::format("checked, {} BROKEN, first {}", check->broken, check->first_broken));
  }
  if (solution.query) print_query(*solution.query);
}

}  // namespace

void add_apsp_options(CLI::App* cmd, ApspArgs& args) {
  auto* file = cmd->add_option(
      "file", args.file, "graph: DIMACS .gr, Matrix Market coordinate, or a 'u v [w]' edge list");
  auto* seed = add_integer_option(cmd, "--seed-graph", args.seed_graph,
                                  std::numeric_limits<std::int64_t>::min(),
                                  std::numeric_limits<std::int64_t>::max(),
                                  "instead of a file: the seed's random graph of N vertices (C "
                                  "rand), and its 20 test lines");
  file->excludes(seed);
  seed->excludes(file);
  cmd->add_option("--semiring", args.semiring, "max-plus (longest paths) or min-plus (shortest)");
  cmd->add_option("--variant", args.variant,
                  "apsp variant (default cuda_blocked with a CUDA GPU, else multicore; under "
                  "mpirun with several ranks mpi_cuda with a CUDA GPU, else mpi_acc where OpenACC "
                  "runs on a GPU, else mpi_host)");
  add_integer_option(cmd, "--devices", args.devices, 1, apsp::max_devices,
                     "GPUs (partitions on the host) for the variants whose tunings include "
                     "devices");
  cmd->add_option("--out", args.out,
                  "write the distance matrix here (written whole or not at all)")
      ->check(non_empty_path());
  cmd->add_option("--out-format", args.out_format,
                  "binary (default; io/dense_matrix.hpp gives the layout) or csv (n <= 4096)");
  add_integers_option(cmd, "--query", args.query, 2, std::numeric_limits<std::int64_t>::min(),
                      std::numeric_limits<std::int64_t>::max(),
                      "print the best path from U to V (ids as in the file)");
  cmd->add_flag("--paths", args.paths,
                "keep the successor matrix (n^2 int32 more; the variants whose tunings in "
                "`acclab list` include paths): --query follows it, and paths from 8 sampled "
                "sources are re-summed");
  cmd->add_option("--format", args.format, "table (default) or json");
  cmd->add_flag("--quiet", args.quiet,
                "no progress on stderr (by default a line every 5 s during the read and the "
                "solve, or one redrawn line on a terminal)");
}

int apsp_command(const ApspArgs& args, const Registry& registry) {
  require_utf8_name("--semiring", args.semiring);
  require_utf8_name("--variant", args.variant);
  require_utf8_name("--format", args.format);
  require_utf8_name("--out-format", args.out_format);
  if (args.semiring != "max-plus" && args.semiring != "min-plus") {
    throw UsageError(fmt::format("--semiring {}: expected max-plus or min-plus", args.semiring));
  }
  const auto semiring =
      args.semiring == "min-plus" ? apsp::Semiring::min_plus : apsp::Semiring::max_plus;
  if (args.devices < 1 || args.devices > apsp::max_devices) {
    throw UsageError(
        fmt::format("--devices {}: GPU count must be 1 to {}", args.devices, apsp::max_devices));
  }
  if (args.format != "table" && args.format != "json") {
    throw UsageError(fmt::format("--format {}: expected table or json", args.format));
  }
  if (args.out.empty() && !args.out_format.empty()) {
    throw UsageError(
        fmt::format("--out-format {}: there is no --out FILE to write", args.out_format));
  }
  std::string out_format = args.out_format;
  if (out_format.empty()) out_format = args.out.ends_with(".csv") ? "csv" : "binary";
  if (out_format != "binary" && out_format != "csv") {
    throw UsageError(fmt::format("--out-format {}: expected binary or csv", out_format));
  }
  apsp::runs_across_ranks(registry, args.variant);  // under mpirun, only an MPI step
  apsp::refuse_on_every_rank([&] {                  // before the run
    if (!args.out.empty() && mpi::is_root()) check_output_path("--out", args.out, {args.file});
  });
  if (args.file.empty() && !args.seed_graph) {
    throw UsageError("apsp: expected a graph FILE or --seed-graph N");
  }
  Progress progress(args.quiet);
  progress.update(args.seed_graph ? fmt::format("apsp: making the seed's graph of {} vertices",
                                                *args.seed_graph)
                                  : fmt::format("apsp {}: reading the graph", args.file));
  progress.begin(0);
  const apsp::UserGraph graph = apsp::graph_from_rank_0([&] {
    return args.seed_graph ? apsp::seed_user_graph(*args.seed_graph, semiring)
                           : apsp::read_user_graph(args.file);
  });
  const std::int64_t n = graph.graph.n;
  if (out_format == "csv" && !args.out.empty() && n > 4096) {
    throw UsageError(fmt::format(
        "--out-format csv: {} vertices is too many for CSV (at most 4096); use binary", n));
  }

  apsp::GraphSolveOptions options{
      .semiring = semiring, .variant = args.variant, .devices = args.devices, .paths = args.paths};
  if (!args.query.empty()) options.query.emplace(args.query[0], args.query[1]);
  options.progress = [&](const std::string& what) { progress.update(what); };
  Machine machine;
  const apsp::GraphSolution solution = apsp::solve_graph(graph, options, registry, machine);
  progress.finish();

  const auto format = out_format == "csv" ? io::DenseFormat::csv : io::DenseFormat::binary;
  if (args.format == "json") {
    // The file first, so that the report names only a file that was written.
    if (!args.out.empty()) solution.write_distances(args.out, format, "--out");
    print_json(args, graph, solution, out_format, machine);
  } else {
    print_table(graph, solution);
    if (!args.out.empty()) {
      solution.write_distances(args.out, format, "--out");
      fmt::print("distance matrix ({}) written to {}\n", out_format, args.out);
    }
  }
  if (solution.paths_ok()) return 0;
  print_error_line("apsp: a successor path failed its check");
  return 1;
}

}  // namespace acclab
