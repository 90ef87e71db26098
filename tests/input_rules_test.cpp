// Inputs whose arithmetic overflows or silently changes meaning are refused up front, naming the
// value at fault and what would do (issue 51, item 7): jacobi2d's extents, diffusion3d's step
// count, apsp's edge weights against float's range, apsp's process grid on too few blocks, and
// the Matrix Market layouts of iccg's --rhs.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/machine.hpp"
#include "io/graph.hpp"
#include "io/text_vector.hpp"
#include "support.hpp"
#include "workloads/apsp/graph_solve.hpp"
#ifdef ACCLAB_HAVE_MPI
#include "workloads/apsp/mpi_blocks.hpp"
#endif

namespace acclab {
namespace {

using test::is_usage_error;
using test::run_acclab;
using test::usage_error_message;
using test::validate_error;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::filesystem::path write_text(const test::TempDir& dir, const std::string& name,
                                 const std::string& text) {
  const auto path = dir.path() / name;
  std::ofstream(path) << text;
  return path;
}

// ---- jacobi2d: extents -------------------------------------------------------------------------

// The range "NAME from A to B" a refusal names.
std::pair<double, double> named_range(const std::string& message, const std::string& name) {
  double least = 0, most = 0;
  const auto at = message.find(name + " from ");
  if (at == std::string::npos ||
      std::sscanf(message.c_str() + at + name.size(), " from %lf to %lf", &least, &most) != 2) {
    ADD_FAILURE() << "no range of " << name << " in: " << message;
  }
  return {least, most};
}

// height=1e11 on the small grid passed validation, then every variant's sweep overflowed float
// (hx^2 (u_w + u_e) = 3e39) and verification failed with inf.
TEST(InputRulesJacobiTest, AnExtentWhoseSweepOverflowsIsRefusedWithTheRangeThatWorks) {
  const std::vector<std::string> grid = {"rows=33", "cols=17", "iters=50"};
  const auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.begin(), grid.begin(), grid.end());
    return extra;
  };
  const std::string height = validate_error("jacobi2d", with({"height=1e11"}));
  EXPECT_TRUE(height.starts_with("--set height=1e+11: outside float range")) << height;
  const auto [least, most] = named_range(height, "height");
  EXPECT_LT(least, 1e-10);
  EXPECT_GT(most, 1e9);
  EXPECT_LT(most, 1e11);
  // The range is what validation accepts: its ends in, just past them out.
  EXPECT_EQ(validate_error("jacobi2d", with({fmt::format("height={}", most)})), "");
  EXPECT_EQ(validate_error("jacobi2d", with({fmt::format("height={}", least)})), "");
  EXPECT_NE(validate_error("jacobi2d", with({fmt::format("height={}", most * 1.01)})), "");
  EXPECT_NE(validate_error("jacobi2d", with({fmt::format("height={}", least * 0.99)})), "");

  // The sibling extent is refused by name, and each blamed alone where the other is sane.
  const std::string width = validate_error("jacobi2d", with({"width=1e11"}));
  EXPECT_TRUE(width.starts_with("--set width=1e+11: outside float range")) << width;
  const auto [width_least, width_most] = named_range(width, "width");
  EXPECT_EQ(validate_error("jacobi2d", with({fmt::format("width={}", width_most)})), "");
  EXPECT_NE(validate_error("jacobi2d", with({fmt::format("width={}", width_most * 1.01)})), "");
  EXPECT_LT(width_least, 1e-10);
  // Neither alone can help: both named.
  EXPECT_TRUE(contains(validate_error("jacobi2d", with({"height=1e-30", "width=1e-30"})),
                       "--set height=1e-30 width=1e-30:"));

  // As the user meets it, and the range's ends verified by the serial and openmp sweeps.
  EXPECT_TRUE(is_usage_error(
      run_acclab({"run", "jacobi2d", "--variant", "serial", "--reps", "1", "--set", "rows=33",
                  "--set", "cols=17", "--set", "iters=50", "--set", "height=1e11"}),
      {"--set height=1e+11", "height from"}));
  for (const double h : {least, most}) {
    const test::Outcome o = run_acclab({"run", "jacobi2d", "--variant", "serial,openmp", "--reps",
                                        "1", "--set", "rows=33", "--set", "cols=17", "--set",
                                        "iters=50", "--set", fmt::format("height={}", h)});
    EXPECT_EQ(o.status, 0) << "height=" << h << "\n" << o;
  }
}

// ---- diffusion3d: the parameter at fault -------------------------------------------------------

TEST(InputRulesDiffusionTest, RefusalsNameTheParameterAtFault) {
  // The default dt is 0.1 min(h^2) / kappa: kappa=1e12 makes end_time=0.1 take 6e14 steps. The
  // refusal named end_time alone.
  const std::string many = validate_error("diffusion3d", {"kappa=1e12"});
  EXPECT_TRUE(contains(many, "kappa=1e+12") && contains(many, "end_time=0.1") &&
              contains(many, "more than 2e9"))
      << many;
  // The same kappa with a step count is a fine run.
  EXPECT_EQ(validate_error("diffusion3d", {"kappa=1e12", "steps=10"}), "");
  // A tiny kappa: dt longer than twice end_time.
  const std::string none = validate_error("diffusion3d", {"kappa=1e-300"});
  EXPECT_TRUE(contains(none, "kappa=1e-300") && contains(none, "half a time step")) << none;
  // With dt set, dt and end_time are the pair; kappa plays no part.
  const std::string set_dt = validate_error("diffusion3d", {"end_time=1", "dt=1e-12"});
  EXPECT_TRUE(set_dt.starts_with("--set end_time=1 dt=1e-12:")) << set_dt;
  EXPECT_FALSE(contains(set_dt, "kappa")) << set_dt;
  // A huge dt overflowed the float coefficients and was blamed on kappa.
  const std::string big_dt = validate_error("diffusion3d", {"dt=1e300"});
  EXPECT_TRUE(big_dt.starts_with("--set dt=1e+300: above the explicit stability bound")) << big_dt;
  EXPECT_TRUE(is_usage_error(run_acclab({"run", "diffusion3d", "--variant", "serial", "--reps",
                                         "1", "--set", "kappa=1e12"}),
                             {"kappa=1e+12"}));
}

// ---- apsp: edge weights against float's range --------------------------------------------------

const std::string kFloatRange = "outside float range: a nonzero weight needs 1.17549e-38";

// 1e-50 became 0 in float without a word while 1e39 was refused: both are refused now, in every
// graph format, at the line that holds them.
TEST(InputRulesApspTest, WeightsOutsideFloatsRangeAreRefusedInEveryFormatAtTheirLine) {
  test::TempDir dir;
  struct Case {
    std::string name, text, place;
  };
  const std::vector<Case> cases = {
      {"tiny.txt", "0 1 1\n# c\n1 2 1e-50\n", ":3: weight 1e-50 "},
      {"huge.txt", "0 1 1e39\n", ":1: weight 1e+39 "},
      {"negative.txt", "0 1 -1e-40\n", ":1: weight -1e-40 "},  // subnormal in float
      {"tiny.gr", "c x\np sp 3 2\na 1 2 1\na 2 3 1e-50\n", ":4: weight 1e-50 "},
      {"huge.gr", "p sp 3 1\na 1 2 -4e38\n", ":2: weight -4e+38 "},
      {"tiny.mtx",
       "%%MatrixMarket matrix coordinate real general\n% c\n3 3 2\n1 2 1\n2 3 1e-50\n",
       ": entry 2 after the size line (line 3), (2, 3): weight 1e-50 "},
      {"huge.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 1\n2 1 1e39\n",
       ": entry 1 after the size line (line 2), (2, 1): weight 1e+39 "},
  };
  for (const Case& c : cases) {
    const auto path = write_text(dir, c.name, c.text);
    const std::string message = usage_error_message([&] { io::read_graph(path); });
    EXPECT_TRUE(message.starts_with(path.string() + c.place + kFloatRange)) << message;
  }
  // Zero and the smallest and largest normal floats are weights.
  const auto fine = write_text(dir, "fine.txt", "0 1 0\n1 2 1.1754944e-38\n2 0 -3.4028234e38\n");
  EXPECT_EQ(io::read_graph(fine).edges.size(), 3u);

  // As the user meets it.
  const auto tiny = write_text(dir, "g.txt", "0 1 1e-50\n1 2 2\n");
  EXPECT_TRUE(is_usage_error(run_acclab({"apsp", tiny.string(), "--semiring", "min-plus"}),
                             {tiny.string() + ":1: weight 1e-50 " + kFloatRange}));

  // A graph built otherwise is held to the same rule by the solve.
  apsp::UserGraph user;
  user.graph.n = 2;
  user.graph.edges = {{0, 1, 1e-50}};
  user.source = "g.txt";
  Machine machine;
  const std::string built = usage_error_message(
      [&] { apsp::solve_graph(user, {.variant = "serial"}, test::all(), machine); });
  EXPECT_TRUE(built.starts_with("g.txt: edge 0 -> 1: weight 1e-50 " + kFloatRange)) << built;
}

// ---- apsp: a process grid with more ranks along a side than blocks -----------------------------

#ifdef ACCLAB_HAVE_MPI
// On 3 ranks (3x1 or 1x3, the only grids) with n = 100 in blocks of 64 (2 blocks), the refusal
// suggested --set proc_grid, which no grid of 3 ranks can satisfy.
TEST(InputRulesApspTest, TooFewBlocksForTheRanksSuggestsOnlyWhatHelps) {
  apsp::Problem p;
  p.n = 100;
  p.block = 64;
  const std::string chosen = apsp::too_few_blocks(p, "", 3, {3, 1});
  EXPECT_TRUE(chosen.starts_with("3 ranks: their process grid 3x1 (MPI_Dims_create's)")) << chosen;
  EXPECT_FALSE(contains(chosen, "proc_grid")) << chosen;
  EXPECT_TRUE(contains(chosen, "--set block=49 or less gives 3 blocks or more")) << chosen;
  // 49 is the largest block that gives 3: ceil(100 / 49) = 3, ceil(100 / 50) = 2.
  p.block = 49;
  EXPECT_EQ(apsp::too_few_blocks(p, "", 3, {3, 1}), "");
  p.block = 50;
  EXPECT_NE(apsp::too_few_blocks(p, "", 3, {3, 1}), "");
  // A grid the user chose that a squarer one betters: both remedies.
  p.n = 97;
  p.block = 64;
  const std::string user_grid = apsp::too_few_blocks(p, "4x1", 4, {4, 1});
  EXPECT_TRUE(user_grid.starts_with("--set proc_grid=4x1: more ranks along a side")) << user_grid;
  EXPECT_TRUE(contains(user_grid, "--set proc_grid=2x2 fits")) << user_grid;
  EXPECT_TRUE(contains(user_grid, "--set block=32 or less")) << user_grid;
  // Fewer rows than ranks along a side: no block helps.
  p.n = 2;
  p.block = 64;
  const std::string tiny = apsp::too_few_blocks(p, "", 3, {3, 1});
  EXPECT_FALSE(contains(tiny, "--set block=")) << tiny;
  EXPECT_TRUE(contains(tiny, "run fewer ranks")) << tiny;
  // The refusal process_grid throws is this one.
  p.n = 100;
  EXPECT_EQ(usage_error_message([&] { apsp::process_grid(p, "3x1", 3); }),
            apsp::too_few_blocks(p, "3x1", 3, {3, 1}));
}
#endif

// ---- iccg --rhs: Matrix Market layouts ---------------------------------------------------------

TEST(InputRulesRhsTest, ACoordinateVectorIsReadByItsEntries) {
  test::TempDir dir;
  // Rows 2 and 4 not given: 0. Read as a plain list, the size line and indices were values.
  const auto b = write_text(dir, "b.mtx",
                            "%%MatrixMarket matrix coordinate real general\n% b\n4 1 2\n"
                            "3 1 2.5\n\n1 1 -1\n");
  EXPECT_EQ(io::read_text_vector(b, 4), (std::vector<double>{-1, 0, 2.5, 0}));
  const auto integer = write_text(dir, "i.mtx",
                                  "%%MatrixMarket MATRIX Coordinate integer general\n2 1 1\n2 1 7\n");
  EXPECT_EQ(io::read_text_vector(integer, 2), (std::vector<double>{0, 7}));

  const auto error = [&](const std::string& text, std::int64_t rows) {
    const auto path = write_text(dir, "bad.mtx", text);
    const std::string message = usage_error_message([&] { io::read_text_vector(path, rows); });
    EXPECT_TRUE(message.starts_with(path.string() + ":")) << message;
    return message.substr(path.string().size());
  };
  const std::string coordinate = "%%MatrixMarket matrix coordinate real general\n";
  EXPECT_EQ(error(coordinate + "3 1 2\n1 1 1\n1 1 2\n", 3),
            ":4: row 1 given twice (first on line 3)");
  EXPECT_EQ(error(coordinate + "3 1 1\n4 1 1\n", 3),
            ":3: row 4 is out of range 1..3 (Matrix Market rows are 1-based)");
  EXPECT_EQ(error(coordinate + "3 1 1\n0 1 1\n", 3),
            ":3: row 0 is out of range 1..3 (Matrix Market rows are 1-based)");
  EXPECT_EQ(error(coordinate + "3 1 1\n1 2 1\n", 3),
            ":3: column 2: a right-hand side has only column 1");
  EXPECT_EQ(error(coordinate + "3 1 1\n1 1 1\n2 1 1\n", 3),
            ":4: more than the 1 entries the size line declares");
  EXPECT_EQ(error(coordinate + "3 1 2\n1 1 1\n", 3),
            ": file ends after 1 of the 2 entries declared (truncated?)");
  EXPECT_TRUE(error(coordinate + "4 1 1\n1 1 1\n", 3).starts_with(":2: size line '4 1 1': 4 rows"));
  EXPECT_TRUE(error(coordinate + "3 2 1\n1 1 1\n", 3).starts_with(":2: size line '3 2 1': 2 col"));
  EXPECT_TRUE(error(coordinate + "3 1\n1 1 1\n", 3).starts_with(":2: bad size line '3 1'"));
  EXPECT_TRUE(error(coordinate + "3 1 1\n1 1 nan\n", 3).starts_with(":3: 'nan' is not a finite"));
  // Banners it does not understand, and a banner below line 1.
  for (const std::string banner : {"%%MatrixMarket matrix coordinate pattern general",
                                   "%%MatrixMarket matrix coordinate real symmetric",
                                   "%%MatrixMarket matrix coordinate complex general",
                                   "%%MatrixMarket vector array real general"}) {
    EXPECT_TRUE(error(banner + "\n1 1 1\n1 1 1\n", 1)
                    .starts_with(":1: unsupported Matrix Market banner '" + banner + "'"))
        << banner;
  }
  EXPECT_TRUE(error("1\n%%MatrixMarket matrix array real general\n1 1\n1\n", 2)
                  .starts_with(":2: Matrix Market banner below line 1"));
}

// The array layout's size line was skipped unread: "5 1" over four values read as a vector of 4.
TEST(InputRulesRhsTest, AnArraysSizeLineIsChecked) {
  test::TempDir dir;
  const std::string array = "%%MatrixMarket matrix array real general\n% b\n";
  const auto good = write_text(dir, "good.mtx", array + "3 1\n1\n-2.5\n0.3\n");
  EXPECT_EQ(io::read_text_vector(good, 3), (std::vector<double>{1, -2.5, 0.3}));
  const auto error = [&](const std::string& text, std::int64_t rows) {
    const auto path = write_text(dir, "bad.mtx", text);
    const std::string message = usage_error_message([&] { io::read_text_vector(path, rows); });
    EXPECT_TRUE(message.starts_with(path.string() + ":")) << message;
    return message.substr(path.string().size());
  };
  EXPECT_EQ(error(array + "5 1\n1\n2\n3\n4\n", 4), ":3: size line '5 1': 5 rows for a matrix of 4 rows");
  EXPECT_TRUE(error(array + "2 2\n1\n2\n3\n4\n", 4).starts_with(":3: size line '2 2': 2 columns"));
  EXPECT_TRUE(error(array + "4\n1\n2\n3\n4\n", 4).starts_with(":3: bad size line '4'"));
  EXPECT_EQ(error(array + "4 1\n1\n2\n3\n", 4), ": 3 values for a matrix of 4 rows");
  EXPECT_EQ(error(array + "2 1\n1\n2\n3\n", 2), ":6: more than the 2 values of a matrix of 2 rows");
  EXPECT_EQ(error("%%MatrixMarket matrix array real general\n", 2),
            ":1: file ends before the size line");
}

// As the user meets it: iccg solves the same system from a coordinate --rhs as from a list.
TEST(InputRulesRhsTest, IccgSolvesACoordinateRhsAsTheListItStandsFor) {
  test::TempDir dir;
  const std::string lfat5 = std::string(ACCLAB_TEST_DATA) + "/matrices/LFAT5.mtx";  // 14 x 14
  std::string list, coordinate = "%%MatrixMarket matrix coordinate real general\n14 1 13\n";
  for (int i = 1; i <= 14; ++i) {
    list += i == 3 ? "0\n" : fmt::format("{}\n", i);
    if (i != 3) coordinate += fmt::format("{} 1 {}\n", i, i);
  }
  const auto solve = [&](const std::string& name, const std::string& text) {
    const auto rhs = write_text(dir, name, text);
    const auto out = dir.path() / ("x-" + name);
    const test::Outcome o = run_acclab({"iccg", lfat5, "--rhs", rhs.string(), "--tol", "1e-12",
                                        "--shift", "1", "--out", out.string()});
    EXPECT_EQ(o.status, 0) << o;
    std::ifstream in(out);
    std::string line, values;
    for (int n = 0; std::getline(in, line); ++n) {
      if (n != 1) values += line + "\n";  // line 2 is the comment
    }
    return values;
  };
  const std::string from_list = solve("b.txt", list);
  EXPECT_EQ(std::count(from_list.begin(), from_list.end(), '\n'), 16) << from_list;
  EXPECT_EQ(solve("b.mtx", coordinate), from_list);
}

}  // namespace
}  // namespace acclab
