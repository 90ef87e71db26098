// matmul: the seed's dense C = A B in double.
//   - the problem's pieces (presets, inputs, the exact seed products, the reference product,
//     verify()) checked against values computed here;
//   - every registered variant through the real harness on the small preset (65 x 33 x 47),
//     shapes no tile divides, padded leading dimensions, random inputs, data=copy, corrupted
//     results, the transfer share;
//   - the real binary: the ladder, and bad input (status 2, one line).
#include "workloads/matmul/matmul.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "core/error.hpp"
#include "core/registry.hpp"
#include "core/runner.hpp"
#include "support.hpp"
#include "workloads/matmul/cuda_tiling.hpp"

namespace acclab {
namespace {

using matmul::Init;
using matmul::Problem;
using test::is_usage_error;
using test::Outcome;
using test::parse_json;
using test::run_acclab;

const Workload& matmul_workload() { return test::all().workload("matmul"); }
const Variant& matmul_variant(const std::string& name) { return test::variant_of("matmul", name); }
std::vector<std::string> matmul_variant_names() { return test::variant_names("matmul"); }
bool has_matmul_variant(const std::string& name) {
  const auto names = matmul_variant_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}
// The workload's parameter `key`, or null: a step's own knob is one only where the step is built.
const ParamSpec* matmul_param(const std::string& key) {
  const auto& params = matmul_workload().params;
  const auto spec =
      std::find_if(params.begin(), params.end(), [&](const ParamSpec& s) { return s.key == key; });
  return spec == params.end() ? nullptr : &*spec;
}

Params matmul_params(const std::vector<std::string>& overrides,
                     const std::string& preset = "small") {
  return test::params_of("matmul", overrides, preset);
}

Problem problem(const std::vector<std::string>& overrides, const std::string& preset = "small") {
  return matmul::problem_of(matmul_params(overrides, preset));
}

// ---- the problem -------------------------------------------------------------------------------

TEST(MatmulProblemTest, SeedPresetIsTheSeedsProblem) {
  const Problem p = problem({}, "seed");
  EXPECT_EQ(p.m, 1024);
  EXPECT_EQ(p.n, 1024);
  EXPECT_EQ(p.k, 1024);
  EXPECT_EQ(p.lda, 1024);
  EXPECT_EQ(p.ldb, 1024);
  EXPECT_EQ(p.ldc, 1024);
  EXPECT_EQ(p.init, Init::seed);
  EXPECT_TRUE(p.resident);
  EXPECT_TRUE(matmul::seed_products_exact(p));
  // The small preset is a shape that no tile divides: 65 x 33 times 33 x 47.
  const Problem small = problem({});
  EXPECT_EQ(small.m, 65);
  EXPECT_EQ(small.k, 33);
  EXPECT_EQ(small.n, 47);
  const Problem large = problem({}, "large");
  EXPECT_EQ(large.m, 4096);
  EXPECT_EQ(large.n, 4096);
  EXPECT_EQ(large.k, 4096);
  EXPECT_FALSE(problem({"data=copy"}).resident);
  EXPECT_EQ(problem({"init=random"}).init, Init::random);
}

// acc_tuned's and cuda_tiled's knobs are theirs, declared in their files (acc_tuned.cpp,
// cuda.cpp): parameters of the workload where the step is built, with the defaults the H200
// sweeps found fastest, and none where it is not.
TEST(MatmulProblemTest, StepKnobsAreTheirStepsOwnWithTheMeasuredDefaults) {
  const std::vector<std::tuple<std::string, std::string, std::string>> knobs = {
      {"acc_tuned", "acc_block", "16x4"},    {"cuda_tiled", "cuda_tile", "64"},
      {"cuda_tiled", "cuda_mma", "m16n8k4"}, {"cuda_tiled", "cuda_warps", ""},
      {"cuda_tiled", "cuda_slice", "16"},    {"cuda_tiled", "cuda_stages", "3"}};
  for (const auto& [step, key, value] : knobs) {
    SCOPED_TRACE(key);
    const ParamSpec* spec = matmul_param(key);
    if (!has_matmul_variant(step)) {
      EXPECT_EQ(spec, nullptr);
      continue;
    }
    ASSERT_NE(spec, nullptr);
    for (const char* preset : {"seed", "small", "large"}) {
      EXPECT_EQ(spec->presets.at(preset), value) << preset;
    }
    const Variant& v = matmul_variant(step);
    EXPECT_NE(std::find(v.tunings.begin(), v.tunings.end(), key), v.tunings.end());
    EXPECT_TRUE(v.check_tunings != nullptr);
  }
}

// cuda_tiled's knobs as a shape (cuda_tiling.cpp, in every build).
TEST(MatmulProblemTest, CudaTilingDefaultsToTheFastestShapesOfTheSweep) {
  using matmul::cuda::Mma;
  using matmul::cuda::tiling_of;
  const matmul::cuda::Tiling t = tiling_of({});
  EXPECT_EQ(t.shape, Mma::m16n8k4);
  EXPECT_EQ(t.slice, 16);
  EXPECT_EQ(t.stages, 3);
  // 64-wide tiles of 4 warps; 16 warps on 128-wide ones.
  EXPECT_EQ(t.tile, 64);
  EXPECT_EQ(t.warps, 4);
  EXPECT_EQ(tiling_of({.tile = 128}).warps, 16);
  EXPECT_EQ(tiling_of({.tile = 128, .warps = 8}).warps, 8);
  EXPECT_EQ(tiling_of({.mma = "m8n8k4"}).shape, Mma::m8n8k4);
  EXPECT_EQ(tiling_of({.mma = "m16n8k16"}).shape, Mma::m16n8k16);
  EXPECT_EQ(tiling_of({.slice = 32, .stages = 2}).slice, 32);
  EXPECT_EQ(tiling_of({.stages = 2}).stages, 2);
  EXPECT_EQ(matmul::cuda::mma_names[int(Mma::m16n8k8)], "m16n8k8");
}

TEST(MatmulProblemTest, CudaTilingCheckRefusesShapesTheKernelLacksNamingTheSet) {
  const auto error = [](const matmul::cuda::TiledTunings& t) {
    return test::usage_error_message([&] { matmul::cuda::check_tiling(t); });
  };
  EXPECT_EQ(error({}), "");
  EXPECT_EQ(error({.tile = 96}), "--set cuda_tile=96: expected 64 or 128");
  EXPECT_EQ(error({.tile = 128, .warps = 4}),
            "--set cuda_warps=4: with cuda_tile=128 a lane would hold 128 doubles of C (take 8 "
            "or 16)");
  EXPECT_EQ(error({.warps = 4}), "");
  EXPECT_EQ(error({.tile = 128}), "");  // and 16 warps
  EXPECT_EQ(error({.warps = 12}), "--set cuda_warps=12: expected 4, 8 or 16");
  EXPECT_EQ(error({.slice = 8}), "--set cuda_slice=8: expected 16 or 32");
  // 4 stages of 128 x 32 slices: 276 KiB of shared memory, more than any GPU gives a block.
  EXPECT_EQ(error({.tile = 128, .slice = 32, .stages = 4}),
            "--set cuda_stages=4: with cuda_tile=128 and cuda_slice=32 a block needs 276 KiB of "
            "shared memory, more than the 227 KiB a block may have");
  EXPECT_EQ(error({.tile = 128, .slice = 32, .stages = 3}), "");
  EXPECT_EQ(error({.slice = 32, .stages = 4}), "");  // 64-wide tiles: 140 KiB
}

// The same check reached through --set where cuda_tiled is built, and only for cuda_tiled.
TEST(MatmulProblemTest, CudaTiledChecksItsKnobsAsSet) {
  if (!has_matmul_variant("cuda_tiled")) GTEST_SKIP() << "built without CUDA: no cuda_tiled";
  const auto error = [](const std::vector<std::string>& overrides) {
    return test::check_error("matmul", "cuda_tiled", overrides);
  };
  EXPECT_EQ(error({}), "");
  EXPECT_EQ(error({"cuda_tile=96"}), "--set cuda_tile=96: expected 64 or 128");
  EXPECT_NE(error({"cuda_mma=m8n8k8"}).find("cuda_mma"), std::string::npos);
  EXPECT_NE(error({"cuda_stages=1"}).find("cuda_stages=1"), std::string::npos);
  EXPECT_NE(error({"cuda_stages=5"}).find("cuda_stages=5"), std::string::npos);
  EXPECT_NE(error({"cuda_warps=4", "cuda_tile=128"}).find("--set cuda_warps=4: with cuda_tile"),
            std::string::npos);
  EXPECT_EQ(error({"cuda_tile=128"}), "");
  EXPECT_EQ(error({"cuda_warps=12"}), "--set cuda_warps=12: expected 4, 8 or 16");
  // Outside the declared range (what tune searches) first, then the values the kernels take.
  EXPECT_EQ(error({"cuda_slice=8"}), "--set cuda_slice=8: cuda_slice must be 16 to 32");
  EXPECT_EQ(error({"cuda_slice=24"}), "--set cuda_slice=24: expected 16 or 32");
  EXPECT_NE(error({"cuda_tile=256"}).find("cuda_tile must be 64 to 128"), std::string::npos);
  EXPECT_NE(error({"cuda_warps=32"}).find("cuda_warps must be 4 to 16"), std::string::npos);
  EXPECT_NE(error({"cuda_tile=128", "cuda_slice=32", "cuda_stages=4"}).find("276 KiB"),
            std::string::npos);
  EXPECT_EQ(error({"cuda_tile=128", "cuda_slice=32", "cuda_stages=3"}), "");
  // A step without these knobs never reads them (acclab refuses such a --set for it first).
  EXPECT_EQ(test::check_error("matmul", "openmp", {"cuda_tile=96"}), "");
}

TEST(MatmulProblemTest, LeadingDimensionsDefaultToTheRowLengths) {
  const Problem p = problem({"m=5", "n=7", "k=3"});
  EXPECT_EQ(p.lda, 3);
  EXPECT_EQ(p.ldb, 7);
  EXPECT_EQ(p.ldc, 7);
  const Problem q = problem({"m=5", "n=7", "k=3", "lda=4", "ldb=9", "ldc=8"});
  EXPECT_EQ(q.lda, 4);
  EXPECT_EQ(q.ldb, 9);
  EXPECT_EQ(q.ldc, 8);
  EXPECT_EQ(q.a_size(), 5 * 4);
  EXPECT_EQ(q.b_size(), 3 * 9);
  EXPECT_EQ(q.c_size(), 5 * 8);
  EXPECT_DOUBLE_EQ(q.flops(), 2.0 * 5 * 7 * 3);
}

TEST(MatmulProblemTest, SeedInputsAreThePatternWithNanPadding) {
  const Problem p = problem({"m=4", "n=3", "k=5", "lda=7", "ldb=6"});
  const auto a = matmul::matrix_a(p), b = matmul::matrix_b(p);
  ASSERT_EQ(a.size(), 4u * 7);
  ASSERT_EQ(b.size(), 5u * 6);
  for (int i = 0; i < 4; ++i) {
    for (int q = 0; q < 5; ++q) EXPECT_EQ(a[i * 7 + q], double(i + q));
    for (int q = 5; q < 7; ++q) EXPECT_TRUE(std::isnan(a[i * 7 + q]));
  }
  for (int q = 0; q < 5; ++q) {
    for (int j = 0; j < 3; ++j) EXPECT_EQ(b[q * 6 + j], double(q - j));
    for (int j = 3; j < 6; ++j) EXPECT_TRUE(std::isnan(b[q * 6 + j]));
  }
}

TEST(MatmulProblemTest, RandomInputsAreReproducibleUniformAndSeeded) {
  const Problem p = problem({"init=random", "m=40", "n=30", "k=50"});
  const auto a = matmul::matrix_a(p), a_again = matmul::matrix_a(p), b = matmul::matrix_b(p);
  EXPECT_EQ(a, a_again);
  EXPECT_NE(matmul::matrix_a(problem({"init=random", "m=40", "n=30", "k=50", "random_seed=2"})), a);
  double sum = 0;
  std::set<double> distinct;
  for (double x : a) {
    EXPECT_GE(x, -1.0);
    EXPECT_LT(x, 1.0);
    sum += x;
    distinct.insert(x);
  }
  EXPECT_EQ(distinct.size(), a.size());
  EXPECT_LT(std::abs(sum / double(a.size())), 0.1);  // mean 0, sd of the mean 0.026
  // B is not A's stream again.
  EXPECT_NE(std::vector<double>(a.begin(), a.begin() + 30),
            std::vector<double>(b.begin(), b.begin() + 30));
}

TEST(MatmulProblemTest, SeedProductIsTheExactSum) {
  for (const auto& overrides : std::vector<std::vector<std::string>>{
           {"m=65", "n=47", "k=33"}, {"m=3", "n=200", "k=1"}, {"m=1", "n=1", "k=1000"}}) {
    const Problem p = problem(overrides);
    const matmul::ReferenceCheck check = matmul::check_reference(p, matmul::seed_matrix(p));
    EXPECT_TRUE(check.ok) << check.detail;
    EXPECT_EQ(check.tolerance, 0);  // integer products: bitwise
    EXPECT_EQ(check.difference, 0);
  }
  // The exactness bound: k (m + k)(k + n) < 2^53.
  EXPECT_TRUE(matmul::seed_products_exact(problem({"m=46340", "n=46340", "k=40000"})));
  EXPECT_FALSE(matmul::seed_products_exact(problem({"m=1", "n=1", "k=300000"})));
}

TEST(MatmulProblemTest, ReferenceProductMatchesThePlainTripleLoop) {
  // 300 > the reference's 256 block in k and n.
  const Problem p = problem({"init=random", "m=31", "n=300", "k=301", "lda=305", "ldb=303"});
  std::vector<double> r = matmul::reference_product(p);
  const matmul::ReferenceCheck check = matmul::check_reference(p, r);
  EXPECT_TRUE(check.ok) << check.detail;
  EXPECT_GT(check.tolerance, 0);
  EXPECT_LT(check.tolerance, 301 * 301 * 1e-16);  // gamma_k times at most k |a||b| < k
}

TEST(MatmulProblemTest, AWrongReferenceFailsItsCheck) {
  const Problem seed = problem({"m=9", "n=7", "k=5"});
  std::vector<double> s = matmul::seed_matrix(seed);
  s[3 * 7 + 4] += 1;  // an off-by-one closed form
  EXPECT_FALSE(matmul::check_reference(seed, s).ok);
  const Problem random = problem({"init=random", "m=9", "n=7", "k=50"});
  std::vector<double> r = matmul::reference_product(random);
  const double tolerance = matmul::check_reference(random, r).tolerance;
  r[10] += 4 * tolerance;
  EXPECT_FALSE(matmul::check_reference(random, r).ok);
  r[10] = std::numeric_limits<double>::quiet_NaN();
  const matmul::ReferenceCheck nan = matmul::check_reference(random, r);
  EXPECT_FALSE(nan.ok);
  EXPECT_TRUE(std::isinf(nan.difference));
}

// ---- verify() ----------------------------------------------------------------------------------

// The serial product written straight into C, then verify()'s verdict.
class Filled : public matmul::MatmulInstance {
 public:
  using MatmulInstance::MatmulInstance;
  void run() override {
    const auto here = matmul::plain_product(p_).value;
    for (int i = 0; i < p_.m; ++i) {
      for (int j = 0; j < p_.n; ++j) c_[std::size_t(i) * p_.ldc + j] = double(here[i * p_.n + j]);
    }
  }
  double& at(int i, int j) { return c_[std::size_t(i) * p_.ldc + j]; }
};

TEST(MatmulVerifyTest, AcceptsTheProductAndRejectsAnyWrongElementOrWrittenPadding) {
  for (const char* init : {"init=seed", "init=random"}) {
    SCOPED_TRACE(init);
    const Params params = matmul_params({init, "m=17", "n=9", "k=33", "ldc=12"});
    Filled f(params);
    f.setup();
    f.reset();
    EXPECT_FALSE(f.verify().ok) << "a zero C is not the product";
    f.run();
    const Verification good = f.verify();
    EXPECT_TRUE(good.ok) << good.detail;
    // The convention: the primary check is difference <= tolerance; the reference itself was
    // checked (17 x 9 x 33 is small).
    EXPECT_LE(good.outputs["difference"].get<double>(), good.outputs["tolerance"].get<double>());
    EXPECT_TRUE(good.outputs.contains("reference_difference")) << good.outputs.dump();
    if (std::string(init) == "init=seed") EXPECT_EQ(good.outputs["tolerance"].get<double>(), 0);
    for (auto [i, j] : std::vector<std::pair<int, int>>{{0, 0}, {16, 8}, {7, 3}}) {
      const double saved = f.at(i, j);
      f.at(i, j) += std::string(init) == "init=seed" ? 1.0 : 1e-6;
      const Verification wrong = f.verify();
      EXPECT_FALSE(wrong.ok) << i << " " << j;
      EXPECT_GT(wrong.outputs["difference"].get<double>(),
                wrong.outputs["tolerance"].get<double>());
      f.at(i, j) = std::numeric_limits<double>::quiet_NaN();
      const Verification nan = f.verify();
      EXPECT_FALSE(nan.ok) << "NaN at " << i << " " << j;
      EXPECT_TRUE(std::isinf(nan.outputs["difference"].get<double>()));
      f.at(i, j) = saved;
    }
    EXPECT_TRUE(f.verify().ok);
    f.at(5, 10) = 0.0;  // column 10 >= n = 9: padding
    const Verification padded = f.verify();
    EXPECT_FALSE(padded.ok);
    EXPECT_NE(padded.detail.find("padding"), std::string::npos) << padded.detail;
  }
}

TEST(MatmulVerifyTest, RandomBoundScalesWithKAndEpsilon) {
  const Params params = matmul_params({"init=random", "m=20", "n=20", "k=400"});
  Filled f(params);
  f.setup();
  f.reset();
  f.run();
  const Verification v = f.verify();
  ASSERT_TRUE(v.ok) << v.detail;
  // The bound in the detail is 2 gamma_k = 2 k eps / (1 - k eps).
  const double eps = std::numeric_limits<double>::epsilon();
  const std::string expected = fmt::format("{:.3g}", 2 * 400 * eps / (1 - 400 * eps));
  EXPECT_NE(v.detail.find(expected), std::string::npos) << v.detail;
  ASSERT_TRUE(v.outputs.contains("relative_error"));
  EXPECT_LE(v.outputs["relative_error"].get<double>(), 2 * 400 * eps);
}

// ---- the workload ------------------------------------------------------------------------------

TEST(MatmulWorkloadTest, ValidateRefusesBadShapesWithTheParameterNamed) {
  auto error = [](const std::vector<std::string>& overrides) {
    return test::validate_error("matmul", overrides);
  };
  EXPECT_EQ(error({}), "");
  EXPECT_NE(error({"lda=32"}).find("lda=32"), std::string::npos);
  EXPECT_NE(error({"ldb=46"}).find("ldb=46"), std::string::npos);
  EXPECT_NE(error({"ldc=3"}).find("ldc=3"), std::string::npos);
  EXPECT_NE(error({"m=0"}).find("m=0"), std::string::npos);
  EXPECT_NE(error({"k=-3"}).find("k=-3"), std::string::npos);
  EXPECT_NE(error({"init=ones"}).find("init"), std::string::npos);
  EXPECT_NE(error({"acc_block=3x3"}).find("acc_block"), std::string::npos);
  EXPECT_NE(error({"data=managed"}).find("data"), std::string::npos);
  // 2^31 elements in one matrix; and sizes past int without overflow.
  EXPECT_NE(error({"m=65536", "k=32768"}), "");
  EXPECT_NE(error({"m=9223372036854775807"}), "");
  EXPECT_NE(error({"n=4294967296"}), "");
  EXPECT_EQ(error({"m=65536", "k=32767", "n=1"}), "");
}

TEST(MatmulWorkloadTest, MemoryEstimatesCountTheMatrices) {
  const Params seed = matmul_params({"m=17", "n=9", "k=33", "lda=40", "ldc=10"});
  EXPECT_EQ(matmul_workload().device_bytes(seed), 8.0 * (17 * 40 + 33 * 9 + 17 * 10));
  // Small enough for verify() to check the reference: A and B again, the plain product (two
  // long double matrices) and the closed-form one.
  const double check = 8.0 * (17 * 40 + 33 * 9) + (2 * 16 + 8) * 17 * 9;
  EXPECT_EQ(matmul_workload().host_bytes(seed), 8.0 * (17 * 40 + 33 * 9 + 17 * 10) + check);
  // init=random also holds the reference product.
  const Params random = matmul_params({"m=17", "n=9", "k=33", "lda=40", "ldc=10", "init=random"});
  EXPECT_EQ(matmul_workload().host_bytes(random), 8.0 * (17 * 40 + 33 * 9 + 2 * 17 * 10) + check);
  // Too large to check the reference: the three matrices, and for init=random the reference
  // product and the inputs it generates again.
  const Params large = matmul_params({"m=512", "n=512", "k=512"});
  EXPECT_EQ(matmul_workload().host_bytes(large), 8.0 * 3 * 512 * 512);
  const Params large_random = matmul_params({"m=512", "n=512", "k=512", "init=random"});
  EXPECT_EQ(matmul_workload().host_bytes(large_random), 8.0 * 6 * 512 * 512);
}

// The ladder's names and order come from ladder.json (tests/registry_test.cpp); here, what every
// step shares: its family and the product model.
TEST(MatmulLadderTest, EveryStepIsOnTheMatmulLadderWithTheProductModel) {
  ASSERT_NO_FATAL_FAILURE(test::expect_ladder_in_order("matmul", "openmp", "matmul"));
  const Params params = matmul_params({"m=17", "n=9", "k=33"});
  for (const auto& name : matmul_variant_names()) {
    const Variant& v = matmul_variant(name);
    EXPECT_DOUBLE_EQ(v.model.flops(params, {}), 2.0 * 17 * 9 * 33) << name;
    EXPECT_DOUBLE_EQ(v.model.bytes(params, {}), 8.0 * (17 * 33 + 33 * 9 + 17 * 9)) << name;
  }
}

// ---- every registered variant ------------------------------------------------------------------

class MatmulVariantTest : public test::VariantTest {
 protected:
  MatmulVariantTest() : VariantTest("matmul") {}
};

TEST_P(MatmulVariantTest, VerifiedOnShapesNoTileDividesAndPaddedRows) {
  const std::vector<std::vector<std::string>> cases = {
      {},                                       // 65 x 33 x 47, init=seed: exact
      {"init=random"},                          // the Frobenius bound
      {"m=1", "n=1", "k=1"},                    // one element
      {"m=129", "n=130", "k=17", "data=copy"},  // past 128-wide tiles, copied each run
      {"m=9", "n=600", "k=70", "init=random"},  // more columns than a 512-wide gang
      {"lda=40", "ldb=50", "ldc=61"},           // padded rows: padding of C untouched
      {"m=70", "n=66", "k=5", "cuda_tile=128", "ldc=67", "data=copy"},
      // acc_tuned's register blocks, on edges of their gangs (the others ignore them).
      {"m=35", "n=530", "k=9", "acc_block=8x8", "init=random"},
      {"m=35", "n=1100", "k=9", "acc_block=4x8", "ldc=1111"},
      {"m=35", "n=130", "k=9", "acc_block=8x4", "data=copy"},
      // cuda_tiled's MMA shapes, on edges of both tiles (the others ignore the parameter).
      {"m=131", "n=70", "k=37", "cuda_mma=m8n8k4", "init=random"},
      {"m=131", "n=70", "k=37", "cuda_mma=m16n8k8", "cuda_tile=128"},
      {"m=131", "n=70", "k=37", "cuda_mma=m16n8k16", "init=random", "ldb=75"},
      // cuda_tiled's pipeline depths, with a k that leaves the last slice part full and odd
      // leading dimensions (copies of one double instead of two).
      {"m=131", "n=70", "k=37", "cuda_stages=2", "init=random"},
      {"m=131", "n=70", "k=37", "cuda_stages=4", "cuda_tile=128", "cuda_warps=8", "lda=39"},
      {"m=131", "n=70", "k=3", "cuda_stages=4", "init=random"},
      // Blocks of 16 and 4 warps, slices 32 deep.
      {"m=131", "n=270", "k=77", "cuda_tile=128", "cuda_slice=32", "init=random"},
      {"m=131", "n=70", "k=77", "cuda_warps=16", "cuda_tile=64", "cuda_mma=m8n8k4", "ldc=71"},
      {"m=67", "n=70", "k=45", "cuda_warps=4", "cuda_tile=64", "cuda_slice=32", "ldb=71"},
  };
  for (const auto& overrides : cases) {
    // A step's own knobs are parameters only where the step is built.
    if (std::any_of(overrides.begin(), overrides.end(), [](const std::string& set) {
          return matmul_param(set.substr(0, set.find('='))) == nullptr;
        })) {
      continue;
    }
    const Params params = matmul_params(overrides);
    SCOPED_TRACE(params.json().dump());
    const Result r = run(params, 2);
    if (skipped_as_unavailable(r)) GTEST_SKIP() << variant().id() << ": " << r.note;
    ASSERT_EQ(r.status, Status::verified) << r.error << " / " << r.verification;
    EXPECT_EQ(r.place, expected_place());
    ASSERT_EQ(r.times_s.size(), 2u);
    const Problem p = matmul::problem_of(params);
    if (p.init == Init::seed) {
      EXPECT_EQ(r.outputs.value("max_abs_error", -1.0), 0.0) << r.outputs.dump();
    } else {
      EXPECT_LE(r.outputs.value("relative_error", 1.0),
                2 * p.k * std::numeric_limits<double>::epsilon())
          << r.outputs.dump();
    }
    // Host variants never copy; OpenACC and CUDA steps copy inside a run only with data=copy;
    // of the OpenMP target steps only omp_target_map does, and always.
    const bool device = variant().backend == Backend::openacc || variant().backend == Backend::cuda;
    const bool copies = variant().backend == Backend::omptarget ? variant().name == "omp_target_map"
                                                                : device && !p.resident;
    EXPECT_EQ(r.transfer_s.has_value(), copies);
    EXPECT_DOUBLE_EQ(r.gflops, p.flops() / r.median_s / 1e9);
  }
}

INSTANTIATE_TEST_SUITE_P(AllMatmulVariants, MatmulVariantTest,
                         ::testing::ValuesIn(matmul_variant_names()), test::param_name);

// ---- the command line --------------------------------------------------------------------------

TEST(MatmulCliTest, LadderOnTheSmallPresetVerifiesAndReportsSpeedups) {
  const Outcome o = run_acclab({"ladder", "matmul", "--format", "json", "--reps", "1"});
  ASSERT_EQ(o.status, 0) << o;
  const auto doc = parse_json(o.out);
  EXPECT_EQ(doc["workload"], "matmul");
  ASSERT_EQ(doc["results"].size(), matmul_variant_names().size());
  const auto& first = doc["results"][0];
  EXPECT_EQ(first["variant"], "openmp");
  EXPECT_EQ(first["status"], "verified");
  EXPECT_EQ(first["speedup_vs_first"], 1.0);
  for (const auto& r : doc["results"]) {
    SCOPED_TRACE(r["variant"].dump());
    if (test::unavailable_cuda_step(r)) continue;
    EXPECT_EQ(r["status"], "verified") << r["error"];
    EXPECT_GT(r["gflops"].get<double>(), 0.0);
    EXPECT_TRUE(r["speedup_vs_first"].is_number());
    EXPECT_TRUE(r["limit_fraction"].is_null()) << "arithmetic-bound: no bandwidth limit";
  }
}

// `acclab run matmul` with each of `sets` as --set, refused naming the last one's parameter.
test::BadInput bad_shape(const std::vector<std::string>& sets) {
  return test::bad_run("matmul", test::name_of(sets), sets,
                       {sets.back().substr(0, sets.back().find('='))});
}

using test::BadInputTest;

INSTANTIATE_TEST_SUITE_P(
    MatmulRun, BadInputTest,
    ::testing::Values(bad_shape({"m=0"}), bad_shape({"n=-1"}), bad_shape({"k=x"}),
                      bad_shape({"ldc=46"}), bad_shape({"lda=1"}), bad_shape({"ldb=2"}),
                      bad_shape({"init=ones"}), bad_shape({"data=managed"}),
                      bad_shape({"cuda_tile=256"}), bad_shape({"cuda_mma=wgmma"}),
                      bad_shape({"cuda_stages=0"}), bad_shape({"acc_block=32x32"}),
                      bad_shape({"n=70000", "m=70000"})),
    test::bad_input_name);

TEST(MatmulCliTest, TooLargeForMemoryIsRefusedBeforeAllocating) {
  // 3 x 46000^2 doubles = 51 GB: more than this machine's memory, refused at once.
  if (Machine().host().available_bytes > 3.0 * 8 * 46000.0 * 46000.0) {
    GTEST_SKIP() << "this host has the memory for it";
  }
  const Outcome o = run_acclab({"run", "matmul", "--set", "m=46000", "--set", "n=46000", "--set",
                                "k=46000", "--variant", "openmp"});
  EXPECT_TRUE(is_usage_error(o, {"memory"})) << o;
  EXPECT_LT(o.max_rss_kib, 1 << 20) << "nothing of that size was allocated";
}

}  // namespace
}  // namespace acclab
