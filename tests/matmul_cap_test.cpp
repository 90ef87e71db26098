// matmul's --set one_gang_rows=N: the five seed steps GCC 12 runs on one gang (acc_auto,
// acc_independent_reduction, acc_gang_vector, acc_tile, acc_collapse) compute only the first N
// rows of C when the user asks, and say so.
//   - verify() on a capped instance: exact on the rows computed, the rows past the cap must stay
//     zero (a step that computed them did not honour the cap), a wrong computed row fails;
//   - each capped step through the harness: verified, rows_computed, the cap in the detail and
//     the tuning, GFLOP/s of the rows computed; without the --set nothing changes;
//   - the real binary: the ladder with the cap (no speedups for capped steps), bad values.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "core/runner.hpp"
#include "support.hpp"
#include "workloads/matmul/matmul.hpp"

namespace acclab {
namespace {

using test::is_usage_error;
using test::Outcome;
using test::parse_json;
using test::run_acclab;

const std::vector<std::string> capped_steps = {"acc_auto", "acc_independent_reduction",
                                               "acc_gang_vector", "acc_tile", "acc_collapse"};

bool is_capped_step(const std::string& name) {
  return std::find(capped_steps.begin(), capped_steps.end(), name) != capped_steps.end();
}

Params matmul_params(const std::vector<std::string>& overrides) {
  return test::params_of("matmul", overrides);
}

// C computed by the closed form on the rows the instance computes (or on all m: `all_rows`, a
// step that ignores the cap).
class Rows : public matmul::MatmulInstance {
 public:
  Rows(const Params& params, bool all_rows = false)
      : MatmulInstance(params, matmul::RowCap::one_gang_rows), all_rows_(all_rows) {}
  void run() override {
    for (int i = 0; i < (all_rows_ ? p_.m : p_.rows); ++i) {
      for (int j = 0; j < p_.n; ++j) at(i, j) = matmul::seed_product(p_, i, j);
    }
  }
  double& at(int i, int j) { return c_[std::size_t(i) * p_.ldc + j]; }
  const matmul::Problem& problem() const { return p_; }

 private:
  bool all_rows_;
};

// ---- the problem and verify() ------------------------------------------------------------------

TEST(MatmulCapTest, OnlyStepsThatHonourTheCapComputeFewerRows) {
  const Params params = matmul_params({"one_gang_rows=5"});
  EXPECT_EQ(matmul::problem_of(params).one_gang_rows, 5);
  EXPECT_EQ(matmul::problem_of(params).rows, 65) << "problem_of leaves the cap to the step";
  EXPECT_EQ(matmul::problem_of(matmul_params({})).one_gang_rows, 0);
  Rows capped(params);
  EXPECT_EQ(capped.problem().rows, 5);
  EXPECT_TRUE(capped.problem().rows_capped);
  Rows unset(matmul_params({}));
  EXPECT_EQ(unset.problem().rows, 65);
  EXPECT_FALSE(unset.problem().rows_capped);
}

TEST(MatmulCapTest, VerifyChecksTheRowsComputedExactlyAndTheOthersStayZero) {
  Rows f(matmul_params({"m=17", "n=9", "k=33", "ldc=12", "one_gang_rows=6"}));
  f.setup();
  f.reset();
  f.run();
  const Verification good = f.verify();
  ASSERT_TRUE(good.ok) << good.detail;
  EXPECT_EQ(good.outputs["difference"].get<double>(), 0.0);
  EXPECT_EQ(good.outputs["tolerance"].get<double>(), 0.0);
  EXPECT_EQ(good.outputs["rows_computed"], 6);
  EXPECT_DOUBLE_EQ(good.outputs["computed_fraction"].get<double>(), 6.0 / 17);
  EXPECT_NE(good.detail.find("one_gang_rows=6"), std::string::npos) << good.detail;
  EXPECT_NE(good.detail.find("rows 0 to 5 of 17"), std::string::npos) << good.detail;
  // A wrong element in any computed row fails, as in an uncapped run.
  for (auto [i, j] : std::vector<std::pair<int, int>>{{0, 0}, {5, 8}, {3, 4}}) {
    const double saved = f.at(i, j);
    f.at(i, j) += 1.0;
    const Verification wrong = f.verify();
    EXPECT_FALSE(wrong.ok) << i << " " << j;
    EXPECT_EQ(wrong.outputs["difference"].get<double>(), 1.0);
    f.at(i, j) = std::numeric_limits<double>::quiet_NaN();
    EXPECT_FALSE(f.verify().ok) << "NaN at " << i << " " << j;
    f.at(i, j) = saved;
  }
  ASSERT_TRUE(f.verify().ok);
  // A row past the cap written (a value, even the right one, or a NaN) fails: the step did not
  // honour the cap, and its time would be for more rows than reported.
  for (double value :
       {matmul::seed_product(f.problem(), 6, 2), 1.0, std::numeric_limits<double>::quiet_NaN()}) {
    f.at(6, 2) = value;
    const Verification written = f.verify();
    EXPECT_FALSE(written.ok) << value;
    EXPECT_NE(written.detail.find("rows not computed written"), std::string::npos)
        << written.detail;
    f.at(6, 2) = 0.0;
  }
  EXPECT_TRUE(f.verify().ok);
}

TEST(MatmulCapTest, AStepThatIgnoresTheCapFails) {
  Rows all(matmul_params({"m=17", "n=9", "k=33", "one_gang_rows=6"}), /*all_rows=*/true);
  all.setup();
  all.reset();
  all.run();
  const Verification v = all.verify();
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find("rows not computed written"), std::string::npos) << v.detail;
}

TEST(MatmulCapTest, RandomInputsAreCheckedOnTheRowsComputed) {
  // init=random: the norm bound of the rows computed; the reference is the whole product.
  const Params params = matmul_params({"init=random", "m=20", "n=9", "k=40", "one_gang_rows=3"});
  const Variant& step = test::variant_of("matmul", "acc_tile");
  auto instance = step.factory(params);
  test::run_once(*instance);
  const Verification v = instance->verify();
  ASSERT_TRUE(v.ok) << v.detail;
  EXPECT_EQ(v.outputs["rows_computed"], 3);
  instance->corrupt_result();  // an element of a computed row
  EXPECT_FALSE(instance->verify().ok);
}

TEST(MatmulCapTest, TheModelCountsTheRowsComputed) {
  const Params params = matmul_params({"m=17", "n=9", "k=33", "one_gang_rows=4"});
  for (const std::string& name : test::variant_names("matmul")) {
    const Variant& v = test::variant_of("matmul", name);
    EXPECT_DOUBLE_EQ(v.model.flops(params, {{"rows_computed", 4}}), 2.0 * 4 * 9 * 33) << name;
    EXPECT_DOUBLE_EQ(v.model.bytes(params, {{"rows_computed", 4}}), 8.0 * (4 * 33 + 33 * 9 + 4 * 9))
        << name;
    EXPECT_DOUBLE_EQ(v.model.flops(params, {}), 2.0 * 17 * 9 * 33) << name;
  }
}

// ---- every step through the harness ------------------------------------------------------------

class MatmulCapVariantTest : public test::VariantTest {
 protected:
  MatmulCapVariantTest() : VariantTest("matmul") {}
};

TEST_P(MatmulCapVariantTest, CappedOnlyWhereTheLadderDeclaresTheTuning) {
  const bool declared = std::count(variant().tunings.begin(), variant().tunings.end(),
                                   std::string("one_gang_rows")) > 0;
  EXPECT_EQ(declared, is_capped_step(variant().name));
  for (const std::vector<std::string>& overrides :
       {std::vector<std::string>{"one_gang_rows=7"},
        std::vector<std::string>{"one_gang_rows=1", "data=copy", "ldc=50"},
        std::vector<std::string>{"one_gang_rows=40", "init=random"}}) {
    const Params params = matmul_params(overrides);
    SCOPED_TRACE(params.json().dump());
    const Result r = run(params, 1);
    if (skipped_as_unavailable(r)) GTEST_SKIP() << variant().id() << ": " << r.note;
    ASSERT_EQ(r.status, Status::verified) << r.error << " / " << r.verification;
    const int rows = static_cast<int>(params.integer("one_gang_rows"));
    const double computed = declared ? rows : 65;
    EXPECT_DOUBLE_EQ(r.gflops, 2.0 * computed * 47 * 33 / r.median_s / 1e9);
    EXPECT_EQ(r.outputs.contains("rows_computed"), declared) << r.outputs.dump();
    EXPECT_EQ(r.verification.find("one_gang_rows") != std::string::npos, declared)
        << r.verification;
    EXPECT_EQ(tuning_name(variant(), r.params).find("one_gang_rows=" + std::to_string(rows)) !=
                  std::string::npos,
              declared);
    if (declared) {
      EXPECT_EQ(r.outputs["rows_computed"], rows);
      EXPECT_DOUBLE_EQ(r.outputs["computed_fraction"].get<double>(), rows / 65.0);
    }
    const Result corrupt = run(params, 1, /*corrupt=*/true);
    EXPECT_EQ(corrupt.status, Status::failed) << "a corrupted computed row must fail";
  }
  // Without the --set nothing changes: all 65 rows, no cap in the outputs or the tuning.
  const Result r = run(matmul_params({}), 1);
  ASSERT_EQ(r.status, Status::verified) << r.error;
  EXPECT_FALSE(r.outputs.contains("rows_computed")) << r.outputs.dump();
  EXPECT_FALSE(r.outputs.contains("computed_fraction")) << r.outputs.dump();
  EXPECT_EQ(r.verification.find("one_gang_rows"), std::string::npos) << r.verification;
  EXPECT_EQ(tuning_name(variant(), r.params).find("one_gang_rows"), std::string::npos);
  EXPECT_DOUBLE_EQ(r.gflops, 2.0 * 65 * 47 * 33 / r.median_s / 1e9);
}

// The OpenACC steps only: the others ignore the parameter (checked above on one of them).
std::vector<std::string> acc_variant_names() {
  std::vector<std::string> names;
  for (const auto& name : test::variant_names("matmul")) {
    if (test::variant_of("matmul", name).backend == Backend::openacc) names.push_back(name);
  }
  return names;
}

INSTANTIATE_TEST_SUITE_P(MatmulOpenAccSteps, MatmulCapVariantTest,
                         ::testing::ValuesIn(acc_variant_names()), test::param_name);

// ---- the command line --------------------------------------------------------------------------

TEST(MatmulCapCliTest, LadderWithTheCapVerifiesAndGivesCappedStepsNoSpeedup) {
  const Outcome o = run_acclab(
      {"ladder", "matmul", "--set", "one_gang_rows=4", "--format", "json", "--reps", "1"});
  ASSERT_EQ(o.status, 0) << o;
  const auto doc = parse_json(o.out);
  int capped = 0;
  for (const auto& r : doc["results"]) {
    SCOPED_TRACE(r["variant"].dump());
    if (r["status"] == "unavailable") continue;
    EXPECT_EQ(r["status"], "verified") << r["error"];
    const bool cap = is_capped_step(r["variant"]);
    EXPECT_EQ(r["outputs"].contains("rows_computed"), cap) << r["outputs"].dump();
    EXPECT_EQ(r.contains("speedup_vs_first"), !cap) << r.dump();
    if (r.contains("previous_variant")) EXPECT_FALSE(is_capped_step(r["previous_variant"]));
    if (cap) {
      ++capped;
      EXPECT_EQ(r["outputs"]["rows_computed"], 4);
      EXPECT_EQ(r["tuning"], "data=resident,one_gang_rows=4");
    } else {
      EXPECT_EQ(r["tuning"].get<std::string>().find("one_gang_rows"), std::string::npos);
    }
  }
  EXPECT_EQ(capped, 5);
}

TEST(MatmulCapCliTest, TableNamesTheCap) {
  const Outcome o = run_acclab({"run", "matmul", "--variant", "acc_collapse,acc_tuned", "--set",
                                "one_gang_rows=2", "--reps", "1", "--wide"});
  ASSERT_EQ(o.status, 0) << o;
  const auto line_of = [&](const std::string& name) {
    const auto at = o.out.find(" " + name + " ");
    return at == std::string::npos ? std::string() : o.out.substr(at, o.out.find('\n', at) - at);
  };
  EXPECT_NE(line_of("acc_collapse").find("rows_computed = 2"), std::string::npos) << o.out;
  EXPECT_NE(line_of("acc_collapse").find("one_gang_rows=2"), std::string::npos) << o.out;
  EXPECT_EQ(line_of("acc_tuned").find("rows_computed"), std::string::npos) << o.out;
}

TEST(MatmulCapCliTest, BadValuesAndStepsWithoutTheTuningAreOneLineAndStatusTwo) {
  for (const char* set :
       {"one_gang_rows=0", "one_gang_rows=-3", "one_gang_rows=66", "one_gang_rows=x"}) {
    const Outcome o = run_acclab({"run", "matmul", "--variant", "acc_tile", "--set", set});
    EXPECT_TRUE(is_usage_error(o, {"one_gang_rows"})) << set << "\n" << o;
  }
  // Exactly m rows is allowed (the whole of C, still reported as capped).
  EXPECT_EQ(run_acclab({"run", "matmul", "--variant", "acc_tile", "--set", "one_gang_rows=65",
                        "--reps", "1"})
                .status,
            0);
  // Steps without the tuning refuse it (it would change nothing that runs).
  const Outcome twin =
      run_acclab({"run", "matmul", "--variant", "acc_tile_parallel", "--set", "one_gang_rows=4"});
  EXPECT_TRUE(is_usage_error(twin, {"one_gang_rows", "acc_tile_parallel"})) << twin;
}

}  // namespace
}  // namespace acclab
