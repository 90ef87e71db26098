// apsp's variants: every registered variant bitwise equal to the serial loop on small graphs for
// both semirings, multidevice's decomposition with 1 to 4 partitions and blocks that do not
// divide n, corrupted results; successor matrices (paths=1): every path re-summed equal to its
// distance for all pairs, serial and multicore and optimize equal to the serial loop's, other
// variants refused.
#include <gtest/gtest.h>

#include "apsp_test.hpp"

namespace acclab::apsp_test {
namespace {

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
      {"alternate=0", "n=131"},     // optimize_resident: every step's rows top-down
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
      continue;  // every override set's refusal, not the first one's alone
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
  test::run_once(*instance);
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

}  // namespace
}  // namespace acclab::apsp_test
