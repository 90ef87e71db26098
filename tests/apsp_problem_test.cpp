// apsp: the Floyd seed's all-pairs longest (max-plus) and shortest (min-plus) paths, without
// the harness: the generators (the seed's C-library graph, the portable one), the initial
// matrix, the serial step, cycle detection, the seed's test lines, the digests, the workload's
// own checks and verify().
#include <gtest/gtest.h>

#include "apsp_test.hpp"
#ifdef ACCLAB_HAVE_OPENACC
#include "workloads/apsp/acc_kernels.hpp"
#endif

namespace acclab::apsp_test {
namespace {

// ---- the problem -------------------------------------------------------------------------------

TEST(ApspProblemTest, PresetsAndConventions) {
  const Problem seed = problem({}, "seed");
  EXPECT_EQ(seed.n, 4096);
  EXPECT_EQ(seed.generator, apsp::Generator::seed);
  EXPECT_EQ(seed.semiring, Semiring::max_plus);
  EXPECT_EQ(seed.edges_per_vertex, 20);
  EXPECT_EQ(problem({}).n, 97);  // small: no block of 64 divides it
  EXPECT_EQ(problem({}, "large").n, 16384);
  EXPECT_EQ(problem({}).none(), -inf);
  EXPECT_EQ(problem({"semiring=min-plus"}).none(), inf);
}

TEST(ApspProblemTest, SeedGraphIsTheCLibrarysDrawsAsTheSeedMakesThem) {
  const Problem p = problem({"graph=seed", "n=50", "edges_per_vertex=20"});
  const auto edges = apsp::generate_graph(p);
  // The seed's loop, written out again here.
  std::srand(50);
  std::vector<apsp::Edge> expected;
  std::set<std::pair<int, int>> seen;
  while (expected.size() < 1000) {
    const int prev = std::rand() % 50, next = std::rand() % 50;
    if (prev == next || seen.count({prev, next})) continue;
    seen.insert({prev, next});
    expected.push_back({prev, next, float(std::log((std::rand() % 99 + 1.0) / 100))});
  }
  ASSERT_EQ(edges.size(), expected.size());
  for (std::size_t e = 0; e < edges.size(); ++e) {
    EXPECT_EQ(edges[e].from, expected[e].from) << e;
    EXPECT_EQ(edges[e].to, expected[e].to) << e;
    EXPECT_EQ(edges[e].weight, expected[e].weight) << e;
  }
}

TEST(ApspProblemTest, GeneratorsMakeDistinctEdgesWithoutSelfLoopsAndLogWeights) {
  for (const char* graph : {"graph=seed", "graph=random"}) {
    for (const char* semiring : {"semiring=max-plus", "semiring=min-plus"}) {
      SCOPED_TRACE(std::string(graph) + " " + semiring);
      const Problem p = problem({graph, semiring, "n=40", "edges_per_vertex=7"});
      const auto edges = apsp::generate_graph(p);
      ASSERT_EQ(edges.size(), 280u);
      std::set<std::pair<int, int>> seen;
      for (const auto& e : edges) {
        EXPECT_NE(e.from, e.to);
        EXPECT_TRUE(seen.insert({e.from, e.to}).second);
        EXPECT_GE(e.from, 0);
        EXPECT_LT(e.to, 40);
        // log p for p in [0.01, 1]: max-plus weights in [log 0.01, 0], min-plus negated.
        const float w = p.semiring == Semiring::max_plus ? e.weight : -e.weight;
        EXPECT_LE(w, 0.0f);
        EXPECT_GE(w, float(std::log(0.01)) - 1e-6f);
      }
    }
  }
  // Different seeds, different graphs; the same seed, the same graph.
  const auto a = apsp::generate_graph(problem({"random_seed=1"}));
  const auto b = apsp::generate_graph(problem({"random_seed=2"}));
  const auto a2 = apsp::generate_graph(problem({"random_seed=1"}));
  ASSERT_EQ(a.size(), a2.size());
  EXPECT_EQ(a[5].from, a2[5].from);
  EXPECT_TRUE(a[0].from != b[0].from || a[0].to != b[0].to || a[1].to != b[1].to);
}

// A zero weight is stored as +0 whatever its sign (min-plus negates log 1 = +0 into -0): the GPU
// kernels' max/min instructions equal the serial comparisons only without signed zeros.
TEST(ApspProblemTest, InitialMatrixStoresZeroWeightsAsPlusZero) {
  for (const char* semiring : {"semiring=max-plus", "semiring=min-plus"}) {
    const Problem p = problem({"n=3", "edges_per_vertex=1", semiring});
    const auto d = apsp::initial_matrix(p, {{0, 1, -0.0f}, {1, 2, 0.0f}});
    EXPECT_EQ(d[1], 0.0f);
    EXPECT_FALSE(std::signbit(d[1])) << semiring;
    EXPECT_FALSE(std::signbit(d[5])) << semiring;
  }
}

TEST(ApspProblemTest, InitialMatrixHasZeroDiagonalEdgesAndNoneElsewhere) {
  const Problem p = problem({"n=4", "edges_per_vertex=1"});
  const std::vector<apsp::Edge> edges = {{0, 1, -0.5f}, {2, 3, -0.25f}};
  const auto d = apsp::initial_matrix(p, edges);
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      const float expected = i == j               ? 0.0f
                             : (i == 0 && j == 1) ? -0.5f
                             : (i == 2 && j == 3) ? -0.25f
                                                  : -inf;
      EXPECT_EQ(d[i * 4 + j], expected) << i << " " << j;
    }
  }
}

TEST(ApspProblemTest, MinPlusIsMaxPlusNegatedBitwise) {
  for (const char* graph : {"graph=seed", "graph=random"}) {
    const auto longest = serial_result(problem({graph, "n=60"}));
    const auto shortest = serial_result(problem({graph, "n=60", "semiring=min-plus"}));
    ASSERT_EQ(longest.size(), shortest.size());
    for (std::size_t e = 0; e < longest.size(); ++e) ASSERT_EQ(-longest[e], shortest[e]) << e;
  }
}

TEST(ApspProblemTest, SerialStepIsTheSeedsUpdate) {
  // A path 0 -> 1 -> 2 of weights -1 and -2 and a direct edge 0 -> 2 of -5: the longest
  // path goes through 1 (-3), the shortest is direct for the negated weights.
  Problem p = problem({"n=3", "edges_per_vertex=1"});
  auto d = apsp::initial_matrix(p, {{0, 1, -1.0f}, {1, 2, -2.0f}, {0, 2, -5.0f}});
  for (int k = 0; k < 3; ++k) apsp::relax_rows(p, d.data(), k, 0, 3);
  EXPECT_EQ(d[0 * 3 + 2], -3.0f);
  EXPECT_EQ(d[2 * 3 + 0], -inf);
  EXPECT_FALSE(apsp::cycle_vertex(p, d.data()).has_value());
  p.semiring = Semiring::min_plus;
  d = apsp::initial_matrix(p, {{0, 1, 1.0f}, {1, 2, 2.0f}, {0, 2, 5.0f}});
  for (int k = 0; k < 3; ++k) apsp::relax_rows(p, d.data(), k, 0, 3);
  EXPECT_EQ(d[0 * 3 + 2], 3.0f);
  EXPECT_EQ(d[2 * 3 + 0], inf);
}

TEST(ApspProblemTest, MulticoreRunsSmallGraphsOnOneThread) {
  // One thread below the threshold (no team, no barriers), OpenMP's above; both sides are
  // bitwise the serial loop (every variant's test: n = 97 and n = 520 ... 1100).
  EXPECT_EQ(apsp::multicore_team(problem({"n=255"})), 1);
  EXPECT_EQ(apsp::multicore_team(problem({"n=2", "edges_per_vertex=1"})), 1);
  EXPECT_EQ(apsp::multicore_team(problem({"n=256"})), omp_get_max_threads());
}

TEST(ApspProblemTest, ColumnsPerLaneLeaveFourChunksOrFollowTheKnob) {
  // unroll=auto (0): four chunks of 256 U columns at least.
  EXPECT_EQ(apsp::columns_per_lane(0, 16384), 16);
  EXPECT_EQ(apsp::columns_per_lane(0, 46340), 16);
  EXPECT_EQ(apsp::columns_per_lane(0, 16383), 8);
  EXPECT_EQ(apsp::columns_per_lane(0, 8192), 8);
  EXPECT_EQ(apsp::columns_per_lane(0, 4096), 4);
  EXPECT_EQ(apsp::columns_per_lane(0, 2048), 2);
  EXPECT_EQ(apsp::columns_per_lane(0, 2047), 1);
  EXPECT_EQ(apsp::columns_per_lane(0, 97), 1);
  EXPECT_EQ(apsp::columns_per_lane(8, 97), 8);
  EXPECT_EQ(apsp::columns_per_lane(1, 16384), 1);
#ifdef ACCLAB_HAVE_OPENACC
  // As managed and optimize read it: their knob unroll and n, from --set.
  EXPECT_EQ(apsp::acc::lane_columns(apsp_params({"n=16384"})), 16);
  EXPECT_EQ(apsp::acc::lane_columns(apsp_params({"n=4096"})), 4);
  EXPECT_EQ(apsp::acc::lane_columns(apsp_params({"n=97"})), 1);
  EXPECT_EQ(apsp::acc::lane_columns(apsp_params({"n=97", "unroll=8"})), 8);
  EXPECT_EQ(apsp::acc::lane_columns(apsp_params({"n=16384", "unroll=1"})), 1);
#endif
}

TEST(ApspProblemTest, CycleVertexFindsPositiveAndNegativeCycles) {
  Problem p = problem({"n=3", "edges_per_vertex=1"});
  // 1 -> 2 -> 1 of total +1: longest paths through them are unbounded.
  auto d = apsp::initial_matrix(p, {{0, 1, -1.0f}, {1, 2, 0.5f}, {2, 1, 0.5f}});
  for (int k = 0; k < 3; ++k) apsp::relax_rows(p, d.data(), k, 0, 3);
  const auto vertex = apsp::cycle_vertex(p, d.data());
  ASSERT_TRUE(vertex.has_value());
  EXPECT_TRUE(*vertex == 1 || *vertex == 2) << *vertex;
  p.semiring = Semiring::min_plus;
  d = apsp::initial_matrix(p, {{0, 1, 1.0f}, {1, 2, -0.5f}, {2, 1, -0.5f}});
  for (int k = 0; k < 3; ++k) apsp::relax_rows(p, d.data(), k, 0, 3);
  ASSERT_TRUE(apsp::cycle_vertex(p, d.data()).has_value());
}

TEST(ApspProblemTest, MatrixDigestTellsResultsApartBitwise) {
  const Problem p = problem({"n=4", "edges_per_vertex=1"});
  auto d = apsp::initial_matrix(p, {{0, 1, -1.0f}, {1, 2, -0.5f}, {2, 3, -0.25f}});
  const std::string digest = apsp::matrix_digest(p, d.data());
  EXPECT_EQ(digest.size(), 16u);
  EXPECT_EQ(apsp::matrix_digest(p, d.data()), digest);
  // d[1][1] = +0: -0 compares equal but is a different result bitwise.
  const float zero = d[5];
  ASSERT_EQ(zero, 0.0f);
  d[5] = -0.0f;
  EXPECT_NE(apsp::matrix_digest(p, d.data()), digest);
  d[5] = zero;
  d[1] = std::nextafter(d[1], 0.0f);  // one ulp on d[0][1]
  EXPECT_NE(apsp::matrix_digest(p, d.data()), digest);
}

#ifdef ACCLAB_HAVE_MPI
// acclab apsp GRAPH under mpirun digests a result no rank holds whole: each rank sums the terms
// of its block-cyclic share and the ranks add their sums. That must be the whole matrix's digest
// for every grid, with an n that is no multiple of the block (short last blocks), and for the
// leading vertices x vertices matrix of a graph run padded.
TEST(ApspProblemTest, MatrixDigestIsTheSumOfEveryRanksShare) {
  Problem p;
  p.n = 23;
  p.block = 4;
  std::mt19937 draw(3);
  std::uniform_real_distribution<float> value(-100.0f, 100.0f);
  std::vector<float> d(std::size_t(p.n) * p.n);
  for (std::size_t e = 0; e < d.size(); ++e) {
    // Negative and positive values, both semirings' none(), and both zeros.
    const int kind = int(draw() % 8);
    d[e] = kind == 0 ? -inf : kind == 1 ? inf : kind == 2 ? (e % 2 ? -0.0f : 0.0f) : value(draw);
  }
  const auto shares_sum = [&](std::array<int, 2> dims, const std::vector<float>& matrix,
                              int vertices) {
    std::uint64_t sum = 0;
    std::int64_t held = 0;
    for (int rank = 0; rank < dims[0] * dims[1]; ++rank) {
      const apsp::Grid g = apsp::grid_of(p, dims, rank);
      std::vector<float> local(std::size_t(g.rows) * g.cols);
      for (int r = 0; r < g.rows; ++r) {
        for (int c = 0; c < g.cols; ++c) {
          local[std::size_t(r) * g.cols + c] =
              matrix[std::size_t(g.global_row(r)) * p.n + g.global_col(c)];
        }
      }
      held += std::int64_t(local.size());
      sum += apsp::share_digest_sum(g, local.data(), vertices);
    }
    EXPECT_EQ(held, p.elements()) << dims[0] << "x" << dims[1] << ": every element once";
    return sum;
  };
  const std::string whole = apsp::matrix_digest(p, d.data());
  EXPECT_EQ(whole.size(), 16u);
  std::vector<float> leading;  // the leading 22 x 22 matrix, as a graph of 22 run as 23 leaves it
  for (int i = 0; i < p.n - 1; ++i) {
    for (int j = 0; j < p.n - 1; ++j) leading.push_back(d[std::size_t(i) * p.n + j]);
  }
  const std::vector<std::array<int, 2>> grids = {{1, 1}, {2, 1}, {1, 2}, {2, 2}, {3, 2}};
  for (const auto dims : grids) {
    SCOPED_TRACE(fmt::format("grid {}x{}", dims[0], dims[1]));
    EXPECT_EQ(apsp::digest_text(shares_sum(dims, d, p.n)), whole);
    EXPECT_EQ(shares_sum(dims, d, p.n - 1), apsp::digest_sum(p.n - 1, leading.data()));
  }
  // One bit of one element (the last, in the short last block), two values swapped, -0 for +0.
  std::vector<float> changed = d;
  changed.back() = std::bit_cast<float>(std::bit_cast<std::uint32_t>(changed.back()) ^ 1u);
  EXPECT_NE(apsp::matrix_digest(p, changed.data()), whole);
  EXPECT_NE(apsp::digest_text(shares_sum({3, 2}, changed, p.n)), whole);
  changed = d;
  const std::size_t a = 5;
  std::size_t b = std::size_t(p.n) * 7 + 2;  // the next element after it with other bits
  while (std::bit_cast<std::uint32_t>(d[b]) == std::bit_cast<std::uint32_t>(d[a])) ++b;
  std::swap(changed[a], changed[b]);
  EXPECT_NE(apsp::matrix_digest(p, changed.data()), whole);
}

// Each GPU step's rank checks its share of device memory before it allocates any: the blocks,
// two slots of each panel and the diagonal's operands, with paths their successors; one byte
// short of that is refused, naming the step and the figures.
TEST(ApspMpiTest, ARanksDeviceShareIsCheckedAgainstItsGpusFreeMemory) {
  for (const std::string name : {"mpi_acc", "mpi_cuda"}) {
    const auto names = test::variant_names("apsp");
    if (std::find(names.begin(), names.end(), name) == names.end()) continue;
    for (const bool paths : {false, true}) {
      SCOPED_TRACE(name + (paths ? " with paths" : ""));
      const Params params = apsp_params({"n=100", "block=16", paths ? "paths=1" : "paths=0"});
      auto instance = test::variant_of("apsp", name).factory(params);
      const auto* blocks = dynamic_cast<const apsp::MpiApspInstance*>(instance.get());
      ASSERT_NE(blocks, nullptr);
      // One rank holds every block: 100 x 100, panels 2 x 16 x 100 each, diagonal 2 x 16 x 16.
      const double floats = 100.0 * 100 + 2 * 2 * 16 * 100 + 2 * 16 * 16;
      const double ints = paths ? 100.0 * 100 + 2 * 16 * 100 + 16 * 16 : 0.0;
      const double need = 4 * floats + 4 * ints;
      EXPECT_EQ(blocks->device_share_bytes(), need);
      EXPECT_EQ(blocks->device_refusal(name, need, 1, 0), "");
      const std::string refusal = blocks->device_refusal(name, need - 1, 1, 0);
      const std::string opening =
          "apsp/" + name + " with n = 100 on 1 rank (1x1): rank 0's blocks (100 x 100), panels";
      EXPECT_EQ(refusal.rfind(opening, 0), 0u) << refusal;
      EXPECT_NE(refusal.find("free on GPU 0: use more ranks (GPUs)"), std::string::npos) << refusal;
      EXPECT_EQ(refusal.find("successors") != std::string::npos, paths) << refusal;
      EXPECT_THROW(blocks->check_device_share(name, need - 1, 1, 0), UsageError);
      EXPECT_NO_THROW(blocks->check_device_share(name, need, 1, 0));
      // No GPU, or one whose free memory the runtime does not say: nothing to check against.
      EXPECT_EQ(blocks->device_refusal(name, 0, 1, 0), "");
      EXPECT_EQ(blocks->device_refusal(name, 1, 0, 0), "");
    }
  }
}
#endif

TEST(ApspProblemTest, SeedTestLinesAreTwentyDistinctPairsWithTheirValues) {
  const Problem p = problem({"graph=seed", "n=64"});
  const auto d = serial_result(p);
  const auto lines = apsp::seed_test_lines(p, d);
  ASSERT_EQ(lines.size(), 20u);
  for (const auto& line : lines) {
    int prev = -1, next = -1;
    float value = 0;
    ASSERT_EQ(std::sscanf(line.c_str(), "test %d %d %f", &prev, &next, &value), 3) << line;
    EXPECT_NE(prev, next);
    EXPECT_NEAR(value, d[prev * 64 + next], 1e-6) << line;
  }
  EXPECT_EQ(apsp::seed_test_lines(p, d), lines) << "the same lines every time";
}

TEST(ApspWorkloadTest, ValidateRefusesBadParametersNamingThem) {
  auto error = [](const std::vector<std::string>& overrides) {
    return test::validate_error("apsp", overrides);
  };
  EXPECT_EQ(error({}), "");
  EXPECT_NE(error({"n=1"}).find("n=1"), std::string::npos);
  EXPECT_EQ(error({"n=46341"}), "") << "the blocked steps index in 64 bits";
  EXPECT_EQ(error({"n=1048576"}), "");
  EXPECT_NE(error({"n=1048577"}).find("n=1048577"), std::string::npos);
  EXPECT_NE(error({"n=10", "edges_per_vertex=10"}).find("edges_per_vertex"), std::string::npos);
  EXPECT_NE(error({"devices=0"}).find("devices"), std::string::npos);
  EXPECT_NE(error({"devices=65"}).find("devices"), std::string::npos);
  EXPECT_NE(error({"block=0"}).find("block"), std::string::npos);
  EXPECT_NE(error({"block=1025"}).find("block"), std::string::npos);
  EXPECT_NE(error({"semiring=plus-times"}).find("semiring"), std::string::npos);
}

// ---- verify() ----------------------------------------------------------------------------------

// The serial loop's result with one element of row `row` changed by `delta` (0: unchanged).
class AlteredSerial : public apsp::ApspInstance {
 public:
  AlteredSerial(const Params& params, int row, float delta)
      : ApspInstance(params), row_(row), delta_(delta) {}
  void run() override {
    d_ = apsp::reference_result(p_);
    for (int j = 0; j < p_.n; ++j) {
      float& x = d_[std::size_t(row_) * p_.n + j];
      if (j != row_ && !std::isinf(x)) {
        x += delta_;
        return;
      }
    }
  }

 private:
  int row_;
  float delta_;
};

Verification verify_altered(const std::vector<std::string>& overrides, int row, float delta) {
  AlteredSerial instance(apsp_params(overrides), row, delta);
  test::run_once(instance);
  return instance.verify();
}

// Every step past n^2 = 2^31 either takes it (the blocked steps, listed in apsp.hpp, each a row
// of ladder.json) or refuses it before allocating anything, naming itself, the limit and the
// steps that take more; at n^2 < 2^31 every step takes it.
TEST(ApspWorkloadTest, StepsIndexingIn32BitsRefuseMoreVerticesNamingTheSteps) {
  std::ifstream in(std::string(ACCLAB_SOURCE_DIR) + "/workloads/apsp/ladder.json");
  const auto table = nlohmann::json::parse(in);
  std::set<std::string> rows;
  for (const auto& row : table["steps"]) rows.insert(row["name"].get<std::string>());
  for (const std::string_view step : apsp::wide_steps) {
    EXPECT_TRUE(rows.count(std::string(step))) << step << " is no row of ladder.json";
  }
  const Params fits = apsp_params({"n=46340"}), past = apsp_params({"n=46341"});
  int wide = 0, narrow = 0;
  for (const Variant* v : test::all().select("apsp", "*")) {
    SCOPED_TRACE(v->name);
    if (v->check_params) EXPECT_EQ(test::usage_error_message([&] { v->check_params(fits); }), "");
    if (apsp::is_wide_step(v->name)) {
      ++wide;
      EXPECT_EQ(apsp::max_vertices_of(v->name), apsp::max_vertices);
      if (v->check_params) {
        EXPECT_EQ(test::usage_error_message([&] { v->check_params(past); }), "");
      }
      continue;
    }
    ++narrow;
    EXPECT_EQ(apsp::max_vertices_of(v->name), 46340);
    ASSERT_TRUE(v->check_params);
    const std::string message = test::usage_error_message([&] { v->check_params(past); });
    for (const std::string& expected :
         std::vector<std::string>{"--set n=46341", "apsp/" + v->name, "46340", "cuda_blocked"}) {
      EXPECT_NE(message.find(expected), std::string::npos) << message;
    }
    // Its factory refuses too, before the matrix (8.6 GB) is allocated.
    EXPECT_EQ(test::usage_error_message([&] { v->factory(past); }), message);
  }
  EXPECT_GE(wide, 1);
  EXPECT_GE(narrow, 3) << "serial, multicore and the omp_target steps";
  // The refusal names exactly the wide steps this build has.
  const std::string limit = apsp::narrow_step_limit();
  for (const std::string_view step : apsp::wide_steps) {
    const bool built = !test::all().select("apsp", std::string(step)).empty();
    EXPECT_EQ(limit.find(std::string(step)) != std::string::npos, built) << step << ": " << limit;
  }
}

TEST(ApspVerifyTest, BitwiseAgainstTheSerialLoopWithToleranceZero) {
  const Verification good = verify_altered({}, 1, 0.0f);
  ASSERT_TRUE(good.ok) << good.detail;
  EXPECT_EQ(good.outputs["tolerance"].get<double>(), 0);
  EXPECT_EQ(good.outputs["difference"].get<double>(), 0);
  // One element off by a float ulp-sized amount: one element differs.
  const Verification off = verify_altered({}, 1, 1e-6f);
  EXPECT_FALSE(off.ok);
  EXPECT_EQ(off.outputs["difference"].get<double>(), 1);
}

TEST(ApspVerifyTest, EveryRowOfASmallGraphIsCheckedAgainstDijkstra) {
  // Row 1 is no sampled row (0, n/8, ...): a wrong serial loop there, the bitwise check's
  // reference, is still caught by Dijkstra, which sees every row up to the limit.
  for (const char* semiring : {"semiring=max-plus", "semiring=min-plus"}) {
    const Verification v = verify_altered({semiring}, 1, 0.25f);
    EXPECT_FALSE(v.ok);
    EXPECT_EQ(v.outputs["rows_checked_by_dijkstra"].get<int>(), 97) << v.outputs.dump();
    EXPECT_NE(v.detail.find("do not match Dijkstra"), std::string::npos) << v.detail;
  }
}

}  // namespace
}  // namespace acclab::apsp_test
