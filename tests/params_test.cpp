// Params::resolve and parse_param_value: preset values, --set overrides, and the one-line
// UsageErrors that must name the argument at fault (the CLI prints them as they are).
#include "core/params.hpp"

#include <gtest/gtest.h>

#include <cmath>
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

}  // namespace
}  // namespace acclab
