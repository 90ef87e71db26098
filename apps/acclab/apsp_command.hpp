// acclab apsp FILE: the apsp workload's variants on a user's graph.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/registry.hpp"

namespace acclab {

struct ApspArgs {
  std::string file;
  std::optional<std::int64_t> seed_graph;  // instead of a file: the seed's graph of N vertices
  std::string semiring = "max-plus";
  std::string variant;  // empty: apsp::default_graph_variant (workloads/apsp/graph_solve.hpp)
  int devices = 1;
  std::string out;
  std::string out_format;  // empty: csv for a .csv path, else binary
  std::vector<std::int64_t> query;
  bool paths = false;            // keep the successor matrix; --query follows it
  std::string format = "table";  // table (lines) or json (one object)
  bool quiet = false;            // no progress lines on stderr
};

void add_apsp_options(CLI::App* cmd, ApspArgs& args);

// Reads the graph, runs the variant, refuses a result with a positive (max-plus) or negative
// (min-plus) cycle (UsageError naming a vertex on it, nothing written), prints a summary and
// the queried path, writes the matrix. With paths, the variant keeps the successor matrix (a
// variant without one is a UsageError naming it), the paths from a few sampled sources and the
// queried one are followed along it and re-summed; a path that does not reach its target or
// disagrees with its length is a failure (status 1). The report, either format, carries the
// result's matrix_digest (workloads/apsp/apsp.hpp), so that solves by different variants or on
// different numbers of ranks compare bitwise without the matrix. Returns the exit status.
int apsp_command(const ApspArgs& args, const Registry& registry);

}  // namespace acclab
