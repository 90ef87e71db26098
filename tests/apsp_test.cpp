// apsp: the Floyd seed's all-pairs longest (max-plus) and shortest (min-plus) paths.
//   - the generators (the seed's C-library graph, the portable one), the initial matrix, the
//     serial step, cycle detection, the seed's test lines;
//   - every registered variant bitwise equal to the serial loop on small graphs for both
//     semirings, multidevice's decomposition with 1 to 4 partitions and blocks that do not
//     divide n, corrupted results;
//   - successor matrices (paths=1): every path re-summed equal to its distance for all pairs,
//     serial and multicore and optimize equal to the serial loop's, other variants refused;
//   - the real binary: the ladder, and bad input (status 2, one line).
#include "workloads/apsp/apsp.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/machine.hpp"
#include "core/registry.hpp"
#include "core/runner.hpp"
#include "io/dense_matrix.hpp"
#include "io/graph.hpp"
#include "support.hpp"
#include "workloads/apsp/graph_solve.hpp"
#ifdef ACCLAB_HAVE_MPI
#include "workloads/apsp/mpi_blocks.hpp"
#endif

namespace acclab {
namespace {

// Whether the apsp variant keeps successors: its row in ladder.json lists the tuning paths.
bool keeps_paths(const std::string& name) {
  const auto& tunings = test::variant_of("apsp", name).tunings;
  return std::find(tunings.begin(), tunings.end(), "paths") != tunings.end();
}

using apsp::Problem;
using apsp::Semiring;
using test::is_usage_error;
using test::Outcome;
using test::parse_json;
using test::run_acclab;

constexpr float inf = std::numeric_limits<float>::infinity();

Params apsp_params(const std::vector<std::string>& overrides, const std::string& preset = "small") {
  return test::params_of("apsp", overrides, preset);
}

Problem problem(const std::vector<std::string>& overrides, const std::string& preset = "small") {
  return apsp::problem_of(apsp_params(overrides, preset));
}

bool bitwise_equal(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

std::vector<float> serial_result(const Problem& p) {
  std::vector<float> d = apsp::initial_matrix(p, apsp::generate_graph(p));
  for (int k = 0; k < p.n; ++k) apsp::relax_rows(p, d.data(), k, 0, p.n);
  return d;
}

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

TEST(ApspProblemTest, ColumnsPerLaneLeaveFourChunksOrFollowTheParameter) {
  EXPECT_EQ(apsp::columns_per_lane(problem({"n=16384"})), 16);
  EXPECT_EQ(apsp::columns_per_lane(problem({"n=46340"})), 16);
  EXPECT_EQ(apsp::columns_per_lane(problem({"n=16383"})), 8);
  EXPECT_EQ(apsp::columns_per_lane(problem({"n=8192"})), 8);
  EXPECT_EQ(apsp::columns_per_lane(problem({"n=4096"})), 4);
  EXPECT_EQ(apsp::columns_per_lane(problem({"n=2048"})), 2);
  EXPECT_EQ(apsp::columns_per_lane(problem({"n=2047"})), 1);
  EXPECT_EQ(apsp::columns_per_lane(problem({"n=97"})), 1);
  EXPECT_EQ(apsp::columns_per_lane(problem({"n=97", "unroll=8"})), 8);
  EXPECT_EQ(apsp::columns_per_lane(problem({"n=16384", "unroll=1"})), 1);
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
  instance.setup();
  instance.reset();
  instance.run();
  instance.finish();
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

// ---- every registered variant ------------------------------------------------------------------

class ApspVariantTest : public test::VariantTest {
 protected:
  ApspVariantTest() : VariantTest("apsp") {}
};

TEST_P(ApspVariantTest, BitwiseEqualToTheSerialLoopForBothSemirings) {
  const std::vector<std::vector<std::string>> cases = {
      {},                                                   // 97 vertices, max-plus
      {"semiring=min-plus"},                                // shortest paths
      {"graph=seed", "n=130", "edges_per_vertex=3"},        // the seed's generator, sparse
      {"n=2", "edges_per_vertex=1"},                        // smallest
      {"n=70", "edges_per_vertex=1", "semiring=min-plus"},  // many unreachable pairs (inf)
      {"devices=2", "block=16"},                            // multidevice: two partitions
      {"devices=3", "block=7", "semiring=min-plus"},        // three, blocks not dividing n
      {"devices=4", "block=64", "n=200"},                   // four, the last one short
      {"lookahead=on", "block=16"},                         // one partition looking ahead
      {"devices=2", "block=16", "lookahead=off"},           // two without
      {"devices=3", "block=16", "share_gpus=1"},            // (partitions sharing a GPU)
      // optimize, managed: lanes over U columns in chunks of 256 U, then a tail one a lane
      {"unroll=2", "n=1030", "edges_per_vertex=5"},  // two chunks of 512, 6 past them
      {"unroll=2", "n=520", "edges_per_vertex=3", "semiring=min-plus"},  // one chunk
      {"unroll=1", "n=600", "edges_per_vertex=4"},                       // two chunks of 256
      {"alternate=0", "n=131"},  // optimize_resident: every step's rows top-down
      {"gangs_per_sm=1", "n=131"},  // optimize_resident: one gang a multiprocessor
  };
  for (const auto& overrides : cases) {
    const Params params = apsp_params(overrides);
    SCOPED_TRACE(params.json().dump());
    const Result r = run(params, 1);
    if (skipped_as_unavailable(r)) GTEST_SKIP() << variant().id() << ": " << r.note;
    ASSERT_EQ(r.status, Status::verified) << r.error << " / " << r.verification;
    EXPECT_EQ(r.place, expected_place());
    EXPECT_NE(r.verification.find("bitwise equal to the serial loop"), std::string::npos)
        << r.verification;
    EXPECT_NE(r.verification.find("match Dijkstra"), std::string::npos) << r.verification;
  }
}

TEST_P(ApspVariantTest, PathsAreTheSerialLoopsOrRefusedNamingTheVariant) {
  for (const auto& overrides : std::vector<std::vector<std::string>>{
           {"paths=1"},
           {"paths=1", "semiring=min-plus", "n=70", "edges_per_vertex=1"},
           {"paths=1", "unroll=2", "n=1100", "edges_per_vertex=4"},  // two chunks and a tail
           {"paths=1", "alternate=0", "n=131"},
       }) {
    const Params params = apsp_params(overrides);
    SCOPED_TRACE(params.json().dump());
    if (!keeps_paths(GetParam())) {
      if (!expect_available()) GTEST_SKIP() << variant().id() << " cannot run here";
      try {
        run(params, 1);
        ADD_FAILURE() << "paths=1 accepted";
      } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("apsp/" + GetParam()), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("successor"), std::string::npos) << e.what();
      }
      return;
    }
    const Result r = run(params, 1);
    if (skipped_as_unavailable(r)) GTEST_SKIP() << variant().id() << ": " << r.note;
    ASSERT_EQ(r.status, Status::verified) << r.error << " / " << r.verification;
    EXPECT_NE(r.verification.find("bitwise equal to the serial loop"), std::string::npos)
        << r.verification;
    EXPECT_NE(r.verification.find("successors equal to the serial loop's"), std::string::npos)
        << r.verification;
    EXPECT_NE(r.verification.find("re-sum to their distances"), std::string::npos)
        << r.verification;
  }
}

TEST_P(ApspVariantTest, CorruptSuccessorsFailVerification) {
  if (!keeps_paths(GetParam())) GTEST_SKIP() << "no successor matrix";
  const Result r = run(apsp_params({"paths=1"}), 1, /*corrupt=*/true);
  if (skipped_as_unavailable(r)) GTEST_SKIP() << variant().id() << ": " << r.note;
  EXPECT_EQ(r.status, Status::failed);
  EXPECT_NE(r.error.find("successors differ from the serial loop's"), std::string::npos) << r.error;
}

INSTANTIATE_TEST_SUITE_P(AllApspVariants, ApspVariantTest,
                         ::testing::ValuesIn(test::variant_names("apsp")), test::param_name);

// ---- successor matrices ------------------------------------------------------------------------

// The variant's distances and successors on `p` (paths set), run as the runner would.
std::pair<std::vector<float>, std::vector<std::int32_t>> run_with_paths(const std::string& name,
                                                                        const Problem& p,
                                                                        const Params& params) {
  auto instance = test::variant_of("apsp", name).factory(params);
  auto* apsp_instance = dynamic_cast<apsp::ApspInstance*>(instance.get());
  EXPECT_NE(apsp_instance, nullptr);
  instance->setup();
  instance->reset();
  instance->run();
  instance->finish();
  EXPECT_EQ(apsp_instance->successors().size(), std::size_t(p.elements()));
  return {apsp_instance->result(), apsp_instance->successors()};
}

// Follows every pair's successors from scratch (not through apsp::successor_path) and sums the
// edges' weights, the best of parallel edges, along the way in float; each sum must equal the
// distance within n u sum|w|, and unreachable pairs have successor -1.
void expect_every_path_resums(const Problem& p, const std::vector<apsp::Edge>& edges,
                              const std::vector<float>& d, const std::vector<std::int32_t>& next) {
  std::vector<float> weight(std::size_t(p.elements()), p.none());
  for (const auto& e : edges) {
    float& w = weight[std::size_t(e.from) * p.n + e.to];
    w = w == p.none()
            ? e.weight
            : (p.semiring == Semiring::max_plus ? std::max(w, e.weight) : std::min(w, e.weight));
  }
  std::int64_t reachable = 0;
  for (int u = 0; u < p.n; ++u) {
    EXPECT_EQ(next[std::size_t(u) * p.n + u], u);
    for (int v = 0; v < p.n; ++v) {
      if (u == v) continue;
      const float duv = d[std::size_t(u) * p.n + v];
      if (duv == p.none()) {
        EXPECT_EQ(next[std::size_t(u) * p.n + v], -1) << u << " -> " << v;
        continue;
      }
      ++reachable;
      float along = 0, sum_abs = 0;
      int x = u, steps = 0;
      while (x != v && steps < p.n) {
        const int y = next[std::size_t(x) * p.n + v];
        ASSERT_TRUE(y >= 0 && y < p.n) << u << " -> " << v << " stops at " << x;
        const float w = weight[std::size_t(x) * p.n + y];
        ASSERT_NE(w, p.none()) << u << " -> " << v << ": no edge " << x << " -> " << y;
        along += w;
        sum_abs += std::abs(w);
        x = y;
        ++steps;
      }
      ASSERT_EQ(x, v) << u << " -> " << v << ": no end after " << steps << " edges";
      EXPECT_NEAR(along, duv, p.n * 0x1p-24 * sum_abs + 1e-30) << u << " -> " << v;
    }
  }
  EXPECT_GT(reachable, 0);
}

TEST(ApspPathsTest, SuccessorsOfASmallGraphByHand) {
  // 0 -> 1 -> 2 beats 0 -> 2 in both semirings; 2 reaches nothing.
  for (const Semiring semiring : {Semiring::max_plus, Semiring::min_plus}) {
    Problem p = problem({"n=3", "edges_per_vertex=1", "paths=1"});
    p.semiring = semiring;
    const float sign = semiring == Semiring::max_plus ? 1.0f : -1.0f;
    const auto initial =
        apsp::initial_matrix(p, {{0, 1, sign * -1.0f}, {1, 2, sign * -2.0f}, {0, 2, sign * -5.0f}});
    auto d = initial;
    std::vector<std::int32_t> next(9);
    apsp::initial_successors(p, d.data(), next.data());
    EXPECT_EQ(next, (std::vector<std::int32_t>{0, 1, 2, -1, 1, 2, -1, -1, 2}));
    for (int k = 0; k < 3; ++k) apsp::relax_rows(p, d.data(), next.data(), k, 0, 3);
    EXPECT_EQ(next, (std::vector<std::int32_t>{0, 1, 1, -1, 1, 2, -1, -1, 2}));
    EXPECT_EQ(apsp::successor_path(p, next.data(), 0, 2), (std::vector<int>{0, 1, 2}));
    EXPECT_EQ(apsp::successor_path(p, next.data(), 2, 0), std::vector<int>{});
    EXPECT_EQ(apsp::successor_path(p, next.data(), 1, 1), std::vector<int>{1});
    EXPECT_EQ(d[0 * 3 + 2], sign * -3.0f);
    EXPECT_EQ(apsp::path_length(p, initial.data(), {0, 1, 2}), sign * -3.0);
    EXPECT_EQ(apsp::path_length(p, initial.data(), {0, 2}), sign * -5.0);
    EXPECT_EQ(apsp::path_length(p, initial.data(), {2, 0}), double(p.none()));
  }
}

TEST(ApspPathsTest, DistancesWithSuccessorsAreBitwiseTheSameAsWithout) {
  for (const char* semiring : {"semiring=max-plus", "semiring=min-plus"}) {
    const Problem p = problem({semiring, "n=60", "edges_per_vertex=2", "paths=1"});
    auto d = apsp::initial_matrix(p, apsp::generate_graph(p));
    std::vector<std::int32_t> next(d.size());
    apsp::initial_successors(p, d.data(), next.data());
    for (int k = 0; k < p.n; ++k) apsp::relax_rows(p, d.data(), next.data(), k, 0, p.n);
    EXPECT_TRUE(bitwise_equal(d, serial_result(p))) << semiring;
  }
}

TEST(ApspPathsTest, EveryPathResumsToItsDistanceForAllPairs) {
  const std::vector<std::vector<std::string>> graphs = {
      {"n=40", "edges_per_vertex=3"},
      {"n=61", "edges_per_vertex=2", "random_seed=7"},
      {"graph=seed", "n=50", "edges_per_vertex=2"},
  };
  for (const auto& graph : graphs) {
    for (const char* semiring : {"semiring=max-plus", "semiring=min-plus"}) {
      auto overrides = graph;
      overrides.push_back(semiring);
      overrides.push_back("paths=1");
      const Params params = apsp_params(overrides);
      const Problem p = apsp::problem_of(params);
      const auto edges = apsp::generate_graph(p);
      std::vector<std::int32_t> serial_next;
      for (const auto& name : test::variant_names("apsp")) {
        // A step that cannot run here (mpi_cuda without a GPU) is the GPU gate's to check.
        if (!keeps_paths(name) || !test::available_here(test::variant_of("apsp", name))) continue;
        SCOPED_TRACE(name + " " + params.json().dump());
        const auto [d, next] = run_with_paths(name, p, params);
        expect_every_path_resums(p, edges, d, next);
        // The library's own check over every source agrees.
        std::vector<int> all(p.n);
        for (int u = 0; u < p.n; ++u) all[u] = u;
        const auto check = apsp::check_successor_paths(p, apsp::initial_matrix(p, edges).data(),
                                                       d.data(), next.data(), all);
        EXPECT_EQ(check.broken, 0) << check.first_broken;
        EXPECT_GT(check.paths, 0);
        if (serial_next.empty()) {
          serial_next = next;
        } else {
          EXPECT_EQ(next, serial_next) << "successors equal to serial's";
        }
      }
    }
  }
}

TEST(ApspPathsTest, ZeroWeightCyclesStillLeadToTheTarget) {
  // 0 <-> 1 at zero weight, 0 -> 2 cheaper than 1 -> 2.
  Problem p = problem({"n=3", "edges_per_vertex=1", "semiring=min-plus", "paths=1"});
  const std::vector<apsp::Edge> edges = {{0, 1, 0.0f}, {1, 0, 0.0f}, {0, 2, 1.0f}, {1, 2, 5.0f}};
  auto d = apsp::initial_matrix(p, edges);
  std::vector<std::int32_t> next(9);
  apsp::initial_successors(p, d.data(), next.data());
  for (int k = 0; k < 3; ++k) apsp::relax_rows(p, d.data(), next.data(), k, 0, 3);
  EXPECT_EQ(apsp::successor_path(p, next.data(), 1, 2), (std::vector<int>{1, 0, 2}));
  expect_every_path_resums(p, edges, d, next);
}

TEST(ApspPathsTest, CheckFindsBrokenSuccessors) {
  const Problem p = problem({"n=30", "edges_per_vertex=3", "semiring=min-plus", "paths=1"});
  const auto initial = apsp::initial_matrix(p, apsp::generate_graph(p));
  auto d = initial;
  std::vector<std::int32_t> next(d.size());
  apsp::initial_successors(p, d.data(), next.data());
  for (int k = 0; k < p.n; ++k) apsp::relax_rows(p, d.data(), next.data(), k, 0, p.n);
  const std::vector<int> sources = {0, 5};
  ASSERT_EQ(apsp::check_successor_paths(p, initial.data(), d.data(), next.data(), sources).broken,
            0);
  // A loop: 0's successor towards v points back at 0.
  int v = 1;
  while (next[v] == v || d[v] == p.none()) ++v;  // a target reached over two or more edges
  auto looped = next;
  looped[std::size_t(next[v]) * p.n + v] = 0;
  auto check = apsp::check_successor_paths(p, initial.data(), d.data(), looped.data(), sources);
  EXPECT_GE(check.broken, 1);
  EXPECT_NE(check.first_broken.find("stop"), std::string::npos) << check.first_broken;
  // A path that exists but is longer than the distance.
  auto wrong = d;
  wrong[v] -= 0.5f;
  check = apsp::check_successor_paths(p, initial.data(), wrong.data(), next.data(), sources);
  EXPECT_EQ(check.broken, 1);
  EXPECT_NE(check.first_broken.find(fmt::format("path 0 -> {}", v)), std::string::npos)
      << check.first_broken;
}

TEST(ApspPathsTest, MemoryEstimatesCountTheSuccessors) {
  const Workload& w = test::all().workload("apsp");
  const Params without = apsp_params({"n=1000"}), with = apsp_params({"n=1000", "paths=1"});
  // The result's, the reference's and multidevice's partition copies, and multidevice's
  // history of successors (block x n).
  EXPECT_DOUBLE_EQ(w.host_bytes(with) - w.host_bytes(without),
                   3.0 * 4 * 1000 * 1000 + 4.0 * 64 * 1000);
  EXPECT_DOUBLE_EQ(w.device_bytes(with) - w.device_bytes(without), 4.0 * 1000 * 1000);
  EXPECT_NE(test::validate_error("apsp", {"paths=2"}).find("paths=2"), std::string::npos);
}

// ---- the command line --------------------------------------------------------------------------

TEST(ApspCliTest, LadderOnTheSmallPresetVerifies) {
  const Outcome o = run_acclab({"ladder", "apsp", "--format", "json", "--reps", "1"});
  ASSERT_EQ(o.status, 0) << o;
  const auto doc = parse_json(o.out);
  ASSERT_EQ(doc["results"].size(), test::variant_names("apsp").size());
  EXPECT_EQ(doc["results"][0]["variant"], "serial");
  for (const auto& r : doc["results"]) {
    SCOPED_TRACE(r["variant"].dump());
    if (r["status"] == "unavailable") {
      EXPECT_EQ(r["backend"], "cuda");
      continue;
    }
    EXPECT_EQ(r["status"], "verified") << r["error"];
    // 97^3 relaxations, two flops each.
    EXPECT_NEAR(r["gflops"].get<double>() * r["time_s"]["median"].get<double>() * 1e9,
                2.0 * 97 * 97 * 97, 1.0);
  }
}

bool multidevice_built() {
  const auto names = test::variant_names("apsp");
  return std::find(names.begin(), names.end(), "multidevice") != names.end();
}

TEST(ApspCliTest, DevicesListRunsEveryVariantOncePerCount) {
  if (!multidevice_built()) GTEST_SKIP() << "no OpenACC variants in this build";
  const Outcome o = run_acclab({"run", "apsp", "--variant", "multidevice", "--devices", "1,2,3",
                                "--reps", "1", "--format", "json"});
  ASSERT_EQ(o.status, 0) << o;
  const auto doc = parse_json(o.out);
  ASSERT_EQ(doc["results"].size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const auto& r = doc["results"][i];
    EXPECT_EQ(r["params"]["devices"], i + 1);
    EXPECT_EQ(r["status"], "verified") << r["error"];
    EXPECT_NE(r["note"].get<std::string>().find(fmt::format("devices={}", i + 1)),
              std::string::npos);
    // The same bits on every count: the digest of one run is the others'.
    EXPECT_EQ(r["outputs"]["matrix_digest"], doc["results"][0]["outputs"]["matrix_digest"]);
  }
  EXPECT_TRUE(is_usage_error(run_acclab({"run", "matmul", "--devices", "2"}), {"--devices"}));
  EXPECT_TRUE(is_usage_error(run_acclab({"ladder", "apsp", "--devices", "1,2"}), {"--devices"}));
  EXPECT_TRUE(is_usage_error(run_acclab({"run", "apsp", "--devices", "0"}), {"devices"}));
  // A count that nothing selected would use is refused, not noted and ignored.
  EXPECT_TRUE(is_usage_error(run_acclab({"run", "apsp", "--variant", "serial", "--devices", "2"}),
                             {"--devices 2:", "apsp/serial", "apsp/multidevice"}));
  // The range said whole, through --set as through --devices.
  EXPECT_TRUE(is_usage_error(
      run_acclab({"run", "apsp", "--variant", "multidevice", "--set", "devices=99"}),
      {"--set devices=99: devices must be 1 to 64"}));
}

class ApspCliBadInputTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ApspCliBadInputTest, ExitsTwoWithOneLineNamingIt) {
  const std::string set = GetParam();
  const Outcome o = run_acclab(test::run_with_sets("apsp", {set}));
  EXPECT_TRUE(is_usage_error(o, {set})) << o;
}

INSTANTIATE_TEST_SUITE_P(BadParameters, ApspCliBadInputTest,
                         ::testing::Values("n=0", "n=100000", "edges_per_vertex=200", "devices=99",
                                           "block=0", "semiring=max", "graph=grid", "paths=2",
                                           "n=1048577", "paths=-1", "share_gpus=2",
                                           "lookahead=maybe", "unroll=3", "gangs_per_sm=3",
                                           "gangs_per_sm=0"));

// ---- acclab apsp FILE --------------------------------------------------------------------------

std::string graph_file(const std::string& name) {
  return (std::filesystem::path(ACCLAB_TEST_DATA) / "graphs" / name).string();
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

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

// `acclab run apsp ARGS --set paths=1 --reps 1 --format json`: expects `count` results, each
// verified with its paths followed, and returns them for the caller's own checks.
nlohmann::json run_verified_with_paths(std::vector<std::string> args, std::size_t count) {
  args.insert(args.begin(), {"run", "apsp"});
  args.insert(args.end(), {"--set", "paths=1", "--reps", "1", "--format", "json"});
  const Outcome o = run_acclab(args);
  EXPECT_EQ(o.status, 0) << o;
  const auto results = parse_json(o.out).value("results", nlohmann::json::array());
  EXPECT_EQ(results.size(), count);
  for (const auto& r : results) {
    SCOPED_TRACE(r["variant"].dump() + " " + r["params"].dump());
    EXPECT_EQ(r["status"], "verified") << r["error"];
    EXPECT_GT(r["outputs"].value("paths_checked", 0), 0);
  }
  return results;
}

TEST(ApspCliTest, RunWithPathsVerifiesTheSuccessors) {
  for (const auto& r : run_verified_with_paths(
           {"--variant", "serial,multicore", "--set", "semiring=min-plus"}, 2)) {
    EXPECT_EQ(r["params"]["paths"], 1);
  }
}

TEST(ApspCliTest, MultideviceSuccessorsAreTheSerialLoopsOverOneToFourPartitions) {
  if (!multidevice_built()) GTEST_SKIP() << "no OpenACC variants in this build";
  for (const char* semiring : {"semiring=max-plus", "semiring=min-plus"}) {
    SCOPED_TRACE(semiring);
    // Blocks of 7 rows: partitions and rounds that do not divide n, pivot rows inside blocks.
    for (const auto& r : run_verified_with_paths(
             {"--variant", "multidevice", "--devices", "1,2,3,4", "--set", "block=7", "--set",
              "n=150", "--set", "edges_per_vertex=3", "--set", semiring},
             4)) {
      const std::string verification = r["verification"].get<std::string>();
      EXPECT_NE(verification.find("successors equal to the serial loop's"), std::string::npos)
          << verification;
    }
  }
}

TEST(ApspCliTest, RunWithPathsRefusesAVariantWithoutSuccessorsBeforeRunningAny) {
  if (!multidevice_built()) GTEST_SKIP() << "no OpenACC variants in this build";
  test::TempDir dir;
  const auto out = dir.path() / "r.json";
  // No --variant: serial and multicore keep successors, managed does not. Nothing may run:
  // serial alone would take minutes at n = 6000, past the harness's timeout.
  const Outcome o = run_acclab({"run", "apsp", "--set", "paths=1", "--set", "n=6000", "--reps", "1",
                                "--format", "json", "--out", out.string()});
  EXPECT_TRUE(is_usage_error(o, {"apsp/managed", "paths=1", "optimize"})) << o;
  EXPECT_TRUE(dir.entries().empty());
}

class ApspCommandBadInputTest
    : public ::testing::TestWithParam<std::pair<std::vector<std::string>, std::string>> {};

TEST_P(ApspCommandBadInputTest, ExitsTwoWithOneLineNamingIt) {
  test::TempDir dir;
  write_text(dir.path() / "g.txt", "0 1 1\n1 2 x\n");
  write_text(dir.path() / "ok.txt", "0 1 -1\n1 2 -1\n");
  write_text(dir.path() / "big.txt", "0 1 3e38\n1 2 3e38\n2 3 -3e38\n");
  write_text(dir.path() / "wide.txt", "0 46340 1\n");
  std::vector<std::string> args = {"apsp"};
  for (const auto& a : GetParam().first) {
    args.push_back(a.starts_with("@") ? (dir.path() / a.substr(1)).string() : a);
  }
  const Outcome o = run_acclab(args);
  EXPECT_TRUE(is_usage_error(o, {GetParam().second})) << o;
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"big.txt", "g.txt", "ok.txt", "wide.txt"}));
}

INSTANTIATE_TEST_SUITE_P(
    BadInput, ApspCommandBadInputTest,
    ::testing::Values(
        std::make_pair(std::vector<std::string>{"@missing.txt"}, "missing.txt"),
        std::make_pair(std::vector<std::string>{"@g.txt"}, "g.txt:2"),
        std::make_pair(std::vector<std::string>{"@ok.txt", "--query", "0", "3"}, "--query"),
        std::make_pair(std::vector<std::string>{"@ok.txt", "--semiring", "max"}, "--semiring"),
        std::make_pair(std::vector<std::string>{"@ok.txt", "--variant", "bellman"}, "bellman"),
        std::make_pair(std::vector<std::string>{"@ok.txt", "--out-format", "xml"}, "xml"),
        std::make_pair(std::vector<std::string>{"@ok.txt", "--out", "@no/such/dir/d.bin"}, "d.bin"),
        std::make_pair(std::vector<std::string>{"@ok.txt", "--out", "@"}, "is a directory"),
        std::make_pair(std::vector<std::string>{"@ok.txt", "--devices", "0"},
                       "--devices 0: GPU count must be 1 to 64"),
        std::make_pair(std::vector<std::string>{"@ok.txt", "--devices", "99"},
                       "--devices 99: GPU count must be 1 to 64"),
        // A variant that ignores devices: an error naming both, not a silent single device.
        std::make_pair(std::vector<std::string>{"@ok.txt", "--devices", "4", "--variant", "serial"},
                       "--devices 4: --variant serial"),
        std::make_pair(std::vector<std::string>{"@ok.txt", "--devices", "2", "--variant",
                                                "multicore", "--paths"},
                       "--variant multicore"),
        std::make_pair(std::vector<std::string>{"@big.txt", "--out", "@d.bin"}, "overflows"),
        // Past 2^31 elements, a step that indexes in 32 bits.
        std::make_pair(std::vector<std::string>{"@wide.txt", "--variant", "multicore", "--out",
                                                "@d.bin"},
                       "46341 vertices: --variant multicore indexes the dense n x n matrix in 32 "
                       "bits")));

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
}  // namespace acclab
