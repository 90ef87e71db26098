// acclab iccg FILE through the ladder's steps: every variant built here solves the suite's
// SuiteSparse matrices as original does (iterations within 2, x within original's bound), the
// default variant follows the machine, and a --variant that cannot run is a usage error. On a
// machine without a GPU the OpenACC step runs on the host fallback and the CUDA steps are
// refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/machine.hpp"
#include "iccg_indefinite.hpp"
#include "support.hpp"
#include "workloads/iccg/color_ell.hpp"
#include "workloads/iccg/matrix_solve.hpp"

namespace acclab {
namespace {

using test::is_usage_error;
using test::run_acclab;

using test::data_file;

double norm2(const std::vector<double>& x) {
  double sum = 0;
  for (double v : x) sum += v * v;
  return std::sqrt(sum);
}

// An upper estimate of A's smallest eigenvalue: the Rayleigh quotient of A^-1 after inverse
// iteration, A^-1 applied by original's solve to 1e-13 (shifted IC(0) preconditions it: any
// preconditioner gives the same A^-1).
double smallest_eigenvalue_estimate(const iccg::Csr& a) {
  const iccg::Ordering o = iccg::order_rows(a, -20);
  const iccg::Csr pa = iccg::permuted(a, o);
  std::vector<double> v(static_cast<std::size_t>(a.n));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = 1.0 + 0.5 * std::sin(double(i));
  double lambda = 0;
  for (int step = 0; step < 60; ++step) {
    const double norm = norm2(v);
    for (double& x : v) x /= norm;
    const iccg::Solution y = iccg::solve_iccg(pa, v, o, 1e-13, 20000, 1, /*shift=*/1);
    double vy = 0;
    for (std::size_t i = 0; i < v.size(); ++i) vy += v[i] * y.x[i];
    lambda = 1 / vy;
    v = y.x;
  }
  return lambda;
}

struct MatrixCase {
  std::string file;
  double shift;  // IC(0) breaks down without one on LFAT5 and the bcsstk matrices
};

class IccgFileVariantTest : public ::testing::TestWithParam<MatrixCase> {};

// Each variant built and runnable here against original: converged to tol by the residual
// recomputed from the file, the iterations original's give or take 2 (rounding differs), and
// ||x - x_original|| within what both residuals allow: 2 tol ||b|| / lambda_min.
TEST_P(IccgFileVariantTest, EveryVariantSolvesAsOriginalDoes) {
  const MatrixCase& c = GetParam();
  const iccg::MatrixSystem system = iccg::read_matrix_system(data_file(c.file), "");
  constexpr double tol = 1e-10;
  Machine machine;
  const iccg::MatrixSolution original = iccg::solve_matrix(
      system, {.tol = tol,
               .shift = c.shift,
               .variant = iccg::choose_matrix_variant("original", test::all(), machine).variant});
  ASSERT_TRUE(original.converged);
  ASSERT_LT(original.residual, tol);
  const double lambda_min = smallest_eigenvalue_estimate(system.a);
  ASSERT_GT(lambda_min, 0);
  const double bound = 2 * tol * norm2(system.b) / lambda_min;
  int compared = 0;
  for (const char* name : iccg::matrix_variant_names) {
    if (std::string(name) == "original") continue;
    const bool built =
        std::any_of(test::all().variants().begin(), test::all().variants().end(),
                    [&](const Variant& v) { return v.id() == "iccg/" + std::string(name); });
    if (!built) continue;
    const Variant& variant = test::variant_of("iccg", name);
    if (variant.backend == Backend::cuda && !machine.cuda_available()) {
      // Refused before anything is read or solved, naming the option and the choices.
      const std::string error = test::usage_error_message(
          [&] { iccg::choose_matrix_variant(name, test::all(), machine); });
      EXPECT_NE(error.find("--variant"), std::string::npos) << error;
      EXPECT_NE(error.find("no CUDA GPU"), std::string::npos) << error;
      continue;
    }
    // As acclab iccg runs it, and with every colour split into runs wherever that saves a slot.
    for (const std::int64_t min_saved_slots : {iccg::default_min_saved_slots, std::int64_t(0)}) {
      SCOPED_TRACE(std::string(name) + " min_saved_slots " + std::to_string(min_saved_slots));
      const iccg::MatrixSolution s = iccg::solve_matrix(
          system,
          {.tol = tol, .shift = c.shift, .variant = &variant, .min_saved_slots = min_saved_slots});
      EXPECT_TRUE(s.converged);
      EXPECT_LT(s.residual, tol);
      // cuSPARSE's full IC(0) (csric02) also updates the factor's off-diagonal entries by the
      // earlier rows, where the course's IC(0) keeps A's: on a matrix whose graph has triangles
      // (most of these) it is another preconditioner, with iterations of its own, so only its
      // answer is held to original's (docs/iccg.md). The solver is left as cuSPARSE has it.
      if (std::string(name) != "cusparse") {
        EXPECT_LE(std::abs(s.iterations - original.iterations), 2)
            << s.iterations << " iterations against original's " << original.iterations;
      }
      ASSERT_EQ(s.x.size(), original.x.size());
      double difference = 0;
      for (std::size_t i = 0; i < s.x.size(); ++i) {
        difference += (s.x[i] - original.x[i]) * (s.x[i] - original.x[i]);
      }
      EXPECT_LE(std::sqrt(difference), bound);
      EXPECT_GT(s.run_s, 0);
      EXPECT_EQ(s.bytes_per_iteration, original.bytes_per_iteration);
    }
    ++compared;
  }
  EXPECT_GE(compared, 1) << "no variant besides original ran";  // optimized, on the host at least
}

INSTANTIATE_TEST_SUITE_P(SuiteSparse, IccgFileVariantTest,
                         ::testing::Values(MatrixCase{"matrices/LFAT5.mtx", 1},
                                           MatrixCase{"matrices/bcsstk01.mtx", 1},
                                           MatrixCase{"matrices/494_bus.mtx", 0},
                                           MatrixCase{"matrices/662_bus.mtx", 0},
                                           MatrixCase{"matrices/gr_900_900_crg.mtx", 0},
                                           MatrixCase{"matrices/bcsstk08.mtx", 1},
                                           MatrixCase{"matrices/1138_bus.mtx", 0},
                                           MatrixCase{"matrices/bcsstk10.mtx", 1},
                                           MatrixCase{"matrices/bcsstk13.mtx", 1},
                                           MatrixCase{"matrices/bcsstk21.mtx", 0.1},
                                           MatrixCase{"matrices/lap2D_5pt_n100.mtx", 0},
                                           MatrixCase{"matrices/lap3D_7pt_n20.mtx", 0}),
                         [](const auto& info) {
                           std::string name = info.param.file.substr(info.param.file.find('/') + 1);
                           name = name.substr(0, name.find('.'));
                           return name;
                         });

// Rows sorted widest first within each colour keep the ordering valid, and a colour split into
// runs holds the same matrix in fewer slots: the product through the runs' slabs equals the CSR
// product, each run lies inside one colour, and lower (upper) columns are earlier (later)
// colours' rows.
TEST(IccgColorEllRunsTest, SplitColoursHoldThePermutedMatrixInFewerSlots) {
  const iccg::MatrixSystem system =
      iccg::read_matrix_system(data_file("matrices/bcsstk08.mtx"), "");
  iccg::Ordering o = iccg::order_rows(system.a, -20);
  const std::vector<std::int64_t> sizes = o.color_start;
  iccg::group_rows_by_width(system.a, o);
  EXPECT_EQ(o.color_start, sizes);
  EXPECT_FALSE(iccg::coupled_rows_share_a_color(system.a, o));
  const iccg::Csr a = iccg::permuted(system.a, o);
  for (int c = 0; c < o.colors; ++c) {
    for (std::int64_t i = o.color_start[c] + 1; i < o.color_start[c + 1]; ++i) {
      ASSERT_GE(a.start[i] - a.start[i - 1], a.start[i + 1] - a.start[i]) << "row " << i;
    }
  }
  const iccg::ColorEll whole = iccg::color_ell(a, o);
  const iccg::ColorEll runs = iccg::color_ell(a, o, 0);
  ASSERT_EQ(whole.colors, o.colors);
  EXPECT_GT(runs.colors, o.colors);
  EXPECT_LE(runs.colors, o.colors * iccg::max_runs_per_color);
  const auto slots = [](const iccg::ColorEll& m) {
    return m.lower_column.size() + m.upper_column.size();
  };
  // bcsstk08's few wide rows: a colour padded to its widest row is mostly padding.
  EXPECT_LT(2 * slots(runs), slots(whole)) << slots(runs) << " against " << slots(whole);
  std::vector<double> x(static_cast<std::size_t>(a.n));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 1.0 + double((i * 37) % 11);
  int color = 0;  // the ordering's colour of the run
  for (int run = 0; run < runs.colors; ++run) {
    const std::int64_t first = runs.color_start[run], rows = runs.color_start[run + 1] - first;
    while (o.color_start[color + 1] <= first) ++color;
    ASSERT_LE(first + rows, o.color_start[color + 1]) << "run " << run << " crosses a colour";
    for (std::int64_t k = 0; k < rows; ++k) {
      const std::int64_t i = first + k;
      double slab = runs.diagonal[i] * x[i], csr = a.diagonal[i] * x[i];
      for (std::int64_t e = a.start[i]; e < a.start[i + 1]; ++e) csr += a.value[e] * x[a.column[e]];
      for (int slot = 0; slot < runs.lower_width[run]; ++slot) {
        const std::int64_t e = runs.lower_start[run] + slot * rows + k;
        if (runs.lower_value[e] != 0) EXPECT_LT(runs.lower_column[e], o.color_start[color]);
        slab += runs.lower_value[e] * x[runs.lower_column[e]];
      }
      for (int slot = 0; slot < runs.upper_width[run]; ++slot) {
        const std::int64_t e = runs.upper_start[run] + slot * rows + k;
        if (runs.upper_value[e] != 0) EXPECT_GE(runs.upper_column[e], o.color_start[color + 1]);
        slab += runs.upper_value[e] * x[runs.upper_column[e]];
      }
      ASSERT_EQ(slab, csr) << "row " << i;
    }
  }
}

// Both OpenACC solves (one construct, and one a colour and phase) stop at original's iteration
// on an indefinite matrix, saying p . A p <= 0 (iccg_indefinite.hpp).
TEST(IccgFileIndefiniteTest, OpenAccSolvesStopWhereOriginalDoes) {
  test::expect_stops_where_original_does_on_an_indefinite_matrix("optimized");
  test::expect_stops_where_original_does_on_an_indefinite_matrix("optimized_per_color");
}

// The warm-up solve before the timed one changes nothing: on 494_bus (no restart at 1e-8)
// original's and optimized's x are, bit for bit, those of one solve without a warm-up.
TEST(IccgFileWarmUpTest, LeavesTheAnswerAsItWas) {
  const iccg::MatrixSystem system = iccg::read_matrix_system(data_file("matrices/494_bus.mtx"), "");
  iccg::Ordering o = iccg::order_rows(system.a, -20);
  iccg::group_rows_by_width(system.a, o);
  std::vector<double> pb(system.b.size());
  for (std::int64_t v = 0; v < system.a.n; ++v) pb[o.new_of_old[v]] = system.b[v];
  Machine machine;
  for (const char* name : {"original", "optimized"}) {
    SCOPED_TRACE(name);
    const iccg::MatrixSolution s = iccg::solve_matrix(
        system, {.variant = iccg::choose_matrix_variant(name, test::all(), machine).variant});
    ASSERT_TRUE(s.converged);
    ASSERT_EQ(s.restarts, 0);
    EXPECT_EQ(s.warm_up_iterations, 1);
    std::vector<double> once;  // in the permuted numbering
    if (std::string(name) == "original") {
      once = iccg::solve_iccg(iccg::permuted(system.a, o), pb, o, 1e-8, 10000, 1).x;
    } else {
      const std::unique_ptr<Instance> instance =
          test::variant_of("iccg", name)
              .factory(test::params_of("iccg", {"colors=-20", "eps=1e-8", "max_iterations=10000"}));
      auto* solver = dynamic_cast<iccg::IccgInstance*>(instance.get());
      ASSERT_NE(solver, nullptr);
      solver->use_system(system.a, system.b, 0, iccg::default_min_saved_slots);
      test::run_once(*instance);
      once = solver->solution().x;
    }
    ASSERT_EQ(once.size(), s.x.size());
    for (std::int64_t v = 0; v < system.a.n; ++v) {
      ASSERT_EQ(s.x[v], once[o.new_of_old[v]]) << "row " << v + 1;
    }
  }
}

// The serial solve verify() compares with is the system's own: a user's system (use_system) is
// never served the one kept for the course's mesh of the same parameters (in memory here, or in
// ACCLAB_REFERENCE_DIR across processes), whose x is of another size altogether.
TEST(IccgFileUserSystemTest, VerifiedAgainstItsOwnSerialSolveNotTheMeshs) {
  const Params params = test::params_of("iccg", {"colors=-20", "eps=1e-8"});
  const std::unique_ptr<Instance> mesh = test::variant_of("iccg", "original").factory(params);
  test::run_once(*mesh);
  ASSERT_TRUE(mesh->verify().ok);  // the mesh's serial solve is now kept
  const iccg::MatrixSystem system = iccg::read_matrix_system(data_file("matrices/494_bus.mtx"), "");
  const std::unique_ptr<Instance> user = test::variant_of("iccg", "original").factory(params);
  auto* solver = dynamic_cast<iccg::IccgInstance*>(user.get());
  ASSERT_NE(solver, nullptr);
  solver->use_system(system.a, system.b, 0, iccg::default_min_saved_slots);
  test::run_once(*user);
  const Verification v = user->verify();
  EXPECT_EQ(v.outputs.value("max_diff_vs_serial", -1.0), 0.0) << v.outputs.dump();
}

TEST(IccgFileVariantChoiceTest, DefaultFollowsTheMachine) {
  Machine machine;
  const iccg::MatrixVariantChoice choice = iccg::choose_matrix_variant("", test::all(), machine);
  ASSERT_NE(choice.variant, nullptr);
  const std::string expected = machine.cuda_available()        ? "cuda"
                               : machine.openacc_runs_on_gpu() ? "optimized"
                                                               : "original";
  EXPECT_EQ(choice.variant->name, expected);
  EXPECT_NE(choice.reason.find("default"), std::string::npos) << choice.reason;
  EXPECT_EQ(iccg::choose_matrix_variant("optimized", test::all(), machine).reason, "--variant");
}

TEST(IccgFileVariantChoiceTest, OtherNamesAreRefusedNamingTheChoices) {
  Machine machine;
  // "setup" is a ladder step, but not one acclab iccg FILE takes.
  for (const char* name : {"fastest", "setup", "optimized_per_color", "Original"}) {
    SCOPED_TRACE(name);
    const std::string error =
        test::usage_error_message([&] { iccg::choose_matrix_variant(name, test::all(), machine); });
    for (const char* word : {"--variant", "original", "optimized", "cuda", "cusparse"}) {
      EXPECT_NE(error.find(word), std::string::npos) << error;
    }
  }
}

TEST(IccgFileCommandTest, NamesTheVariantAndWhyItWasChosen) {
  Machine machine;
  const test::Outcome o = run_acclab({"iccg", data_file("matrices/494_bus.mtx")});
  ASSERT_EQ(o.status, 0) << o;
  if (!machine.cuda_available() && !machine.openacc_runs_on_gpu()) {
    EXPECT_NE(o.out.find("variant original (the default without a GPU), on the host\n"),
              std::string::npos)
        << o.out;
  }
  const test::Outcome named =
      run_acclab({"iccg", data_file("matrices/494_bus.mtx"), "--variant", "optimized"});
  ASSERT_EQ(named.status, 0) << named;
  // Where it ran, in words: the GPU, or the host through OpenACC's fallback.
  EXPECT_NE(named.out.find(machine.openacc_runs_on_gpu()
                               ? "variant optimized (--variant), on the GPU\n"
                               : "variant optimized (--variant), on the host: OpenACC's host "
                                 "fallback, no GPU\n"),
            std::string::npos)
      << named.out;
  EXPECT_NE(named.out.find("converged after"), std::string::npos) << named.out;
  EXPECT_NE(named.out.find("max |x - 1| = "), std::string::npos) << named.out;
}

// Counts of one are said in the singular ("1 thread", "1 iteration"), of others in the plural.
TEST(IccgFileCommandTest, CountsOfOneAreSingular) {
  const char* old = std::getenv("OMP_NUM_THREADS");
  const std::string saved = old ? old : "";
  setenv("OMP_NUM_THREADS", "1", 1);
  const test::Outcome o =
      run_acclab({"iccg", data_file("matrices/494_bus.mtx"), "--variant", "original"});
  if (old) {
    setenv("OMP_NUM_THREADS", saved.c_str(), 1);
  } else {
    unsetenv("OMP_NUM_THREADS");
  }
  ASSERT_EQ(o.status, 0) << o;
  EXPECT_NE(o.out.find(", 1 thread; timed after an untimed warm-up of 1 iteration)"),
            std::string::npos)
      << o.out;
  EXPECT_EQ(o.out.find("1 threads"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find(" 494 rows, "), std::string::npos) << o.out;
  EXPECT_NE(o.out.find(" iterations: ||b - A x||"), std::string::npos) << o.out;
}

TEST(IccgFileCommandTest, JsonCarriesTheLadderFieldsAndTheVariant) {
  const std::string lfat5 = data_file("matrices/LFAT5.mtx");
  const test::Outcome o = run_acclab({"iccg", lfat5, "--variant", "optimized", "--shift", "1",
                                      "--tol", "1e-12", "--format", "json"});
  ASSERT_EQ(o.status, 0) << o;
  const nlohmann::json j = test::parse_json(o.out);
  EXPECT_EQ(j.value("schema", ""), "acclab.iccg/1");
  // Where it came from, as every report says: the build and the words it was run with.
  EXPECT_TRUE(j["build"]["commit"].is_string()) << j["build"].dump();
  const std::vector<std::string> words = {"iccg", lfat5,   "--variant", "optimized", "--shift",
                                          "1",    "--tol", "1e-12",     "--format",  "json"};
  ASSERT_EQ(j["command_line"].size(), words.size() + 1) << j["command_line"].dump();
  for (std::size_t i = 0; i < words.size(); ++i) EXPECT_EQ(j["command_line"][i + 1], words[i]);
  EXPECT_EQ(j.value("variant", ""), "optimized");
  EXPECT_EQ(j.value("variant_reason", ""), "--variant");
  EXPECT_EQ(j.value("status", ""), "converged");
  EXPECT_EQ(j.value("rows", 0), 14);
  EXPECT_EQ(j.value("nonzeros", 0), 46);
  EXPECT_GT(j.value("iterations", 0), 0);
  EXPECT_LT(j.value("residual", 1.0), 1e-12);
  // The ladder's model: the matrix three times at 12 bytes a nonzero, eight vectors.
  EXPECT_DOUBLE_EQ(j.value("bytes_per_iteration", 0.0), 3 * 12 * 46 + 8 * 8 * 14);
  EXPECT_DOUBLE_EQ(j.value("bytes", 0.0),
                   j.value("bytes_per_iteration", 0.0) * j.value("iterations", 0));
  EXPECT_GT(j.value("seconds_per_iteration", 0.0), 0);
  EXPECT_GT(j.value("gbytes_per_s", 0.0), 0);
  ASSERT_TRUE(j.contains("limit_fraction"));
  if (j["limit_fraction"].is_number()) {
    EXPECT_NEAR(j["limit_fraction"].get<double>(),
                j.value("gbytes_per_s", 0.0) / j.value("limit_gbytes_per_s", 1.0), 1e-12);
  }
  EXPECT_LT(j.value("error_from_ones", 1.0), 1e-4);
  // Timed after an untimed warm-up solve of one iteration, as the ladder times a step.
  EXPECT_EQ(j.value("warm_up_iterations", 0), 1);
  EXPECT_NE(j.value("timed", "").find("untimed warm-up"), std::string::npos) << j.dump();
}

TEST(IccgFileCommandTest, BreakdownIsTheSameUsageErrorWhateverTheVariant) {
  for (const char* variant : {"original", "optimized"}) {
    SCOPED_TRACE(variant);
    const test::Outcome o =
        run_acclab({"iccg", data_file("matrices/LFAT5.mtx"), "--variant", variant});
    EXPECT_TRUE(is_usage_error(o, {"LFAT5.mtx", "IC(0) breaks down", "--shift"}));
  }
}

// bcsstk08 is positive definite (it converges with --shift 1) but IC(0) breaks down on it, and
// it is too wide for the direct solve to tell: the line offers the shift and does not call the
// matrix indefinite.
TEST(IccgFileCommandTest, BreakdownOnAWideMatrixDoesNotCallItIndefinite) {
  const std::string path = data_file("matrices/bcsstk08.mtx");
  const test::Outcome o = run_acclab({"iccg", path});
  EXPECT_TRUE(is_usage_error(o, {path, "IC(0) breaks down at row", "--shift 1"}));
  EXPECT_EQ(o.err.find("not positive definite"), std::string::npos) << o.err;
  const test::Outcome shifted = run_acclab({"iccg", path, "--shift", "1"});
  EXPECT_EQ(shifted.status, 0) << shifted;
}

TEST(IccgFileCommandTest, OutIsNeverTheInput) {
  test::TempDir dir;
  const auto path = (dir.path() / "m.mtx").string();
  std::filesystem::copy_file(data_file("matrices/LFAT5.mtx"), path);
  const auto size = std::filesystem::file_size(path);
  EXPECT_TRUE(is_usage_error(run_acclab({"iccg", path, "--shift", "1", "--out", path}),
                             {"--out " + path, "is the input"}));
  EXPECT_EQ(std::filesystem::file_size(path), size);
}

TEST(IccgFileCommandTest, EmptyMatrixIsRefused) {
  test::TempDir dir;
  const auto path = (dir.path() / "empty.mtx").string();
  std::ofstream(path) << "%%MatrixMarket matrix coordinate real symmetric\n0 0 0\n";
  EXPECT_TRUE(is_usage_error(run_acclab({"iccg", path}), {path + ":2", "0 x 0"}));
}

TEST(IccgFileCommandTest, VariantThatCannotRunIsAUsageError) {
  Machine machine;
  std::vector<std::string> refused = {"nonsense", "setup"};
  if (!machine.cuda_available()) refused.insert(refused.end(), {"cuda", "cusparse"});
  for (const std::string& name : refused) {
    SCOPED_TRACE(name);
    const test::Outcome o =
        run_acclab({"iccg", data_file("matrices/LFAT5.mtx"), "--variant", name});
    EXPECT_TRUE(
        is_usage_error(o, {"--variant " + name, "original", "optimized", "cuda", "cusparse"}));
  }
  EXPECT_TRUE(is_usage_error(
      run_acclab({"iccg", data_file("matrices/LFAT5.mtx"), "--format", "yaml"}), {"--format"}));
}

}  // namespace
}  // namespace acclab
