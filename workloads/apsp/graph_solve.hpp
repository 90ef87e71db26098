// All-pairs paths of a user's graph (acclab apsp FILE): one of the workload's variants run on
// the graph's edges, the result refused where a cycle or an overflow leaves paths undefined,
// summarised, and, with paths, the successor matrix followed and its paths re-summed.
#pragma once

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
#include "io/graph.hpp"
#include "workloads/apsp/apsp.hpp"

namespace acclab::apsp {

// The most vertices a dense n x n matrix of 32-bit indices holds (n^2 < 2^31).
inline constexpr std::int64_t max_graph_vertices = 46340;

// A user's graph, with what messages and printed paths call it and its vertices.
struct UserGraph {
  io::Graph graph;
  std::string source;           // the file, or "seed graph N"
  std::string kind;             // the file's format, or "the seed's generator"
  std::int64_t base = 0;        // the id the user writes for vertex 0
  std::optional<Problem> seed;  // the seed's generator, when it drew the graph
};

// Reads a graph file (io/graph.hpp). Throws UsageError naming it for a graph without vertices
// or with more than max_graph_vertices.
UserGraph read_user_graph(const std::string& path);

// The seed's random graph of n vertices (21 to max_graph_vertices: 20 distinct edges a vertex),
// weighted for `semiring` (generate_graph). Throws UsageError naming --seed-graph otherwise.
UserGraph seed_user_graph(std::int64_t n, Semiring semiring);

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

// The variant a solve takes when none is named: the first of the fastest on a GPU that runs on
// one here and can do what was asked (the successors, with paths), else the fastest on the CPU.
const Variant& default_graph_variant(const Registry& registry, Machine& machine, bool paths);

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

struct GraphSolution {
  std::string variant;
  Semiring semiring = Semiring::max_plus;
  double seconds = 0;          // the variant's run() alone
  std::int64_t reachable = 0;  // ordered pairs of distinct vertices with a path
  // The largest (max-plus) or smallest (min-plus) distance between distinct vertices, if any.
  std::optional<float> extreme;
  std::vector<std::string> seed_lines;  // the seed program's test lines, for its graph
  // With paths: the sources the successors were followed from, to every target.
  int path_sources = 0;
  std::optional<PathCheck> path_check;
  std::optional<PathQuery> query;

  // Whether every path followed reached its target with its length (status 0).
  bool paths_ok() const;
  // The distances between the graph's vertices, row-major n x n.
  std::span<const float> distances() const;

  std::unique_ptr<Instance> instance;  // holds the matrices distances() reads
  std::vector<float> unpadded;         // a one-vertex graph's, which ran as two vertices
};

// Checks the options against the graph, the registry and this machine's memories, runs the
// variant and examines its result. Throws UsageError, before anything is allocated, for a vertex
// id, weight, variant or --devices the graph or machine cannot take, and afterwards for a
// positive (max-plus) or negative (min-plus) cycle, naming a vertex on it, or a distance past
// the float range.
GraphSolution solve_graph(const UserGraph& graph, const GraphSolveOptions& options,
                          const Registry& registry, Machine& machine);

}  // namespace acclab::apsp
