// The readers and writers of users' files (src/io): Matrix Market, the three graph formats and
// dense result matrices. Valid files are real ones from tests/data (with their documented quirks)
// or written here; every broken file must give one UsageError line that starts "FILE:LINE:" (or
// "FILE:" where no line applies) and says what is wrong.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "io/dense_matrix.hpp"
#include "io/graph.hpp"
#include "io/line_reader.hpp"
#include "io/matrix_market.hpp"
#include "support.hpp"

namespace acclab::io {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

fs::path data_file(const std::string& name) { return fs::path(ACCLAB_TEST_DATA) / name; }

fs::path write_text(const TempDir& dir, const std::string& name, const std::string& text) {
  const fs::path path = dir.path() / name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// The message of the UsageError that `read` throws, or a test failure when it throws none.
template <typename Read>
std::string usage_error_of(Read&& read) {
  std::string message = test::usage_error_message(std::forward<Read>(read));
  if (message.empty()) ADD_FAILURE() << "no UsageError";
  return message;
}

// One line that starts "FILE:LINE: " (line > 0) or "FILE: " (line 0) and contains `fragment`.
::testing::AssertionResult names_place(const std::string& message, const fs::path& path,
                                       std::int64_t line, const std::string& fragment) {
  const std::string place =
      line > 0 ? path.string() + ":" + std::to_string(line) + ": " : path.string() + ": ";
  if (!message.starts_with(place)) {
    return ::testing::AssertionFailure()
           << "'" << message << "' does not start with '" << place << "'";
  }
  if (message.find(fragment) == std::string::npos) {
    return ::testing::AssertionFailure() << "'" << message << "' does not say '" << fragment << "'";
  }
  if (message.find('\n') != std::string::npos) {
    return ::testing::AssertionFailure() << "'" << message << "' is more than one line";
  }
  return ::testing::AssertionSuccess();
}

// A broken file, the line its error must name (0: none) and a part of what the error must say.
struct BrokenFile {
  std::string name;
  std::string content;
  std::int64_t line;
  std::string fragment;
};

std::int64_t diagonal_count(const std::vector<MatrixEntry>& entries) {
  return std::count_if(entries.begin(), entries.end(),
                       [](const MatrixEntry& e) { return e.row == e.col; });
}

std::vector<std::tuple<std::int64_t, std::int64_t, double>> sorted_triplets(
    const std::vector<MatrixEntry>& entries, bool transposed = false) {
  std::vector<std::tuple<std::int64_t, std::int64_t, double>> triplets;
  for (const auto& e : entries) {
    triplets.emplace_back(transposed ? e.col : e.row, transposed ? e.row : e.col, e.value);
  }
  std::sort(triplets.begin(), triplets.end());
  return triplets;
}

// ---- Matrix Market -----------------------------------------------------------------------------

TEST(MatrixMarketTest, ReadsLfat5AsStored) {
  const MatrixMarket m = read_matrix_market(data_file("matrices/LFAT5.mtx"));
  EXPECT_EQ(m.rows, 14);
  EXPECT_EQ(m.cols, 14);
  EXPECT_EQ(m.field, MatrixField::real);
  EXPECT_EQ(m.symmetry, MatrixSymmetry::symmetric);
  EXPECT_EQ(m.size_line, 18);  // after 17 banner and comment lines
  ASSERT_EQ(m.entries.size(), 30u);
  // "1 1 1.57088", "4 1 -94.2528", ..., "14 13 .78544", "14 14 1.57088": 0-based here.
  EXPECT_EQ(m.entries[0], (MatrixEntry{0, 0, 1.57088}));
  EXPECT_EQ(m.entries[1], (MatrixEntry{3, 0, -94.2528}));
  EXPECT_EQ(m.entries[28], (MatrixEntry{13, 12, 0.78544}));
  EXPECT_EQ(m.entries[29], (MatrixEntry{13, 13, 1.57088}));
}

// The data's README: a symmetric file stores one triangle, so the full matrix has
// 2 * entries - diagonal entries; the full counts are the SuiteSparse collection's nnz.
TEST(MatrixMarketTest, SymmetricExpansionGivesTwiceTheEntriesLessTheDiagonal) {
  struct Case {
    std::string file;
    std::size_t entries;
    std::int64_t diagonal;
    std::size_t full;
  };
  const std::vector<Case> cases = {
      {"matrices/LFAT5.mtx", 30, 14, 46},         {"matrices/bcsstk01.mtx", 224, 48, 400},
      {"matrices/494_bus.mtx", 1080, 494, 1666},  {"graphs/polbooks.mtx", 441, 0, 882},
      {"graphs/USPowerGrid.mtx", 6594, 0, 13188},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    const MatrixMarket m = read_matrix_market(data_file(c.file));
    EXPECT_EQ(m.symmetry, MatrixSymmetry::symmetric);
    ASSERT_EQ(m.entries.size(), c.entries);
    EXPECT_EQ(diagonal_count(m.entries), c.diagonal);
    const std::vector<MatrixEntry> full = expand_symmetric(m);
    EXPECT_EQ(full.size(), 2 * c.entries - c.diagonal);
    EXPECT_EQ(full.size(), c.full);
    EXPECT_EQ(diagonal_count(full), c.diagonal);  // the diagonal once
    // Symmetric: the expansion equals its own transpose, values included.
    EXPECT_EQ(sorted_triplets(full), sorted_triplets(full, /*transposed=*/true));
  }
}

TEST(MatrixMarketTest, AcceptsEitherStoredTriangle) {
  // The SPD matrices store the lower triangle; USPowerGrid, declared symmetric, the upper one.
  for (const char* file : {"matrices/LFAT5.mtx", "matrices/bcsstk01.mtx", "matrices/494_bus.mtx"}) {
    const MatrixMarket m = read_matrix_market(data_file(file));
    EXPECT_TRUE(std::all_of(m.entries.begin(), m.entries.end(), [](const MatrixEntry& e) {
      return e.row >= e.col;
    })) << file;
  }
  const MatrixMarket grid = read_matrix_market(data_file("graphs/USPowerGrid.mtx"));
  EXPECT_EQ(grid.rows, 4941);
  EXPECT_EQ(grid.size_line, 2);  // no comments
  EXPECT_TRUE(std::all_of(grid.entries.begin(), grid.entries.end(),
                          [](const MatrixEntry& e) { return e.row < e.col && e.value == 1; }));
  EXPECT_EQ(grid.entries.back(), (MatrixEntry{4939, 4940, 1}));
  const std::vector<MatrixEntry> full = expand_symmetric(grid);
  EXPECT_EQ(
      std::count_if(full.begin(), full.end(), [](const MatrixEntry& e) { return e.row > e.col; }),
      6594);
}

TEST(MatrixMarketTest, PatternEntriesHaveValueOne) {
  const MatrixMarket m = read_matrix_market(data_file("graphs/polbooks.mtx"));
  EXPECT_EQ(m.field, MatrixField::pattern);
  EXPECT_EQ(m.rows, 105);
  EXPECT_EQ(m.entries.front(), (MatrixEntry{1, 0, 1}));     // "2 1"
  EXPECT_EQ(m.entries.back(), (MatrixEntry{104, 103, 1}));  // "105 104"
  EXPECT_TRUE(std::all_of(m.entries.begin(), m.entries.end(),
                          [](const MatrixEntry& e) { return e.value == 1; }));
}

// test_FW_1000 is general with a stored diagonal (self-loops). The data's README says "1000
// explicit zero diagonal entries"; the file has 1000 diagonal entries, half of them 0 and half 50,
// and 1000 zero values in all. LAGraph's own test expects weights 0..457.
TEST(MatrixMarketTest, GeneralStorageKeepsTheStoredDiagonalAndIsNotExpanded) {
  const MatrixMarket m = read_matrix_market(data_file("graphs/test_FW_1000.mtx"));
  EXPECT_EQ(m.symmetry, MatrixSymmetry::general);
  EXPECT_EQ(m.field, MatrixField::real);
  ASSERT_EQ(m.entries.size(), 3996u);
  EXPECT_EQ(m.entries.front(), (MatrixEntry{0, 0, 50}));
  EXPECT_EQ(m.entries[1], (MatrixEntry{0, 1, 457}));
  EXPECT_EQ(m.entries.back(), (MatrixEntry{999, 999, 0}));
  EXPECT_EQ(diagonal_count(m.entries), 1000);
  EXPECT_EQ(std::count_if(m.entries.begin(), m.entries.end(),
                          [](const MatrixEntry& e) { return e.row == e.col && e.value == 0; }),
            500);
  EXPECT_EQ(std::count_if(m.entries.begin(), m.entries.end(),
                          [](const MatrixEntry& e) { return e.value == 0; }),
            1000);
  const auto [low, high] = std::minmax_element(
      m.entries.begin(), m.entries.end(),
      [](const MatrixEntry& a, const MatrixEntry& b) { return a.value < b.value; });
  EXPECT_EQ(low->value, 0);
  EXPECT_EQ(high->value, 457);
  EXPECT_EQ(expand_symmetric(m), m.entries);
}

TEST(MatrixMarketTest, AllowsWhatTheFormatAllows) {
  TempDir dir;
  // Banner words in any case, comments and blank lines before the size line, blank lines and
  // CRLF among the entries, tabs, a '+' sign, no newline at the end.
  const fs::path path = write_text(dir, "loose.mtx",
                                   "%%MatrixMarket MATRIX Coordinate Integer General\r\n"
                                   "% a comment\r\n"
                                   "\r\n"
                                   "  % an indented comment\n"
                                   "2 3 3\n"
                                   "\n"
                                   "1\t3\t-7\r\n"
                                   "  2 1 +4  \n"
                                   "% a comment among the entries\n"
                                   "2 2 0");
  const MatrixMarket m = read_matrix_market(path);
  EXPECT_EQ(m.field, MatrixField::integer);
  EXPECT_EQ(m.symmetry, MatrixSymmetry::general);
  EXPECT_EQ(m.rows, 2);
  EXPECT_EQ(m.cols, 3);
  EXPECT_EQ(m.size_line, 5);
  EXPECT_EQ(m.entries, (std::vector<MatrixEntry>{{0, 2, -7}, {1, 0, 4}, {1, 1, 0}}));

  const MatrixMarket empty = read_matrix_market(
      write_text(dir, "empty.mtx", "%%MatrixMarket matrix coordinate real symmetric\n4 4 0\n"));
  EXPECT_EQ(empty.rows, 4);
  EXPECT_TRUE(empty.entries.empty());

  const MatrixMarket reals = read_matrix_market(
      write_text(dir, "reals.mtx",
                 "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 1e3\n2 1 -.5\n"));
  EXPECT_EQ(reals.entries, (std::vector<MatrixEntry>{{0, 0, 1000}, {1, 0, -0.5}}));
  EXPECT_EQ(expand_symmetric(reals),
            (std::vector<MatrixEntry>{{0, 0, 1000}, {1, 0, -0.5}, {0, 1, -0.5}}));
}

TEST(MatrixMarketTest, BrokenFilesNameTheFileAndLine) {
  const std::string real_general = "%%MatrixMarket matrix coordinate real general\n";
  const std::string pattern_general = "%%MatrixMarket matrix coordinate pattern general\n";
  const std::vector<BrokenFile> cases = {
      {"empty", "", 0, "empty file"},
      {"no banner", "3 3 1\n1 1 1\n", 1, "missing Matrix Market banner"},
      {"comment first", "% comment\n" + real_general + "1 1 0\n", 1, "missing Matrix Market"},
      {"short banner", "%%MatrixMarket matrix coordinate real\n1 1 0\n", 1,
       "garbled Matrix Market banner"},
      {"long banner", "%%MatrixMarket matrix coordinate real general extra\n1 1 0\n", 1, "garbled"},
      {"vector", "%%MatrixMarket vector coordinate real general\n1 1 0\n", 1, "object 'vector'"},
      {"array", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1, "'array'"},
      {"unknown format", "%%MatrixMarket matrix sparse real general\n1 1 0\n", 1,
       "unknown format 'sparse'"},
      {"complex", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", 1,
       "complex"},
      {"hermitian", "%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n", 1, "hermitian"},
      {"skew", "%%MatrixMarket matrix coordinate real skew-symmetric\n1 1 0\n", 1,
       "skew-symmetric"},
      {"unknown field", "%%MatrixMarket matrix coordinate reel general\n1 1 0\n", 1,
       "unknown field 'reel'"},
      {"unknown symmetry", "%%MatrixMarket matrix coordinate real lower\n1 1 0\n", 1,
       "unknown symmetry 'lower'"},
      {"no size line", real_general + "% only a comment\n", 2, "before the size line"},
      {"two sizes", real_general + "% c\n3 3\n", 3, "bad size line '3 3'"},
      {"four sizes", real_general + "3 3 1 1\n1 1 1\n", 2, "bad size line"},
      {"size not a number", real_general + "3 x 1\n1 1 1\n", 2, "bad size line"},
      {"negative size", real_general + "-3 3 1\n1 1 1\n", 2, "negative"},
      {"symmetric not square", "%%MatrixMarket matrix coordinate real symmetric\n3 4 1\n1 1 1\n", 2,
       "must be square; this one is 3 x 4"},
      {"too many declared", real_general + "2 2 5\n", 2, "more than a 2 x 2 matrix has"},
      {"row 0", real_general + "3 3 1\n0 1 1\n", 3, "row index 0 is out of range 1..3"},
      {"row too large", real_general + "3 3 2\n1 1 1\n4 1 1\n", 4, "row index 4 is out of range"},
      {"column too large", real_general + "3 2 1\n1 3 1\n", 3,
       "column index 3 is out of range 1..2"},
      {"negative index", real_general + "3 3 1\n1 -2 1\n", 3, "column index -2 is out of range"},
      {"index not an integer", real_general + "3 3 1\n1.5 1 1\n", 3,
       "row index '1.5' is not an integer"},
      {"value missing", real_general + "3 3 1\n1 1\n", 3, "expected 3 values"},
      {"value extra", real_general + "3 3 1\n1 1 1 1\n", 3, "found 4 values"},
      {"pattern with a value", pattern_general + "3 3 1\n1 1 1\n", 3, "expected 2 values"},
      {"value not a number", real_general + "3 3 1\n1 1 abc\n", 3,
       "value 'abc' is not a finite number"},
      {"value half a number", real_general + "3 3 1\n1 1 1.5x\n", 3, "value '1.5x'"},
      {"value nan", real_general + "3 3 1\n1 1 nan\n", 3, "not a finite number"},
      {"value inf", real_general + "3 3 1\n1 1 -inf\n", 3, "not a finite number"},
      {"value too large", real_general + "3 3 1\n1 1 1e999\n", 3, "not a finite number"},
      {"integer field, real value",
       "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 1.5\n", 3,
       "value '1.5' is not an integer"},
      {"truncated", real_general + "3 3 3\n1 1 1\n2 2 2\n", 4,
       "file ends after 2 of the 3 entries declared on line 2"},
      {"truncated after blank lines", real_general + "3 3 3\n1 1 1\n\n\n", 5,
       "file ends after 1 of the 3"},
      {"no entries at all", real_general + "3 3 3\n", 2, "file ends after 0 of the 3"},
      {"cut mid-line", real_general + "3 3 3\n1 1 1\n2 2 2\n3 3", 5, "expected 3 values"},
      {"more entries", real_general + "3 3 1\n1 1 1\n2 2 2\n", 4,
       "more entries than the 1 declared on line 2"},
      // Counts no file of this size can hold: refused at the size line, before any allocation.
      {"entries beyond the bytes", real_general + "3000000 3000000 2000000000\n1 1 1\n", 2,
       "2000000000 entries declared, more than the 6 bytes left in the file can hold"},
      {"pattern entries beyond the bytes", pattern_general + "3000000 3000000 1048577\n1 1\n", 2,
       "more than the 4 bytes left"},
  };
  TempDir dir;
  int index = 0;
  for (const BrokenFile& c : cases) {
    SCOPED_TRACE(c.name);
    const fs::path path = write_text(dir, "broken" + std::to_string(index++) + ".mtx", c.content);
    const std::string message = usage_error_of([&] { read_matrix_market(path); });
    EXPECT_TRUE(names_place(message, path, c.line, c.fragment));
  }
}

TEST(MatrixMarketTest, UnreadableFilesNameTheFile) {
  TempDir dir;
  const fs::path missing = dir.path() / "missing.mtx";
  EXPECT_TRUE(names_place(usage_error_of([&] { read_matrix_market(missing); }), missing, 0,
                          "cannot open (No such file or directory)"));
  EXPECT_TRUE(names_place(usage_error_of([&] { read_matrix_market(dir.path()); }), dir.path(), 0,
                          "is a directory"));
}

// ---- graphs ------------------------------------------------------------------------------------

std::int64_t self_loops(const Graph& g) {
  return std::count_if(g.edges.begin(), g.edges.end(),
                       [](const Edge& e) { return e.from == e.to; });
}

// Every arc u -> v has an arc v -> u of the same weight.
bool has_both_directions(const Graph& g) {
  std::multiset<std::tuple<std::int64_t, std::int64_t, double>> forward, backward;
  for (const Edge& e : g.edges) {
    forward.emplace(e.from, e.to, e.weight);
    backward.emplace(e.to, e.from, e.weight);
  }
  return forward == backward;
}

const std::string kDimacs =
    "c a small graph\n"
    "c\n"
    "p sp 4 3\n"
    "c arcs follow\n"
    "a 1 2 5\n"
    "a 2 3 -1.5\n"
    "\n"
    "a 4 4 0\n";

TEST(GraphTest, ReadsDimacsArcsOneBased) {
  TempDir dir;
  const fs::path path = write_text(dir, "small.gr", kDimacs);
  EXPECT_EQ(detect_graph_format(path), GraphFormat::dimacs);
  const Graph g = read_graph(path);
  EXPECT_EQ(g.n, 4);
  EXPECT_EQ(g.edges, (std::vector<Edge>{{0, 1, 5}, {1, 2, -1.5}, {3, 3, 0}}));
  // The content decides, whatever the name; and a .gr name decides for content that could be
  // an edge list.
  EXPECT_EQ(read_graph(write_text(dir, "small.txt", kDimacs)).edges, g.edges);
  EXPECT_EQ(detect_graph_format(write_text(dir, "odd.gr", "1 2 3\n")), GraphFormat::dimacs);
  EXPECT_EQ(read_graph(write_text(dir, "no_arcs.gr", "p sp 7 0\n")).n, 7);
}

TEST(GraphTest, MatrixMarketEntriesAreArcs) {
  const fs::path fw = data_file("graphs/test_FW_1000.mtx");
  EXPECT_EQ(detect_graph_format(fw), GraphFormat::matrix_market);
  const Graph g = read_graph(fw);
  EXPECT_EQ(g.n, 1000);
  ASSERT_EQ(g.edges.size(), 3996u);  // general: as stored
  EXPECT_EQ(g.edges[0], (Edge{0, 0, 50}));
  EXPECT_EQ(g.edges[1], (Edge{0, 1, 457}));
  EXPECT_EQ(g.edges.back(), (Edge{999, 999, 0}));
  EXPECT_EQ(self_loops(g), 1000);  // kept, the caller decides what they mean
}

TEST(GraphTest, SymmetricMatrixMarketGivesBothDirections) {
  const Graph books = read_graph(data_file("graphs/polbooks.mtx"));  // pattern: weight 1
  EXPECT_EQ(books.n, 105);
  EXPECT_EQ(books.edges.size(), 882u);
  EXPECT_EQ(self_loops(books), 0);
  EXPECT_TRUE(std::all_of(books.edges.begin(), books.edges.end(),
                          [](const Edge& e) { return e.weight == 1; }));
  EXPECT_TRUE(has_both_directions(books));

  const Graph grid = read_graph(data_file("graphs/USPowerGrid.mtx"));  // upper triangle stored
  EXPECT_EQ(grid.n, 4941);
  EXPECT_EQ(grid.edges.size(), 2u * 6594u);
  EXPECT_TRUE(has_both_directions(grid));

  // A stored diagonal entry is one self-loop, not two.
  const Graph lfat5 = read_graph(data_file("matrices/LFAT5.mtx"));
  EXPECT_EQ(lfat5.edges.size(), 46u);
  EXPECT_EQ(self_loops(lfat5), 14);
  EXPECT_TRUE(has_both_directions(lfat5));
}

TEST(GraphTest, ReadsPlainEdgeListsZeroBased) {
  TempDir dir;
  const fs::path path = write_text(dir, "edges.txt",
                                   "# a comment\n"
                                   "% another\n"
                                   "0 1 2.5\n"
                                   "1 2\n"
                                   "\n"
                                   "  2 2 -1\r\n"
                                   "5\t0\t3\n");
  EXPECT_EQ(detect_graph_format(path), GraphFormat::edge_list);
  const Graph g = read_graph(path);
  EXPECT_EQ(g.n, 6);  // the largest id + 1: vertices 3 and 4 have no edges
  EXPECT_EQ(g.edges, (std::vector<Edge>{{0, 1, 2.5}, {1, 2, 1}, {2, 2, -1}, {5, 0, 3}}));
  EXPECT_EQ(read_graph(write_text(dir, "loop.txt", "0 0\n")).n, 1);
}

TEST(GraphTest, BrokenFilesNameTheFileAndLine) {
  const std::vector<BrokenFile> cases = {
      // DIMACS
      {"a.gr", "c only comments\n", 0, "no problem line 'p sp NODES ARCS'"},
      {"b.gr", "", 0, "no problem line"},
      {"c.gr", "a 1 2 3\np sp 3 1\n", 1, "arc before the problem line"},
      {"d.gr", "p sp 3 1\nc\np sp 3 1\na 1 2 3\n", 3, "second problem line (the first is line 1)"},
      {"e.gr", "p max 3 1\na 1 2 3\n", 1, "problem type 'max' is not 'sp'"},
      {"f.gr", "p sp 3\n", 1, "bad problem line 'p sp 3'"},
      {"g.gr", "p sp 3 x\n", 1, "bad problem line"},
      {"h.gr", "p sp -3 1\n", 1, "bad problem line"},
      {"i.gr", "p sp 3 1\na 1 2\n", 2, "expected 'a FROM TO WEIGHT', found 3 fields"},
      {"j.gr", "p sp 3 1\na 0 2 1\n", 2, "vertex 0 is out of range 1..3"},
      {"k.gr", "p sp 3 1\na 1 4 1\n", 2, "vertex 4 is out of range 1..3"},
      {"l.gr", "p sp 3 1\na -1 2 1\n", 2, "vertex -1 is out of range"},
      {"m.gr", "p sp 3 1\na 1 two 1\n", 2, "vertex id 'two' is not an integer"},
      {"n.gr", "p sp 3 1\na 1 2 heavy\n", 2, "weight 'heavy' is not a finite number"},
      {"o.gr", "p sp 3 1\na 1 2 nan\n", 2, "weight 'nan' is not a finite number"},
      {"p.gr", "c\np sp 3 2\na 1 2 1\n", 3, "file ends after 1 of the 2 arcs declared on line 2"},
      {"q.gr", "p sp 3 1\na 1 2 1\na 2 3 1\n", 3, "more arcs than the 1 declared on line 1"},
      {"r.gr", "p sp 3 1\ne 1 2\n", 2, "unknown line type 'e'"},
      // plain edge lists
      {"s.txt", "0 1 1\n-1 2 1\n", 2, "negative vertex id -1"},
      {"t.txt", "0 -5\n", 1, "negative vertex id -5"},
      {"u.txt", "0 1 1\n7\n", 2, "expected 'FROM TO WEIGHT' or 'FROM TO', found 1 value"},
      {"v.txt", "0 1 1 1\n", 1, "found 4 values"},
      {"w.txt", "x 1 1\n", 1, "vertex id 'x' is not an integer"},
      {"x.txt", "0 1.5 1\n", 1, "vertex id '1.5' is not an integer"},
      {"y.txt", "0 1 w\n", 1, "weight 'w' is not a finite number"},
      {"z.txt", "0 1 inf\n", 1, "not a finite number"},
      {"aa.txt", "0 99999999999999999999 1\n", 1, "is not an integer"},
      {"ab.txt", "# only comments\n\n", 0, "no edges"},
      {"ac.txt", "", 0, "no edges"},
      {"ad.txt", "% comment\n%%MatrixMarket matrix coordinate real general\n3 3 0\n", 2,
       "banner below line 1"},
      // Matrix Market: its reader's errors, and a matrix that is not square
      {"ae.mtx", "%%MatrixMarket matrix coordinate real general\n3 4 1\n1 1 1\n", 2,
       "a graph needs a square adjacency matrix; this one is 3 x 4"},
      {"af.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n", 3,
       "file ends after 1 of the 2 entries"},
      {"ag.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 9 1\n", 3,
       "column index 9 is out of range 1..3"},
      {"ah.gr", "c\np sp 3 2000000\na 1 2 1\n", 2,
       "2000000 arcs declared, more than the 8 bytes left in the file can hold"},
  };
  TempDir dir;
  for (const BrokenFile& c : cases) {
    SCOPED_TRACE(c.name + ": " + c.content);
    const fs::path path = write_text(dir, c.name, c.content);
    EXPECT_TRUE(names_place(usage_error_of([&] { read_graph(path); }), path, c.line, c.fragment));
  }
  const fs::path missing = dir.path() / "missing.gr";
  EXPECT_TRUE(names_place(usage_error_of([&] { read_graph(missing); }), missing, 0, "cannot open"));
}

// ---- lines without end -------------------------------------------------------------------------

TEST(LineLimitTest, ALineLongerThanTheLimitStopsThereInEveryFormat) {
  TempDir dir;
  const std::string longest(kMaxLineBytes, 'x');
  // At the limit: read (a comment line); one byte more: an error naming the file and line.
  const fs::path fits = write_text(dir, "fits.gr", "c " + longest.substr(2) + "\np sp 2 0\n");
  EXPECT_EQ(read_graph(fits).n, 2);
  const std::vector<BrokenFile> cases = {
      {"a.mtx", "%%MatrixMarket matrix coordinate real general\n% " + longest + "\n1 1 0\n", 2,
       "line longer than 1048576 bytes"},
      {"b.mtx", longest + "x", 1, "line longer than"},
      {"c.gr", "p sp 3 1\na 1 2 " + longest + "\n", 2, "line longer than"},
      {"d.txt", "0 1 1\n1 2 1\n\n0 " + longest, 4, "line longer than"},
  };
  for (const BrokenFile& c : cases) {
    SCOPED_TRACE(c.name);
    const fs::path path = write_text(dir, c.name, c.content);
    const auto read = [&] {
      if (c.name.ends_with(".mtx")) {
        read_matrix_market(path);
      } else {
        read_graph(path);
      }
    };
    EXPECT_TRUE(names_place(usage_error_of(read), path, c.line, c.fragment));
  }
}

TEST(LineLimitTest, DevZeroStopsAtLineOne) {
  const fs::path zero = "/dev/zero";
  if (!fs::exists(zero)) GTEST_SKIP() << "no /dev/zero";
  EXPECT_TRUE(
      names_place(usage_error_of([&] { read_matrix_market(zero); }), zero, 1, "line longer than"));
  EXPECT_TRUE(names_place(usage_error_of([&] { read_graph(zero); }), zero, 1, "line longer than"));
  // The command line: one line, status 2, in bounded memory.
  const test::Outcome o = test::run_acclab({"apsp", "/dev/zero"});
  EXPECT_TRUE(test::is_usage_error(o, {"/dev/zero:1:", "line longer than"}));
  EXPECT_LT(o.max_rss_kib, test::kRefusalPeakKib) << "peak memory";
}

// ---- dense matrices ----------------------------------------------------------------------------

std::vector<float> awkward_values(std::size_t count) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> values = {0.0f,
                               -0.0f,
                               inf,
                               -inf,
                               0.1f,
                               -457.0f,
                               1e-45f,
                               std::numeric_limits<float>::max(),
                               std::numeric_limits<float>::lowest(),
                               16777217.0f};
  std::mt19937 random(42);
  std::uniform_real_distribution<float> uniform(-1000.0f, 1000.0f);
  while (values.size() < count) values.push_back(uniform(random));
  values.resize(count);
  return values;
}

std::uint64_t u64_at(const std::string& bytes, std::size_t offset) {
  std::uint64_t value = 0;
  for (int i = 0; i < 8; ++i) {
    value |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[offset + i])) << (8 * i);
  }
  return value;
}

std::vector<float> parse_csv(const std::string& text, std::int64_t& rows, std::int64_t& cols) {
  std::vector<float> values;
  std::istringstream lines(text);
  std::string line;
  rows = 0;
  cols = 0;
  while (std::getline(lines, line)) {
    std::int64_t in_row = 0;
    std::istringstream cells(line);
    std::string cell;
    while (std::getline(cells, cell, ',')) {
      float value = 0;
      const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
      EXPECT_TRUE(ec == std::errc() && end == cell.data() + cell.size()) << "'" << cell << "'";
      values.push_back(value);
      ++in_row;
    }
    if (rows == 0) cols = in_row;
    EXPECT_EQ(in_row, cols) << "row " << rows;
    ++rows;
  }
  return values;
}

TEST(DenseMatrixTest, BinaryRoundTripIsBitwiseWithTheDocumentedLayout) {
  TempDir dir;
  const fs::path path = dir.path() / "dist.bin";
  std::vector<float> values = awkward_values(7 * 5);
  values[11] = std::numeric_limits<float>::quiet_NaN();
  write_dense_matrix(path, values, 7, 5, DenseFormat::binary);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"dist.bin"});  // no temporary file left

  const std::string bytes = test::read_file(path);
  ASSERT_EQ(bytes.size(), kDenseHeaderBytes + 4 * values.size());
  EXPECT_EQ(bytes.substr(0, 8), "ACCLABDM");
  EXPECT_EQ(u64_at(bytes, 8), 1u);
  EXPECT_EQ(u64_at(bytes, 16), 7u);
  EXPECT_EQ(u64_at(bytes, 24), 5u);
  // -inf at index 3, little-endian binary32: 00 00 80 ff.
  EXPECT_EQ(bytes.substr(32 + 4 * 3, 4), std::string("\x00\x00\x80\xff", 4));

  const DenseMatrix back = read_dense_matrix(path);
  EXPECT_EQ(back.rows, 7);
  EXPECT_EQ(back.cols, 5);
  ASSERT_EQ(back.values.size(), values.size());
  EXPECT_EQ(std::memcmp(back.values.data(), values.data(), 4 * values.size()), 0);

  write_dense_matrix(path, {}, 0, 0, DenseFormat::binary);  // replaces the file
  const DenseMatrix empty = read_dense_matrix(path);
  EXPECT_EQ(empty.rows, 0);
  EXPECT_TRUE(empty.values.empty());
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"dist.bin"});
}

TEST(DenseMatrixTest, CsvWritesInfinitiesAndShortestValues) {
  TempDir dir;
  const fs::path path = dir.path() / "small.csv";
  const float inf = std::numeric_limits<float>::infinity();
  write_dense_matrix(path, std::vector<float>{0, -inf, inf, 1.5f, 0.1f, 457}, 2, 3,
                     DenseFormat::csv);
  EXPECT_EQ(test::read_file(path), "0,-inf,inf\n1.5,0.1,457\n");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"small.csv"});
}

TEST(DenseMatrixTest, CsvRoundTripIsExact) {
  TempDir dir;
  const fs::path path = dir.path() / "m.csv";
  const std::vector<float> values = awkward_values(40 * 40);
  write_dense_matrix(path, values, 40, 40, DenseFormat::csv);
  std::int64_t rows = 0, cols = 0;
  const std::vector<float> back = parse_csv(test::read_file(path), rows, cols);
  EXPECT_EQ(rows, 40);
  EXPECT_EQ(cols, 40);
  ASSERT_EQ(back.size(), values.size());
  EXPECT_EQ(std::memcmp(back.data(), values.data(), 4 * values.size()), 0);
}

TEST(DenseMatrixTest, WrongValueCountIsAProgrammingError) {
  TempDir dir;
  EXPECT_THROW(
      write_dense_matrix(dir.path() / "x.bin", std::vector<float>(5), 2, 3, DenseFormat::binary),
      std::invalid_argument);
  EXPECT_TRUE(dir.entries().empty());
}

TEST(DenseMatrixTest, FailedWriteLeavesNoFile) {
  TempDir dir;
  const std::vector<float> values = awkward_values(4);
  // The directory does not exist.
  const fs::path nowhere = dir.path() / "no_such_dir" / "d.bin";
  EXPECT_TRUE(names_place(
      usage_error_of([&] { write_dense_matrix(nowhere, values, 2, 2, DenseFormat::binary); }),
      nowhere, 0, "cannot write (No such file or directory)"));
  // The target is a directory: refused before anything is written.
  const fs::path taken = dir.path() / "taken";
  fs::create_directory(taken);
  EXPECT_TRUE(names_place(
      usage_error_of([&] { write_dense_matrix(taken, values, 2, 2, DenseFormat::csv); }), taken, 0,
      "is a directory"));
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"taken"});
  EXPECT_TRUE(fs::is_directory(taken));
}

// A write that fails half-way (here the file size limit, EFBIG) leaves neither a partial file nor
// a temporary one, and an existing target keeps its previous content.
TEST(DenseMatrixTest, WriteFailingHalfWayLeavesNoPartialFile) {
  struct FileSizeLimit {
    rlimit saved{};
    void (*saved_handler)(int) = nullptr;
    explicit FileSizeLimit(rlim_t bytes) {
      getrlimit(RLIMIT_FSIZE, &saved);
      saved_handler = signal(SIGXFSZ, SIG_IGN);  // write() then fails with EFBIG
      rlimit limited = saved;
      limited.rlim_cur = bytes;
      setrlimit(RLIMIT_FSIZE, &limited);
    }
    ~FileSizeLimit() {
      setrlimit(RLIMIT_FSIZE, &saved);
      signal(SIGXFSZ, saved_handler);
    }
  };
  TempDir dir;
  const std::vector<float> values = awkward_values(100 * 100);  // 40 kB
  const fs::path fresh = dir.path() / "fresh.bin";
  const fs::path existing = dir.path() / "existing.csv";
  write_dense_matrix(existing, std::vector<float>{1, 2}, 1, 2, DenseFormat::csv);
  for (const DenseFormat format : {DenseFormat::binary, DenseFormat::csv}) {
    std::string fresh_error, existing_error;
    {
      FileSizeLimit limit(4096);
      fresh_error = usage_error_of([&] { write_dense_matrix(fresh, values, 100, 100, format); });
      existing_error =
          usage_error_of([&] { write_dense_matrix(existing, values, 100, 100, format); });
    }
    EXPECT_TRUE(names_place(fresh_error, fresh, 0, "cannot write (File too large)"));
    EXPECT_TRUE(names_place(existing_error, existing, 0, "cannot write"));
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"existing.csv"});
    EXPECT_EQ(test::read_file(existing), "1,2\n");
  }
}

TEST(DenseMatrixTest, ReaderRejectsWhatItDidNotWrite) {
  TempDir dir;
  const fs::path good = dir.path() / "good.bin";
  write_dense_matrix(good, awkward_values(6), 2, 3, DenseFormat::binary);
  const std::string bytes = test::read_file(good);

  auto broken = [&](const std::string& name, const std::string& content) {
    return write_text(dir, name, content);
  };
  std::string other_version = bytes;
  other_version[8] = 2;
  std::string huge = bytes;
  huge.replace(16, 8, std::string(8, '\xff'));
  const std::vector<std::tuple<fs::path, std::string>> cases = {
      {broken("short.bin", bytes.substr(0, 20)), "20 bytes, too short for the 32-byte header"},
      {broken("magic.bin", "ACCLABDX" + bytes.substr(8)), "not an acclab dense matrix"},
      {broken("version.bin", other_version), "version 2 is not supported"},
      {broken("truncated.bin", bytes.substr(0, bytes.size() - 2)),
       "54 bytes, but its header declares a 2 x 3 matrix: 56 bytes (truncated?)"},
      {broken("trailing.bin", bytes + "x"), "57 bytes, but its header declares a 2 x 3 matrix"},
      {broken("huge.bin", huge), "impossible"},
      {broken("text.csv", "1,2\n3,4\n"), "too short"},
      {dir.path() / "missing.bin", "cannot open (No such file or directory)"},
      {dir.path(), "is a directory"},
  };
  for (const auto& [path, fragment] : cases) {
    SCOPED_TRACE(path.string());
    EXPECT_TRUE(names_place(usage_error_of([&] { read_dense_matrix(path); }), path, 0, fragment));
  }
}

}  // namespace
}  // namespace acclab::io
