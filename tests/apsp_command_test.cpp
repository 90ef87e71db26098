// acclab apsp FILE, the real binary, and the graph solve behind it
// (workloads/apsp/graph_solve.hpp): the formats, queries, --paths, --out, and bad input
// (status 2, one line, no file written).
#include <gtest/gtest.h>

#include "apsp_test.hpp"

namespace acclab::apsp_test {
namespace {

// ---- acclab apsp FILE --------------------------------------------------------------------------

TEST(ApspCommandTest, EdgeListLongestPathsQueryAndCsv) {
  test::TempDir dir;
  const auto graph = dir.path() / "g.txt";
  write_text(graph, "# u v w\n0 1 2.5\n1 2 1\n2 0 -10\n");
  const auto out = dir.path() / "d.csv";
  const Outcome o =
      run_acclab({"apsp", graph.string(), "--query", "0", "2", "--out", out.string()});
  ASSERT_EQ(o.status, 0) << o;
  EXPECT_NE(o.out.find("3 vertices, 3 edges (edge list)"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("query 0 -> 2: length 3.5 (along the path 3.5), 2 edges: 0 1 2"),
            std::string::npos)
      << o.out;
  EXPECT_EQ(test::read_file(out), "0,2.5,3.5\n-9,0,1\n-10,-7.5,0\n");
}

// The digest acclab apsp reports, as a line and in --format json, is the written matrix's, and
// the same from two variants.
TEST(ApspCommandTest, DigestOfTheWrittenMatrixInLinesAndJson) {
  test::TempDir dir;
  const auto graph = dir.path() / "g.txt";
  write_text(graph, "0 1 2.5\n1 2 1\n2 3 -0.75\n3 4 4\n0 4 1\n");
  const auto out = dir.path() / "d.bin";
  const Outcome json = run_acclab({"apsp", graph.string(), "--variant", "serial", "--semiring",
                                   "min-plus", "--format", "json", "--out", out.string()});
  ASSERT_EQ(json.status, 0) << json;
  const auto doc = parse_json(json.out);
  EXPECT_EQ(doc["schema"], "acclab.apsp/1");
  EXPECT_EQ(doc["variant"], "serial");
  EXPECT_EQ(doc["vertices"], 5);
  EXPECT_EQ(doc["reachable_pairs"], 10);
  EXPECT_EQ(doc["extreme_distance"], -0.75);
  EXPECT_EQ(doc["out"], out.string());
  EXPECT_TRUE(doc["mpi"].is_null());
  // Where it came from, as every report says: the build and the words it was run with.
  EXPECT_TRUE(doc["build"]["commit"].is_string()) << doc["build"].dump();
  EXPECT_EQ(doc["command_line"].size(), 11u) << doc["command_line"].dump();
  EXPECT_EQ(doc["command_line"].back(), out.string());
  EXPECT_EQ(doc["command_line"][1], "apsp");
  const auto matrix = io::read_dense_matrix(out);
  ASSERT_EQ(matrix.rows, 5);
  const std::string digest = apsp::digest_text(apsp::digest_sum(5, matrix.values.data()));
  EXPECT_EQ(doc["matrix_digest"], digest);
  const Outcome lines =
      run_acclab({"apsp", graph.string(), "--variant", "multicore", "--semiring", "min-plus"});
  ASSERT_EQ(lines.status, 0) << lines;
  EXPECT_NE(lines.out.find("\nmatrix digest: " + digest + "\n"), std::string::npos) << lines.out;
  EXPECT_TRUE(
      is_usage_error(run_acclab({"apsp", graph.string(), "--format", "csv"}), {"--format csv"}));
}

TEST(ApspCommandTest, CycleIsRefusedNamingAVertexAndNothingIsWritten) {
  test::TempDir dir;
  const auto graph = dir.path() / "g.gr";
  // DIMACS, 1-based: 2 -> 3 -> 2 weighs -2 in all: a negative cycle for shortest paths.
  write_text(graph, "c two-cycle\np sp 3 3\na 1 2 4\na 2 3 -1\na 3 2 -1\n");
  const auto out = dir.path() / "d.bin";
  const Outcome o =
      run_acclab({"apsp", graph.string(), "--semiring", "min-plus", "--out", out.string()});
  EXPECT_TRUE(is_usage_error(o, {"g.gr", "negative cycle"})) << o;
  EXPECT_TRUE(o.err.find("vertex 2") != std::string::npos ||
              o.err.find("vertex 3") != std::string::npos)
      << o.err;
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"g.gr"}) << "no output file";
  // Undirected unit weights: every edge is a positive cycle for longest paths.
  const Outcome books = run_acclab({"apsp", graph_file("polbooks.mtx")});
  EXPECT_TRUE(is_usage_error(books, {"polbooks.mtx", "positive cycle"})) << books;
}

TEST(ApspCommandTest, RealGraphShortestPathsAgreeAcrossVariantsAndPathsResum) {
  if (!multidevice_built()) GTEST_SKIP() << "no OpenACC variants in this build";
  test::TempDir dir;
  std::vector<std::string> outputs;
  for (const std::vector<std::string>& variant :
       {std::vector<std::string>{"--variant", "serial"},
        std::vector<std::string>{"--variant", "multidevice", "--devices", "3"}}) {
    const auto out = dir.path() / fmt::format("d{}.bin", outputs.size());
    std::vector<std::string> args = {"apsp",       graph_file("test_FW_1000.mtx"),
                                     "--semiring", "min-plus",
                                     "--query",    "1",
                                     "999",        "--out",
                                     out.string()};
    args.insert(args.end(), variant.begin(), variant.end());
    const Outcome o = run_acclab(args, std::chrono::seconds(300));
    if (o.status == 2 && o.err.find("no CUDA") != std::string::npos) GTEST_SKIP() << o.err;
    ASSERT_EQ(o.status, 0) << o;
    // The path's weights summed again equal the matrix's length.
    const auto at = o.out.find("query 1 -> 999: length ");
    ASSERT_NE(at, std::string::npos) << o.out;
    double length = 0, along = 0;
    ASSERT_EQ(std::sscanf(o.out.c_str() + at, "query 1 -> 999: length %lf (along the path %lf)",
                          &length, &along),
              2);
    EXPECT_EQ(length, along);
    EXPECT_GT(length, 0);
    const auto matrix = io::read_dense_matrix(out);
    EXPECT_EQ(matrix.rows, 1000);
    EXPECT_EQ(matrix.values[0 * 1000 + 998], length);  // 1-based ids in the file
    outputs.push_back(test::read_file(out));
  }
  EXPECT_EQ(outputs[0], outputs[1]) << "bitwise the same matrix";
}

// The seed's program itself (its -1e7 "INF", its diagonal, its loops and its test draws),
// written out here: acclab apsp --seed-graph prints the same 20 lines.
TEST(ApspCommandTest, SeedGraphPrintsTheSeedProgramsTestLines) {
  constexpr int size = 128;
  std::vector<float> data(size * size, -1e7f);
  std::srand(size);
  for (int i = 0; i < size * 20; i++) {
    const int prev = std::rand() % size, next = std::rand() % size;
    if (prev == next || data[prev * size + next] > -1e7f) {
      i--;
      continue;
    }
    data[prev * size + next] = float(std::log((std::rand() % 99 + 1.0) / 100));
  }
  for (int k = 0; k < size; k++) {
    for (int i = 0; i < size; i++) {
      for (int j = 0; j < size; j++) {
        if (data[i * size + j] < data[i * size + k] + data[k * size + j]) {
          data[i * size + j] = data[i * size + k] + data[k * size + j];
        }
      }
    }
  }
  std::string expected;
  for (int i = 0; i < 20; i++) {
    const int prev = std::rand() % size, next = std::rand() % size;
    if (prev == next) {
      i--;
      continue;
    }
    expected += fmt::format("test {} {} {:f}\n", prev, next, data[prev * size + next]);
  }
  const Outcome o = run_acclab({"apsp", "--seed-graph", "128", "--variant", "serial"});
  ASSERT_EQ(o.status, 0) << o;
  const auto first = o.out.find("test ");
  ASSERT_NE(first, std::string::npos) << o.out;
  EXPECT_EQ(o.out.substr(first, expected.size()), expected);
  EXPECT_NE(o.out.find("time "), std::string::npos);
}

// 0 is a size like any other: refused with the range, not read as "no --seed-graph given".
TEST(ApspCommandTest, SeedGraphOfZeroVerticesNamesTheRange) {
  EXPECT_TRUE(is_usage_error(run_acclab({"apsp", "--seed-graph", "0"}),
                             {"--seed-graph 0", "expected 21 to"}));
  EXPECT_TRUE(is_usage_error(run_acclab({"apsp"}), {"expected a graph FILE or --seed-graph N"}));
}

// The result never replaces the graph it came from, and a format without a file is a mistake.
TEST(ApspCommandTest, OutIsNeverTheInputAndOutFormatNeedsOut) {
  test::TempDir dir;
  const auto graph = dir.path() / "g.txt";
  write_text(graph, "0 1 1\n1 2 1\n");
  EXPECT_TRUE(is_usage_error(
      run_acclab({"apsp", graph.string(), "--semiring", "min-plus", "--out", graph.string()}),
      {"--out " + graph.string(), "is the input"}));
  std::ifstream in(graph);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "0 1 1\n1 2 1\n");
  EXPECT_TRUE(is_usage_error(
      run_acclab({"apsp", graph.string(), "--semiring", "min-plus", "--out-format", "csv"}),
      {"--out-format csv", "no --out"}));
}

TEST(ApspCommandTest, QueryFollowsZeroWeightCyclesToTheTarget) {
  test::TempDir dir;
  const auto graph = dir.path() / "g.txt";
  // 0 <-> 1 at zero weight, then 0 -> 2: a greedy walk could enter 1 and stall.
  write_text(graph, "0 1 0\n1 0 0\n0 2 1\n1 2 5\n");
  const Outcome o =
      run_acclab({"apsp", graph.string(), "--semiring", "min-plus", "--query", "1", "2"});
  ASSERT_EQ(o.status, 0) << o;
  EXPECT_NE(o.out.find("query 1 -> 2: length 1 (along the path 1), 2 edges: 1 0 2"),
            std::string::npos)
      << o.out;
}

// ---- acclab apsp --paths -----------------------------------------------------------------------

// The numbers of a "query U -> V: length L (along the path A), E edges: X Y ..." line.
struct QueryLine {
  double length = 0, along = 0;
  std::size_t edges = 0;
  std::vector<std::int64_t> vertices;
};

QueryLine query_line(const std::string& out, std::int64_t u, std::int64_t v) {
  QueryLine q;
  const std::string head = fmt::format("query {} -> {}: length ", u, v);
  const auto at = out.find(head);
  EXPECT_NE(at, std::string::npos) << out;
  if (at == std::string::npos) return q;
  const std::string line = out.substr(at, out.find('\n', at) - at);
  int consumed = 0;
  EXPECT_EQ(std::sscanf(line.c_str() + head.size(), "%lf (along the path %lf), %zu edges:%n",
                        &q.length, &q.along, &q.edges, &consumed),
            3)
      << line;
  std::istringstream rest(line.substr(head.size() + consumed));
  for (std::int64_t x; rest >> x;) q.vertices.push_back(x);
  return q;
}

TEST(ApspCommandTest, PathsQueryFollowsSuccessorsOnAnEdgeList) {
  test::TempDir dir;
  const auto graph = dir.path() / "g.txt";
  write_text(graph, "# u v w\n0 1 2.5\n1 2 1\n2 0 -10\n");
  const Outcome o =
      run_acclab({"apsp", graph.string(), "--paths", "--query", "0", "2", "--variant", "serial"});
  ASSERT_EQ(o.status, 0) << o;
  EXPECT_NE(o.out.find("query 0 -> 2: length 3.5 (along the path 3.5), 2 edges: 0 1 2"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("paths: successors followed from 3 sources, 6 paths re-sum to their "
                       "lengths"),
            std::string::npos)
      << o.out;
  // Zero-weight cycles: the successors do not loop.
  write_text(graph, "0 1 0\n1 0 0\n0 2 1\n1 2 5\n");
  const Outcome zero = run_acclab({"apsp", graph.string(), "--semiring", "min-plus", "--paths",
                                   "--query", "1", "2", "--variant", "multicore"});
  ASSERT_EQ(zero.status, 0) << zero;
  EXPECT_NE(zero.out.find("query 1 -> 2: length 1 (along the path 1), 2 edges: 1 0 2"),
            std::string::npos)
      << zero.out;
}

TEST(ApspCommandTest, PathsQueryOnAMatrixMarketGraphWalksItsEdges) {
  // polbooks: undirected, unit weights, connected: shortest path lengths count edges.
  const auto file = graph_file("polbooks.mtx");
  const io::Graph graph = io::read_graph(file);
  std::set<std::pair<std::int64_t, std::int64_t>> arcs;
  for (const auto& e : graph.edges) arcs.insert({e.from + 1, e.to + 1});  // 1-based as printed
  for (const char* variant : {"serial", "multicore"}) {
    SCOPED_TRACE(variant);
    const Outcome o = run_acclab({"apsp", file, "--semiring", "min-plus", "--paths", "--query", "1",
                                  "105", "--variant", variant});
    ASSERT_EQ(o.status, 0) << o;
    EXPECT_NE(o.out.find("paths: successors followed from 8 sources, 832 paths re-sum"),
              std::string::npos)
        << o.out;
    const QueryLine q = query_line(o.out, 1, 105);
    EXPECT_EQ(q.length, q.along);
    EXPECT_EQ(q.length, double(q.edges));
    ASSERT_EQ(q.vertices.size(), q.edges + 1);
    EXPECT_EQ(q.vertices.front(), 1);
    EXPECT_EQ(q.vertices.back(), 105);
    for (std::size_t s = 0; s + 1 < q.vertices.size(); ++s) {
      EXPECT_TRUE(arcs.count({q.vertices[s], q.vertices[s + 1]}))
          << q.vertices[s] << " -> " << q.vertices[s + 1];
    }
  }
}

TEST(ApspCommandTest, PathsQueryAgreesWithTheMatrixOnARealWeightedGraph) {
  // test_FW_1000: integer weights with many zeros (zero-weight cycles) and self loops.
  const Outcome o = run_acclab({"apsp", graph_file("test_FW_1000.mtx"), "--semiring", "min-plus",
                                "--paths", "--query", "1", "999", "--variant", "multicore"},
                               std::chrono::seconds(300));
  ASSERT_EQ(o.status, 0) << o;
  EXPECT_NE(o.out.find(" paths re-sum to their lengths"), std::string::npos) << o.out;
  const QueryLine q = query_line(o.out, 1, 999);
  EXPECT_GT(q.length, 0);
  EXPECT_EQ(q.length, q.along);
  EXPECT_EQ(q.vertices.front(), 1);
  EXPECT_EQ(q.vertices.back(), 999);
}

TEST(ApspCommandTest, PathsWithAVariantWithoutSuccessorsExitsTwoNamingIt) {
  std::string unsupported;
  for (const auto& name : test::variant_names("apsp")) {
    const bool cuda = test::variant_of("apsp", name).backend == Backend::cuda;
    if (!keeps_paths(name) && (!cuda || test::cuda_gpu_here())) {
      unsupported = name;
      break;
    }
  }
  if (unsupported.empty()) GTEST_SKIP() << "every apsp variant built here keeps successors";
  test::TempDir dir;
  write_text(dir.path() / "g.txt", "0 1 -1\n1 2 -1\n");
  const Outcome o = run_acclab({"apsp", (dir.path() / "g.txt").string(), "--paths", "--query", "0",
                                "2", "--variant", unsupported});
  EXPECT_TRUE(is_usage_error(o, {"apsp/" + unsupported, "successor"})) << o;
  const Outcome r =
      run_acclab({"run", "apsp", "--variant", unsupported, "--set", "paths=1", "--reps", "1"});
  EXPECT_TRUE(is_usage_error(r, {"apsp/" + unsupported, "paths=1"})) << r;
}

// `acclab apsp ARGS` beside the four files any case may name.
test::BadInput command(std::string name, std::vector<std::string> args, std::string names) {
  args.insert(args.begin(), "apsp");
  return {std::move(name),
          std::move(args),
          {std::move(names)},
          {{"g.txt", "0 1 1\n1 2 x\n"},
           {"ok.txt", "0 1 -1\n1 2 -1\n"},
           {"big.txt", "0 1 3e38\n1 2 3e38\n2 3 -3e38\n"},
           {"wide.txt", "0 46340 1\n"}}};
}

using test::BadInputTest;

INSTANTIATE_TEST_SUITE_P(
    ApspCommand, BadInputTest,
    ::testing::Values(
        command("MissingFile", {"@missing.txt"}, "missing.txt"),
        command("UnreadableWeight", {"@g.txt"}, "g.txt:2"),
        command("QueryPastTheLastVertex", {"@ok.txt", "--query", "0", "3"}, "--query"),
        command("SemiringMax", {"@ok.txt", "--semiring", "max"}, "--semiring"),
        command("UnknownVariant", {"@ok.txt", "--variant", "bellman"}, "bellman"),
        command("OutFormatXml", {"@ok.txt", "--out-format", "xml"}, "xml"),
        command("OutInAMissingDirectory", {"@ok.txt", "--out", "@no/such/dir/d.bin"}, "d.bin"),
        command("OutIsADirectory", {"@ok.txt", "--out", "@"}, "is a directory"),
        command("DevicesZero", {"@ok.txt", "--devices", "0"},
                "--devices 0: must be an integer from 1 to 64"),
        command("Devices99", {"@ok.txt", "--devices", "99"},
                "--devices 99: must be an integer from 1 to 64"),
        // A variant that ignores devices: an error naming both, not a silent single device.
        command("DevicesWithSerial", {"@ok.txt", "--devices", "4", "--variant", "serial"},
                "--devices 4: --variant serial"),
        command("DevicesWithMulticorePaths",
                {"@ok.txt", "--devices", "2", "--variant", "multicore", "--paths"},
                "--variant multicore"),
        command("WeightsOverflow", {"@big.txt", "--out", "@d.bin"}, "overflows"),
        // Past 2^31 elements, a step that indexes in 32 bits.
        command("MulticoreIndexesIn32Bits",
                {"@wide.txt", "--variant", "multicore", "--out", "@d.bin"},
                "46341 vertices: --variant multicore indexes the dense n x n matrix in 32 "
                "bits")),
    test::bad_input_name);

// ---- the graph solve behind acclab apsp (workloads/apsp/graph_solve.hpp) ----------------------

// A graph as an edge list file would give it: 0-based ids, named "g.txt".
apsp::UserGraph user_graph(std::int64_t n, std::vector<io::Edge> edges) {
  apsp::UserGraph user;
  user.graph.n = n;
  user.graph.edges = std::move(edges);
  user.source = "g.txt";
  user.kind = "edge list";
  return user;
}

apsp::GraphSolution solve(const apsp::UserGraph& user, apsp::GraphSolveOptions options) {
  Machine machine;
  return apsp::solve_graph(user, options, test::all(), machine);
}

TEST(ApspGraphSolveTest, LongestPathsTheirSummaryAndAQueryReadOffTheMatrix) {
  // A parallel edge 0 -> 1 worse than the other: the query's re-sum takes the best.
  const auto user = user_graph(3, {{0, 1, 2.5}, {0, 1, 1}, {1, 2, 1}, {2, 0, -10}});
  const auto s =
      solve(user, {.variant = "serial", .query = std::pair<std::int64_t, std::int64_t>{0, 2}});
  EXPECT_EQ(s.variant, "serial");
  const std::vector<float> expected = {0, 2.5, 3.5, -9, 0, 1, -10, -7.5, 0};
  EXPECT_EQ(std::vector<float>(s.distances().begin(), s.distances().end()), expected);
  EXPECT_EQ(s.reachable, 6);
  EXPECT_EQ(s.extreme, 3.5f);
  EXPECT_FALSE(s.path_check);
  EXPECT_TRUE(s.seed_lines.empty());
  ASSERT_TRUE(s.query);
  EXPECT_EQ(s.query->outcome, apsp::PathQuery::Outcome::found);
  EXPECT_EQ(s.query->vertices, (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(s.query->length, 3.5f);
  EXPECT_EQ(s.query->along, 3.5);
  EXPECT_TRUE(s.paths_ok());
}

TEST(ApspGraphSolveTest, PathsFollowTheSuccessorsInTheUsersIds) {
  auto user = user_graph(3, {{0, 1, 0}, {1, 0, 0}, {0, 2, 1}, {1, 2, 5}});
  user.base = 1;  // as DIMACS would number them
  const auto s = solve(user, {.semiring = Semiring::min_plus,
                              .variant = "multicore",
                              .paths = true,
                              .query = std::pair<std::int64_t, std::int64_t>{2, 3}});
  ASSERT_TRUE(s.path_check);
  EXPECT_EQ(s.path_sources, 3);
  EXPECT_EQ(s.path_check->paths, 4) << "vertex 3 reaches none";
  EXPECT_EQ(s.path_check->broken, 0);
  EXPECT_EQ(s.reachable, 4);
  ASSERT_TRUE(s.query);
  EXPECT_EQ(s.query->outcome, apsp::PathQuery::Outcome::found);
  EXPECT_EQ(s.query->from, 2);
  EXPECT_EQ(s.query->vertices, (std::vector<std::int64_t>{2, 1, 3}));
  EXPECT_EQ(s.query->along, 1.0);
  EXPECT_EQ(s.extreme, 0.0f);
  // No path back to vertex 3's predecessors: unreachable, not a failure.
  const auto back = solve(user, {.semiring = Semiring::min_plus,
                                 .variant = "serial",
                                 .paths = true,
                                 .query = std::pair<std::int64_t, std::int64_t>{3, 1}});
  EXPECT_EQ(back.query->outcome, apsp::PathQuery::Outcome::unreachable);
  EXPECT_TRUE(back.paths_ok());
}

TEST(ApspGraphSolveTest, OneVertexRunsPaddedAndComesBackAlone) {
  const auto s = solve(user_graph(1, {}), {.semiring = Semiring::min_plus});
  EXPECT_EQ(std::vector<float>(s.distances().begin(), s.distances().end()), std::vector<float>{0});
  EXPECT_EQ(s.reachable, 0);
  EXPECT_FALSE(s.extreme);
  // The digest of the graph's 1 x 1 matrix, not of the 2 x 2 one it ran as.
  EXPECT_EQ(s.matrix_digest, apsp::digest_text(apsp::digest_term(0, 0.0f)));
}

TEST(ApspGraphSolveTest, UndefinedOrOutOfRangeResultsAndBadRequestsAreUsageErrors) {
  const auto cycle = user_graph(3, {{0, 1, 4}, {1, 2, -1}, {2, 1, -1}});
  const std::string negative =
      test::usage_error_message([&] { solve(cycle, {.semiring = Semiring::min_plus}); });
  EXPECT_TRUE(negative.starts_with("g.txt: vertex 1 lies on a negative cycle") ||
              negative.starts_with("g.txt: vertex 2 lies on a negative cycle"))
      << negative;
  const auto big = user_graph(4, {{0, 1, 3e38}, {1, 2, 3e38}, {2, 3, -3e38}});
  EXPECT_NE(test::usage_error_message([&] { solve(big, {}); }).find("overflows float"),
            std::string::npos);
  EXPECT_NE(test::usage_error_message([&] {
              solve(user_graph(2, {{0, 1, 1e39}}), {});
            }).find("g.txt: edge 0 -> 1: weight 1e+39 outside float range"),
            std::string::npos);
  const auto ok = user_graph(3, {{0, 1, -1}, {1, 2, -1}});
  EXPECT_EQ(test::usage_error_message([&] {
              solve(ok, {.query = std::pair<std::int64_t, std::int64_t>{0, 3}});
            }),
            "--query 0 3: vertex 3 outside 0..2");
  EXPECT_TRUE(test::usage_error_message([&] {
                solve(ok, {.variant = "bellman"});
              }).starts_with("--variant bellman: "));
  // The variants that split over devices are the registry's, as built.
  std::vector<std::string> splitting;
  for (const auto& name : test::variant_names("apsp")) {
    const auto& tunings = test::variant_of("apsp", name).tunings;
    if (std::find(tunings.begin(), tunings.end(), "devices") != tunings.end()) {
      splitting.push_back(name);
    }
  }
  EXPECT_EQ(test::usage_error_message([&] { solve(ok, {.variant = "serial", .devices = 4}); }),
            fmt::format("--devices 4: --variant serial runs on one device (only {} split over "
                        "several)",
                        fmt::join(splitting, " and ")));
}

TEST(ApspGraphSolveTest, DefaultVariantRunsHereAndKeepsSuccessorsWhenAsked) {
  Machine machine;
  for (const bool paths : {false, true}) {
    SCOPED_TRACE(paths);
    const Variant& v = apsp::default_graph_variant(test::all(), machine, paths, 1000);
    EXPECT_EQ(v.workload, "apsp");
    if (paths) {
      EXPECT_NE(std::find(v.tunings.begin(), v.tunings.end(), "paths"), v.tunings.end()) << v.name;
    }
    const bool gpu = machine.cuda_available() || machine.openacc_runs_on_gpu();
    if (!gpu) {
      EXPECT_EQ(v.name, "multicore") << "without a GPU the fastest CPU variant";
    } else {
      EXPECT_NE(v.backend, Backend::serial);
      EXPECT_NE(v.backend, Backend::openmp);
    }
    // Past n^2 = 2^31 a step indexing in 64 bits: on the CPU mpi_host where MPI is built.
    const Variant& wide = apsp::default_graph_variant(test::all(), machine, paths, 46341);
    if (gpu) {
      EXPECT_TRUE(apsp::is_wide_step(wide.name)) << wide.name;
    } else {
      const bool mpi = std::ranges::any_of(test::all().select("apsp", "*"),
                                           [](const Variant* x) { return x->name == "mpi_host"; });
      EXPECT_EQ(wide.name, mpi ? "mpi_host" : "multicore");
    }
  }
}

TEST(ApspGraphSolveTest, UserGraphsNameTheirVerticesAsTheirFilesDo) {
  test::TempDir dir;
  write_text(dir.path() / "g.gr", "p sp 3 2\na 1 2 4\na 2 3 -1\n");
  const auto dimacs = apsp::read_user_graph((dir.path() / "g.gr").string());
  EXPECT_EQ(dimacs.base, 1);
  EXPECT_EQ(dimacs.kind, "DIMACS");
  EXPECT_EQ(dimacs.graph.n, 3);
  EXPECT_FALSE(dimacs.seed);
  write_text(dir.path() / "g.txt", "0 1048576 1\n");
  const std::string large = (dir.path() / "g.txt").string();
  EXPECT_EQ(test::usage_error_message([&] { apsp::read_user_graph(large); }),
            large + ": 1048577 vertices: more than the 1048576 apsp takes");
  // Past 2^31 elements: read, and refused by a step that indexes in 32 bits, before it allocates.
  write_text(dir.path() / "w.txt", "0 46340 1\n");
  const std::string wide = (dir.path() / "w.txt").string();
  const auto past = apsp::read_user_graph(wide);
  EXPECT_EQ(past.graph.n, 46341);
  for (const std::string step : {"serial", "multicore"}) {
    const std::string message = test::usage_error_message([&] { solve(past, {.variant = step}); });
    EXPECT_EQ(message.rfind(wide + ": 46341 vertices: --variant " + step +
                                " indexes the dense n x n matrix in 32 bits, at most 46340",
                            0),
              0u)
        << message;
    EXPECT_NE(message.find("cuda_blocked"), std::string::npos) << message;
  }
  EXPECT_NE(test::usage_error_message([] {
              apsp::seed_user_graph(20, Semiring::max_plus);
            }).find("--seed-graph 20"),
            std::string::npos);
  const auto seed = apsp::seed_user_graph(21, Semiring::min_plus);
  ASSERT_TRUE(seed.seed);
  EXPECT_EQ(seed.graph.edges.size(), 21u * 20);
  EXPECT_EQ(seed.base, 0);
  const auto s = solve(seed, {.semiring = Semiring::min_plus, .variant = "serial"});
  EXPECT_EQ(s.seed_lines.size(), 20u);
}

}  // namespace
}  // namespace acclab::apsp_test
