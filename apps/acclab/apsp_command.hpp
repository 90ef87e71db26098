// acclab apsp FILE: the apsp workload's variants on a user's graph.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "core/registry.hpp"

namespace acclab {

struct ApspArgs {
  std::string file;
  std::int64_t seed_graph = 0;  // instead of a file: the seed's graph of this many vertices
  std::string semiring = "max-plus";
  std::string variant;  // empty: cuda_blocked with a CUDA GPU, else multicore
  int devices = 1;
  std::string out;
  std::string out_format;  // empty: csv for a .csv path, else binary
  std::vector<std::int64_t> query;
};

void add_apsp_options(CLI::App* cmd, ApspArgs& args);

// Reads the graph, runs the variant, refuses a result with a positive (max-plus) or negative
// (min-plus) cycle (UsageError naming a vertex on it, nothing written), prints a summary and
// the queried path, writes the matrix. Returns the exit status.
int apsp_command(const ApspArgs& args, const Registry& registry);

}  // namespace acclab
