#include "io/graph.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "core/enum_names.hpp"
#include "core/error.hpp"
#include "io/line_reader.hpp"
#include "io/matrix_market.hpp"

namespace acclab::io {
namespace {

// Arcs reserved before they are read: the declared count is only a promise.
constexpr std::int64_t kReservedUpFront = std::int64_t(1) << 20;

constexpr std::string_view kProblemForm = "'p sp NODES ARCS'";

// apsp computes in float: a weight that is not 0 must round to a normal float, or 1e-50 would
// silently become 0 and 1e39 infinity. The same rule, in the same words, as apsp's own check of
// the graphs it is given (workloads/apsp/graph_solve.cpp).
bool fits_float(double weight) {
  return weight == 0 || std::isnormal(static_cast<float>(weight));
}

std::string float_range_problem(double weight) {
  return fmt::format(
      "weight {} outside float range: a nonzero weight needs {:g} <= |weight| <= {:g} (apsp "
      "computes in float)",
      weight, std::numeric_limits<float>::min(), std::numeric_limits<float>::max());
}

// The weight in `token`, a finite number within float's range.
double weight_of(const LineReader& reader, std::string_view token) {
  const auto weight = parse_finite(token);
  if (!weight) reader.fail(fmt::format("weight '{}' is not a finite number", token));
  if (!fits_float(*weight)) reader.fail(float_range_problem(*weight));
  return *weight;
}

Graph read_matrix_market_graph(const std::filesystem::path& path) {
  const MatrixMarket matrix = read_matrix_market(path);
  if (matrix.rows != matrix.cols) {
    throw UsageError(
        fmt::format("{}:{}: a graph needs a square adjacency matrix; this one is {} x {}",
                    path.string(), matrix.size_line, matrix.rows, matrix.cols));
  }
  Graph graph;
  graph.n = matrix.rows;
  // The reader keeps no line per entry: the entry is named by its place after the size line.
  for (std::size_t k = 0; k < matrix.entries.size(); ++k) {
    const MatrixEntry& entry = matrix.entries[k];
    if (!fits_float(entry.value)) {
      throw UsageError(fmt::format("{}: entry {} after the size line (line {}), ({}, {}): {}",
                                   path.string(), k + 1, matrix.size_line, entry.row + 1,
                                   entry.col + 1, float_range_problem(entry.value)));
    }
  }
  const std::vector<MatrixEntry> full = expand_symmetric(matrix);
  graph.edges.reserve(full.size());
  for (const MatrixEntry& entry : full) graph.edges.push_back({entry.row, entry.col, entry.value});
  return graph;
}

std::int64_t dimacs_vertex(const LineReader& reader, std::string_view token, std::int64_t n) {
  const auto id = parse_integer(token);
  if (!id) reader.fail(fmt::format("vertex id '{}' is not an integer", token));
  if (*id < 1 || *id > n) {
    reader.fail(fmt::format("vertex {} is out of range 1..{} (DIMACS ids are 1-based)", *id, n));
  }
  return *id - 1;
}

Graph read_dimacs(const std::filesystem::path& path) {
  LineReader reader(path);
  Graph graph;
  std::int64_t declared_arcs = 0;
  std::int64_t problem_line = 0;  // 0 until the problem line is read
  std::string line;
  while (reader.next(line)) {
    const auto words = split_tokens(line);
    if (words.empty() || words[0] == "c") continue;
    if (words[0] == "p") {
      if (problem_line != 0) {
        reader.fail(fmt::format("second problem line (the first is line {})", problem_line));
      }
      if (words.size() != 4) {
        reader.fail(fmt::format("bad problem line '{}'; expected {}", line, kProblemForm));
      }
      if (words[1] != "sp") {
        reader.fail(fmt::format("problem type '{}' is not 'sp' (shortest paths); expected {}",
                                words[1], kProblemForm));
      }
      const auto nodes = parse_integer(words[2]);
      const auto arcs = parse_integer(words[3]);
      if (!nodes || !arcs || *nodes < 0 || *arcs < 0) {
        reader.fail(
            fmt::format("bad problem line '{}'; NODES and ARCS must be integers >= 0", line));
      }
      // The shortest arc line is "a 1 1 1" and a newline: a count beyond what is reserved up
      // front that the file cannot hold is refused here (a smaller one at the end, as truncated).
      if (const auto left = reader.bytes_left();
          left && *arcs > kReservedUpFront && std::uint64_t(*arcs) > (*left + 1) / 8) {
        reader.fail(fmt::format(
            "{} arcs declared, more than the {} bytes left in the file can hold", *arcs, *left));
      }
      graph.n = *nodes;
      declared_arcs = *arcs;
      problem_line = reader.line_number();
      graph.edges.reserve(static_cast<std::size_t>(std::min(declared_arcs, kReservedUpFront)));
    } else if (words[0] == "a") {
      if (problem_line == 0) {
        reader.fail(fmt::format("arc before the problem line {}", kProblemForm));
      }
      if (static_cast<std::int64_t>(graph.edges.size()) == declared_arcs) {
        reader.fail(
            fmt::format("more arcs than the {} declared on line {}", declared_arcs, problem_line));
      }
      if (words.size() != 4) {
        reader.fail(
            fmt::format("expected 'a FROM TO WEIGHT', found {}", count_of(words.size(), "field")));
      }
      Edge edge;
      edge.from = dimacs_vertex(reader, words[1], graph.n);
      edge.to = dimacs_vertex(reader, words[2], graph.n);
      edge.weight = weight_of(reader, words[3]);
      graph.edges.push_back(edge);
    } else {
      reader.fail(
          fmt::format("unknown line type '{}'; a DIMACS .gr file has c, p and a lines", words[0]));
    }
  }
  if (problem_line == 0) {
    fail_file(path, fmt::format("no problem line {} (DIMACS shortest-path format)", kProblemForm));
  }
  if (static_cast<std::int64_t>(graph.edges.size()) < declared_arcs) {
    reader.fail(fmt::format("file ends after {} of the {} arcs declared on line {} (truncated?)",
                            graph.edges.size(), declared_arcs, problem_line));
  }
  return graph;
}

std::int64_t edge_list_vertex(const LineReader& reader, std::string_view token) {
  const auto id = parse_integer(token);
  if (!id) reader.fail(fmt::format("vertex id '{}' is not an integer", token));
  if (*id < 0) reader.fail(fmt::format("negative vertex id {} (edge-list ids are 0-based)", *id));
  if (*id == std::numeric_limits<std::int64_t>::max()) {
    reader.fail(fmt::format("vertex id {} is too large", *id));
  }
  return *id;
}

bool is_edge_list_comment(std::string_view line) {
  const auto first = line.find_first_not_of(" \t");
  return first != std::string_view::npos && (line[first] == '#' || line[first] == '%');
}

Graph read_edge_list(const std::filesystem::path& path) {
  LineReader reader(path);
  Graph graph;
  std::int64_t largest_id = -1;
  std::string line;
  while (reader.next(line)) {
    if (starts_with_banner(line)) {
      // Read as an edge list, such a file would turn its size line into an edge.
      reader.fail("Matrix Market banner below line 1; it must be the first line of the file");
    }
    if (is_blank(line) || is_edge_list_comment(line)) continue;
    const auto words = split_tokens(line);
    if (words.size() != 2 && words.size() != 3) {
      reader.fail(fmt::format("expected 'FROM TO WEIGHT' or 'FROM TO', found {}",
                              count_of(words.size(), "value")));
    }
    Edge edge;
    edge.from = edge_list_vertex(reader, words[0]);
    edge.to = edge_list_vertex(reader, words[1]);
    if (words.size() == 3) {
      edge.weight = weight_of(reader, words[2]);
    }
    largest_id = std::max({largest_id, edge.from, edge.to});
    graph.edges.push_back(edge);
  }
  if (graph.edges.empty()) {
    fail_file(path, "no edges; an edge list has lines 'FROM TO WEIGHT' or 'FROM TO' (0-based ids)");
  }
  graph.n = largest_id + 1;
  return graph;
}

}  // namespace

constexpr auto kGraphFormatNames = std::to_array<EnumName<GraphFormat>>({
    {GraphFormat::dimacs, "DIMACS"},
    {GraphFormat::matrix_market, "Matrix Market"},
    {GraphFormat::edge_list, "edge list"},
});

std::string_view to_string(GraphFormat format) { return name_of(kGraphFormatNames, format); }

std::int64_t first_vertex_id(GraphFormat format) {
  return format == GraphFormat::edge_list ? 0 : 1;
}

GraphFormat detect_graph_format(const std::filesystem::path& path) {
  LineReader reader(path);
  std::string line;
  bool first = true;
  while (reader.next(line)) {
    if (first && starts_with_banner(line)) return GraphFormat::matrix_market;
    first = false;
    const auto words = split_tokens(line);
    if (words.empty()) continue;
    if (words[0] == "c" || words[0] == "p" || words[0] == "a") return GraphFormat::dimacs;
    break;
  }
  // g.gr.gz: the name's suffix before the compression's.
  const auto named = path.extension() == ".gz" ? path.stem() : path;
  if (named.extension() == ".gr") return GraphFormat::dimacs;
  return GraphFormat::edge_list;
}

Graph read_graph(const std::filesystem::path& path) {
  switch (detect_graph_format(path)) {
    case GraphFormat::matrix_market:
      return read_matrix_market_graph(path);
    case GraphFormat::dimacs:
      return read_dimacs(path);
    case GraphFormat::edge_list:
      return read_edge_list(path);
  }
  return {};
}

}  // namespace acclab::io
