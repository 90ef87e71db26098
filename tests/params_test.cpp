// Params::resolve and parse_param_value: preset values, --set overrides, and the one-line
// UsageErrors that must name the argument at fault (the CLI prints them as they are).
#include "core/params.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "workloads/vector/vector.hpp"

namespace acclab {
namespace {

// One parameter of each type, independent of any workload, so that the tests pin the rules of
// Params itself rather than the values a workload happens to choose.
std::vector<ParamSpec> test_specs() {
  return {
      {.key = "nx", .help = "width", .presets = {{"seed", "4096"}, {"small", "64"}}},
      {.key = "tol",
       .type = ParamType::real,
       .help = "tolerance",
       .presets = {{"seed", "1e-8"}, {"small", "0.5"}},
       .minimum = 0},
      {.key = "mode",
       .type = ParamType::text,
       .help = "data mode",
       .presets = {{"seed", "copy"}, {"small", "resident"}},
       .choices = {"copy", "resident"}},
  };
}

::testing::AssertionResult contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

// The message of the UsageError that resolve() throws, or a test failure when it throws none.
std::string resolve_error(const std::vector<ParamSpec>& specs, const std::string& preset,
                          const std::vector<std::string>& overrides) {
  try {
    Params::resolve(specs, preset, overrides);
  } catch (const UsageError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no UsageError for preset '" << preset << "' and " << overrides.size()
                << " override(s)";
  return "";
}

TEST(ParamsTest, PresetsGiveTheirValuesWithTheirTypes) {
  const Params small = Params::resolve(test_specs(), "small", {});
  EXPECT_EQ(small.integer("nx"), 64);
  EXPECT_DOUBLE_EQ(small.real("tol"), 0.5);
  EXPECT_EQ(small.text("mode"), "resident");
  // Stored as JSON scalars of the right kind, so that reports print 64 and not "64".
  EXPECT_TRUE(small.json()["nx"].is_number_integer());
  EXPECT_TRUE(small.json()["tol"].is_number_float());
  EXPECT_TRUE(small.json()["mode"].is_string());
  EXPECT_EQ(small.json().size(), 3u);

  const Params seed = Params::resolve(test_specs(), "seed", {});
  EXPECT_EQ(seed.integer("nx"), 4096);
  EXPECT_DOUBLE_EQ(seed.real("tol"), 1e-8);
  EXPECT_EQ(seed.text("mode"), "copy");
}

TEST(ParamsTest, VectorWorkloadPresets) {
  const auto specs = vector::make_workload().params;
  const Params small = Params::resolve(specs, "small", {});
  EXPECT_EQ(small.json(), (nlohmann::json{{"nx", 2048}, {"ny", 2048}, {"nt", 10}}));
  const Params seed = Params::resolve(specs, "seed", {});
  EXPECT_EQ(seed.json(), (nlohmann::json{{"nx", 4096}, {"ny", 4096}, {"nt", 1000}}));
  const Params large = Params::resolve(specs, "large", {});
  EXPECT_EQ(large.integer("nx"), 16384);
}

TEST(ParamsTest, OverridesReplaceOnlyTheirKey) {
  const Params p = Params::resolve(test_specs(), "small", {"nx=37", "mode=copy"});
  EXPECT_EQ(p.integer("nx"), 37);
  EXPECT_EQ(p.text("mode"), "copy");
  EXPECT_DOUBLE_EQ(p.real("tol"), 0.5);  // untouched: still the preset's value

  const Params real = Params::resolve(test_specs(), "seed", {"tol=2.5e-3"});
  EXPECT_DOUBLE_EQ(real.real("tol"), 2.5e-3);
  EXPECT_EQ(real.integer("nx"), 4096);
}

TEST(ParamsTest, LaterOverrideOfTheSameKeyWins) {
  const Params p = Params::resolve(test_specs(), "small", {"nx=5", "nx=7"});
  EXPECT_EQ(p.integer("nx"), 7);
}

TEST(ParamsTest, MinimumItselfIsAllowed) {
  EXPECT_EQ(Params::resolve(test_specs(), "small", {"nx=1"}).integer("nx"), 1);
}

TEST(ParamsTest, UnknownPresetIsNamed) {
  const std::string message = resolve_error(test_specs(), "huge", {});
  EXPECT_TRUE(contains(message, "--preset huge"));
  // The message tells the user what exists.
  EXPECT_TRUE(contains(message, "seed"));
  EXPECT_TRUE(contains(message, "small"));
}

TEST(ParamsTest, UnknownKeyIsNamedWithTheKnownKeys) {
  const std::string message = resolve_error(test_specs(), "small", {"bogus=1"});
  EXPECT_TRUE(contains(message, "--set bogus=1"));
  EXPECT_TRUE(contains(message, "'bogus'"));
  EXPECT_TRUE(contains(message, "nx"));
  EXPECT_TRUE(contains(message, "mode"));
}

TEST(ParamsTest, AssignmentWithoutEqualsIsRejected) {
  EXPECT_TRUE(contains(resolve_error(test_specs(), "small", {"nx"}), "--set nx"));
  EXPECT_TRUE(contains(resolve_error(test_specs(), "small", {"nx"}), "key=value"));
  // An empty key is as malformed as a missing '='.
  EXPECT_TRUE(contains(resolve_error(test_specs(), "small", {"=5"}), "--set =5"));
}

TEST(ParamsTest, NonIntegersAreRejected) {
  for (const std::string text :
       {"abc", "1.5", "", "5x", " 5", "0x10", "1e3", "99999999999999999999"}) {
    SCOPED_TRACE("nx=" + text);
    const std::string message = resolve_error(test_specs(), "small", {"nx=" + text});
    EXPECT_TRUE(contains(message, "--set nx=" + text + ":"));
    EXPECT_TRUE(contains(message, "not an integer"));
  }
}

TEST(ParamsTest, IntegersBelowTheMinimumAreRejected) {
  for (const std::string text : {"0", "-5", "-9223372036854775808"}) {
    SCOPED_TRACE("nx=" + text);
    const std::string message = resolve_error(test_specs(), "small", {"nx=" + text});
    EXPECT_TRUE(contains(message, "--set nx=" + text + ":"));
    EXPECT_TRUE(contains(message, "at least 1"));
  }
}

TEST(ParamsTest, RealsMustBeFiniteAndAboveTheMinimum) {
  for (const std::string text : {"nan", "inf", "-inf", "abc", "1.5x"}) {
    SCOPED_TRACE("tol=" + text);
    const std::string message = resolve_error(test_specs(), "small", {"tol=" + text});
    EXPECT_TRUE(contains(message, "--set tol=" + text + ":"));
    EXPECT_TRUE(contains(message, "not a finite number"));
  }
  // Real parameters must be strictly greater than their minimum (0 here).
  for (const std::string text : {"0", "-1e-3"}) {
    SCOPED_TRACE("tol=" + text);
    const std::string message = resolve_error(test_specs(), "small", {"tol=" + text});
    EXPECT_TRUE(contains(message, "--set tol=" + text + ":"));
    EXPECT_TRUE(contains(message, "greater than 0"));
  }
}

TEST(ParamsTest, TextMustBeOneOfTheChoices) {
  const std::string message = resolve_error(test_specs(), "small", {"mode=managed"});
  EXPECT_TRUE(contains(message, "--set mode=managed"));
  EXPECT_TRUE(contains(message, "copy, resident"));
}

TEST(ParamsTest, PresetValuesAreCheckedLikeOverrides) {
  // A workload whose preset breaks its own rules must say which preset, not crash later.
  std::vector<ParamSpec> broken = {{.key = "n", .help = "size", .presets = {{"small", "0"}}}};
  const std::string message = resolve_error(broken, "small", {});
  EXPECT_TRUE(contains(message, "preset small"));
  EXPECT_TRUE(contains(message, "at least 1"));
}

TEST(ParamsTest, FirstBadOverrideIsTheOneReported) {
  const std::string message = resolve_error(test_specs(), "small", {"nx=3", "nx=0", "bogus=1"});
  EXPECT_TRUE(contains(message, "--set nx=0"));
  EXPECT_FALSE(contains(message, "bogus"));
}

TEST(ParamsTest, ParseParamValueNamesTheOrigin) {
  const ParamSpec spec{.key = "nt", .help = "steps", .minimum = 1};
  EXPECT_EQ(parse_param_value(spec, "12", "--set nt=12"), nlohmann::json(12));
  try {
    parse_param_value(spec, "-3", "somewhere.cfg line 4");
    FAIL() << "no UsageError for nt=-3";
  } catch (const UsageError& e) {
    EXPECT_TRUE(contains(e.what(), "somewhere.cfg line 4"));
  }
}

// A maximum, a boolean switch, and reals bounded on both sides.
std::vector<ParamSpec> bounded_specs() {
  return {
      {.key = "block",
       .help = "rows at once",
       .presets = same_in_all_presets("64"),
       .maximum = 1024},
      {.key = "colors",
       .help = "colours",
       .presets = same_in_all_presets("-20"),
       .minimum = -1e6,
       .maximum = 1e6},
      {.key = "async",
       .type = ParamType::boolean,
       .help = "queue asynchronously",
       .presets = presets_of("1", "0", "1")},
      {.key = "eps",
       .type = ParamType::real,
       .help = "tolerance",
       .presets = same_in_all_presets("1e-8"),
       .minimum = 0,
       .maximum = 1},
  };
}

TEST(ParamsTest, MaximumItselfIsAllowed) {
  const Params p = Params::resolve(bounded_specs(), "seed", {"block=1024", "colors=-1000000"});
  EXPECT_EQ(p.integer("block"), 1024);
  EXPECT_EQ(p.integer("colors"), -1000000);
  EXPECT_EQ(Params::resolve(bounded_specs(), "seed", {"colors=1000000"}).integer("colors"),
            1000000);
}

TEST(ParamsTest, IntegersAboveTheMaximumAreRefusedNamingTheKey) {
  for (const std::string text : {"1025", "9223372036854775807"}) {
    SCOPED_TRACE("block=" + text);
    const std::string message = resolve_error(bounded_specs(), "small", {"block=" + text});
    EXPECT_TRUE(contains(message, "--set block=" + text + ":"));
    EXPECT_TRUE(contains(message, "block must be 1 to 1024"));
  }
  const std::string above = resolve_error(bounded_specs(), "small", {"colors=1000001"});
  EXPECT_TRUE(contains(above, "--set colors=1000001: colors must be -1000000 to 1000000"));
  // A negative minimum is printed as it is.
  const std::string below = resolve_error(bounded_specs(), "small", {"colors=-1000001"});
  EXPECT_TRUE(contains(below, "--set colors=-1000001: colors must be -1000000 to 1000000"));
}

TEST(ParamsTest, RealsMustBeBelowTheirMaximum) {
  EXPECT_DOUBLE_EQ(Params::resolve(bounded_specs(), "seed", {"eps=0.999"}).real("eps"), 0.999);
  // Strictly, as the minimum of a real.
  for (const std::string text : {"1", "2", "1e300"}) {
    SCOPED_TRACE("eps=" + text);
    const std::string message = resolve_error(bounded_specs(), "small", {"eps=" + text});
    EXPECT_TRUE(contains(message, "--set eps=" + text + ":"));
    EXPECT_TRUE(contains(message, "eps must be less than 1"));
  }
}

TEST(ParamsTest, APresetAboveTheMaximumIsNamed) {
  std::vector<ParamSpec> broken = {
      {.key = "n", .help = "size", .presets = {{"small", "11"}}, .maximum = 10}};
  const std::string message = resolve_error(broken, "small", {});
  EXPECT_TRUE(contains(message, "preset small"));
  EXPECT_TRUE(contains(message, "n must be 1 to 10"));
}

TEST(ParamsTest, BooleansAreZeroOrOneStoredAsIntegers) {
  const Params seed = Params::resolve(bounded_specs(), "seed", {});
  EXPECT_TRUE(seed.flag("async"));
  EXPECT_EQ(seed.integer("async"), 1);
  const Params small = Params::resolve(bounded_specs(), "small", {});
  EXPECT_FALSE(small.flag("async"));
  EXPECT_EQ(small.integer("async"), 0);
  // Printed and serialised as the integer switches they replace: 0 and 1, not false and true.
  EXPECT_TRUE(seed.json()["async"].is_number_integer());
  EXPECT_EQ(seed.json()["async"].dump(), "1");
  EXPECT_EQ(small.json()["async"].dump(), "0");
  EXPECT_TRUE(Params::resolve(bounded_specs(), "small", {"async=1"}).flag("async"));
  EXPECT_FALSE(Params::resolve(bounded_specs(), "seed", {"async=0"}).flag("async"));
}

TEST(ParamsTest, BooleansRefuseEverythingButZeroAndOne) {
  for (const std::string text : {"2", "-1", "01", "true", "yes", "", " 1", "1.0"}) {
    SCOPED_TRACE("async=" + text);
    const std::string message = resolve_error(bounded_specs(), "small", {"async=" + text});
    EXPECT_TRUE(contains(message, "--set async=" + text + ":"));
    EXPECT_TRUE(contains(message, "async must be 0 or 1"));
  }
}

TEST(ParamsTest, FlagOfAnIntegerIsWhetherItIsNotZero) {
  EXPECT_TRUE(Params::resolve(test_specs(), "small", {}).flag("nx"));
}

TEST(ParamsTest, PresetHelpersGiveEveryPreset) {
  EXPECT_EQ(same_in_all_presets("0.1"), (std::map<std::string, std::string>{
                                            {"seed", "0.1"}, {"small", "0.1"}, {"large", "0.1"}}));
  EXPECT_EQ(
      presets_of("128", "16", "256"),
      (std::map<std::string, std::string>{{"seed", "128"}, {"small", "16"}, {"large", "256"}}));
  // An empty value leaves an optional parameter unset in every preset.
  const std::vector<ParamSpec> optional = {
      {.key = "steps", .help = "steps", .presets = same_in_all_presets("")}};
  for (const char* preset : {"seed", "small", "large"}) {
    EXPECT_FALSE(Params::resolve(optional, preset, {}).has("steps")) << preset;
  }
}

TEST(ParamsTest, AccessorsAndSet) {
  Params p = Params::resolve(test_specs(), "small", {});
  EXPECT_TRUE(p.has("nx"));
  EXPECT_FALSE(p.has("ny"));
  // Asking for an undefined parameter is a programming error, not a usage error.
  EXPECT_THROW(p.integer("ny"), std::logic_error);
  p.set("ny", 3);
  EXPECT_TRUE(p.has("ny"));
  EXPECT_EQ(p.integer("ny"), 3);
}

// A problem of the test's parameters, its parses counted.
struct TestProblem {
  std::int64_t nx = 0;
  std::optional<double> tol;
  std::string mode;
  std::optional<std::int64_t> absent;  // bound to a key these values never hold
};
int parses = 0;
TestProblem parse_test_problem(const Params& params) {
  static const ProblemFields<TestProblem> fields = [] {
    ProblemFields<TestProblem> f;
    f.integer("nx", &TestProblem::nx).real("tol", &TestProblem::tol);
    f.text("mode", &TestProblem::mode).integer("unset", &TestProblem::absent);
    return f;
  }();
  ++parses;
  TestProblem p;
  fields.fill(params, p);
  return p;
}

TEST(ParamsTest, TheProblemIsParsedOnceKeptWithTheValuesAndDroppedBySet) {
  parses = 0;
  Params small = Params::resolve(test_specs(), "small", {"nx=96"});
  const TestProblem& first = small.problem(parse_test_problem);
  EXPECT_EQ(first.nx, 96);
  ASSERT_TRUE(first.tol.has_value());
  EXPECT_DOUBLE_EQ(*first.tol, 0.5);
  EXPECT_EQ(first.mode, "resident");
  EXPECT_FALSE(first.absent.has_value()) << "a key the values lack leaves its member unset";
  // The validate, the estimates, the model and the factories of a run: one parse.
  EXPECT_EQ(&small.problem(parse_test_problem), &first);
  const Params copy = small;
  EXPECT_EQ(&copy.problem(parse_test_problem), &first);
  EXPECT_EQ(parses, 1);
  // A value changed after the parse (apsp's fitted block) is read again.
  small.set("nx", std::int64_t{7});
  EXPECT_EQ(small.problem(parse_test_problem).nx, 7);
  EXPECT_EQ(parses, 2);
  EXPECT_EQ(copy.problem(parse_test_problem).nx, 96) << "a copy keeps its own values' problem";
}

}  // namespace
}  // namespace acclab
