// Directed weighted graphs read from users' files, for `acclab apsp FILE`.
//
// read_graph() recognises three formats from the file's content:
//
// - Matrix Market, when line 1 starts with "%%MatrixMarket": a square coordinate matrix whose
//   entry (i, j, w) is the arc i -> j of weight w (matrix_market.hpp). Symmetric storage gives
//   both directions (a diagonal entry once); pattern files give weight 1.
// - DIMACS shortest-path (the 9th DIMACS challenge's .gr), when the name ends in ".gr" (or
//   ".gr.gz") or the first non-blank line is a `c`, `p` or `a` line: `c` comment lines, one
//   problem line "p sp NODES ARCS" before any arc, then exactly ARCS lines "a FROM TO WEIGHT"
//   with 1-based vertex ids in 1..NODES. Weights may be any real number (within the range
//   below), not only integers.
// - Otherwise a plain edge list: lines "FROM TO WEIGHT" or "FROM TO" (weight 1), blank lines and
//   whole-line comments starting with `#` or `%`. Vertex ids are 0-based and must not be
//   negative. A plain list declares no vertex count, so n is the largest id + 1: a vertex with
//   a larger id and no edges cannot be expressed (use DIMACS for that), and an id much larger
//   than the others makes n, and the n x n distance matrix, that large.
//
// Any of them may be gzip'd (told by its first bytes, so also through a pipe): line_reader.hpp.
//
// In every format self-loops are kept, and so are parallel arcs (several arcs u -> v): the
// caller decides what they mean (for paths, the best of them). apsp computes in float, so a
// weight must be 0 or a normal float (1.17549e-38 <= |w| <= 3.40282e38, after rounding to float).
// One outside that range (1e-50, which would silently become 0; 1e39, infinity) is refused at its
// line ("weight 1e-50 outside float range ..."; a Matrix Market entry is named by its place after
// the size line), as "nan" and "inf" are ("not a finite number").
//
// Every error is a UsageError "FILE:LINE: what is wrong" ("FILE: what is wrong" where no line
// applies): unreadable file, malformed or truncated content, ids out of range or negative.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

namespace acclab::io {

// The arc from -> to, 0-based.
struct Edge {
  std::int64_t from = 0;
  std::int64_t to = 0;
  double weight = 1;

  bool operator==(const Edge&) const = default;
};

struct Graph {
  std::int64_t n = 0;       // vertices 0..n-1
  std::vector<Edge> edges;  // in file order (a symmetric entry's mirror right after it)
};

enum class GraphFormat { dimacs, matrix_market, edge_list };

std::string_view to_string(GraphFormat format);

// The id a file of this format gives vertex 0: 1 in DIMACS and Matrix Market, 0 in an edge list.
// Messages and printed paths name vertices as the file does.
std::int64_t first_vertex_id(GraphFormat format);

// The format read_graph() will read the file as (rules above). Throws UsageError for a file that
// cannot be opened.
GraphFormat detect_graph_format(const std::filesystem::path& path);

Graph read_graph(const std::filesystem::path& path);

}  // namespace acclab::io
