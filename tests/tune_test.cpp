// acclab tune's search (core/tune.hpp): the space read from the steps' declarations, the three
// strategies on objectives whose answer is known, failed and refused points never chosen, the
// report and the tunings file. The command itself, on real runs, is tests/tune_test.sh.
#include "core/tune.hpp"
#include "core/tune_report.hpp"
#include "core/tunings_file.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "support.hpp"

namespace acclab {
namespace {

using test::all;
using test::variant_of;

const ParamSpec& spec_of(const std::string& workload, const std::string& key) {
  const auto& params = all().workload(workload).params;
  return *std::find_if(params.begin(), params.end(),
                       [&](const ParamSpec& s) { return s.key == key; });
}

tune::Space jacobi_space(const std::vector<std::string>& sets = {}) {
  return tune::space_of(variant_of("jacobi2d", "omp_target_tuned"), all().workload("jacobi2d"),
                        "small", sets);
}

// The point of `space` whose tunings take `values` (the others at their default).
tune::Point point_of(const tune::Space& space, const std::map<std::string, std::string>& values) {
  tune::Point p = tune::default_point(space);
  for (const auto& [key, value] : values) {
    const auto d = std::find_if(space.dimensions.begin(), space.dimensions.end(),
                                [&](const tune::Dimension& dim) { return dim.key == key; });
    EXPECT_NE(d, space.dimensions.end()) << key;
    const auto v = std::find(d->values.begin(), d->values.end(), value);
    EXPECT_NE(v, d->values.end()) << key << "=" << value;
    p[d - space.dimensions.begin()] = v - d->values.begin();
  }
  return p;
}

// An objective with one minimum, at `target`, that grows along every dimension away from it:
// a climb from anywhere reaches it, so local search must agree with exhaustive search.
tune::Evaluation bowl(const tune::Point& p, const tune::Point& target) {
  tune::Evaluation e;
  e.outcome = tune::Outcome::verified;
  e.median_s = 1.0;
  for (std::size_t d = 0; d < p.size(); ++d) {
    const double off = static_cast<double>(p[d]) - static_cast<double>(target[d]);
    e.median_s += 0.01 * off * off;
  }
  e.times_s = {e.median_s};
  return e;
}

TEST(TuneSpace, IntegerRangesAreSearchedOverPowersOfTwoWhereWide) {
  ParamSpec wide{.key = "k", .minimum = 0, .maximum = 1024};
  EXPECT_EQ(tune::integer_values(wide, 0),
            (std::vector<std::int64_t>{0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}));
  // The preset's value is always a point, even off the ladder; the ends are points too.
  ParamSpec odd{.key = "k", .minimum = 3, .maximum = 1000};
  EXPECT_EQ(tune::integer_values(odd, 100),
            (std::vector<std::int64_t>{3, 4, 8, 16, 32, 64, 100, 128, 256, 512, 1000}));
  ParamSpec narrow{.key = "k", .minimum = 2, .maximum = 4};
  EXPECT_EQ(tune::integer_values(narrow, 4), (std::vector<std::int64_t>{2, 3, 4}));
  ParamSpec unbounded{.key = "k", .minimum = 1};
  EXPECT_TRUE(tune::integer_values(unbounded, 4).empty());
}

TEST(TuneSpace, RangesNearTheEndsOfInt64NeitherOverflowNorLosePoints) {
  // Doubling past 2^62 overflowed an int64 (undefined); a bound beyond int64 was cast unclamped.
  ParamSpec huge{.key = "k", .minimum = 1, .maximum = 1e30};
  const auto values = tune::integer_values(huge, 5);
  ASSERT_FALSE(values.empty());
  EXPECT_EQ(values.front(), 1);
  EXPECT_TRUE(std::is_sorted(values.begin(), values.end()));
  EXPECT_TRUE(std::count(values.begin(), values.end(), std::int64_t{1} << 62));
  EXPECT_TRUE(std::count(values.begin(), values.end(), 5));
  EXPECT_GT(values.back(), std::int64_t{1} << 62);
  // 64 powers of two at most, the ends and the current value.
  EXPECT_LE(values.size(), 66u);
  // A NaN bound is no range.
  ParamSpec nan_low{.key = "k", .minimum = std::nan(""), .maximum = 64};
  EXPECT_TRUE(tune::integer_values(nan_low, 4).empty());
  // A range from far below zero: the unsigned width, not a wrapped signed difference.
  ParamSpec wide_signed{.key = "k", .minimum = -9e18, .maximum = 9e18};
  const auto signed_values = tune::integer_values(wide_signed, 0);
  EXPECT_GT(signed_values.size(), 60u);
  EXPECT_EQ(signed_values.front(), static_cast<std::int64_t>(-9e18));
}

TEST(TuneSpace, ComesFromTheStepsDeclarations) {
  const Variant& v = variant_of("jacobi2d", "omp_target_tuned");
  const tune::Space space = jacobi_space();
  // Every declared tuning of this step is searchable: each is a dimension, in declared order.
  ASSERT_EQ(space.dimensions.size(), v.tunings.size());
  const Params preset = test::params_of("jacobi2d", {});
  for (std::size_t i = 0; i < v.tunings.size(); ++i) {
    const tune::Dimension& d = space.dimensions[i];
    EXPECT_EQ(d.key, v.tunings[i]);
    const ParamSpec& spec = spec_of("jacobi2d", d.key);
    if (!spec.choices.empty()) {
      EXPECT_EQ(d.values, spec.choices) << d.key;
    } else if (spec.type == ParamType::boolean) {
      EXPECT_EQ(d.values, (std::vector<std::string>{"0", "1"})) << d.key;
    } else {
      std::vector<std::string> expected;
      const auto current =
          preset.has(d.key) ? preset.integer(d.key) : std::stoll(spec.unset_default);
      for (auto x : tune::integer_values(spec, current)) {
        expected.push_back(std::to_string(x));
      }
      EXPECT_EQ(d.values, expected) << d.key;
      EXPECT_TRUE(d.ordered);
    }
    // The default point is the preset's value (or the plain value an unset tuning takes).
    const std::string value =
        preset.has(d.key)
            ? (preset.json()[d.key].is_string() ? preset.text(d.key) : preset.json()[d.key].dump())
            : spec.unset_default;
    EXPECT_EQ(d.values[d.default_index], value) << d.key;
  }
  EXPECT_TRUE(space.fixed.empty());
  EXPECT_EQ(space.size(), 2u * 3u * 2u * 18u * 12u);
}

TEST(TuneSpace, SetFixesATuningAndUnsearchableOnesAreSaidWhy) {
  const tune::Space space = jacobi_space({"omp_teams=64", "omp_threads=128"});
  ASSERT_EQ(space.fixed.size(), 2u);
  EXPECT_EQ(space.fixed[0].key, "omp_teams");
  EXPECT_EQ(space.fixed[0].value, "64");
  EXPECT_EQ(space.fixed[0].reason, "given with --set");
  for (const auto& d : space.dimensions) EXPECT_NE(d.key.substr(0, 8), "omp_team");
  EXPECT_EQ(space.size(), 12u);
  // A text tuning without choices (the process grid) is not searched, and says so.
  const tune::Space mpi =
      tune::space_of(variant_of("jacobi2d", "mpi_openmp"), all().workload("jacobi2d"), "small", {});
  EXPECT_TRUE(mpi.dimensions.empty());
  ASSERT_EQ(mpi.fixed.size(), 1u);
  EXPECT_EQ(mpi.fixed[0].reason, "text without declared choices");
}

TEST(TuneSearch, ExhaustiveMeasuresEveryPointOnceTheDefaultFirst) {
  const tune::Space space = jacobi_space({"omp_teams=64", "omp_threads=128"});
  std::set<tune::Point> seen;
  const tune::Point target = point_of(space, {{"omp_construct", "loop"}, {"omp_shape", "flat"}});
  const auto done =
      tune::search(space, {.strategy = tune::Strategy::exhaustive}, [&](const tune::Point& p) {
        EXPECT_TRUE(seen.insert(p).second) << "measured twice";
        return bowl(p, target);
      });
  EXPECT_EQ(done.size(), space.size());
  EXPECT_EQ(done.front().point, tune::default_point(space));
  ASSERT_TRUE(tune::best_of(done));
  EXPECT_EQ(done[*tune::best_of(done)].point, target);
}

TEST(TuneSearch, LocalReachesTheExhaustiveBestWithFewerPoints) {
  const tune::Space space = jacobi_space();  // 2592 points
  const tune::Point target = point_of(space, {{"omp_teams", "256"},
                                              {"omp_threads", "64"},
                                              {"omp_simd", "0"},
                                              {"omp_construct", "loop"},
                                              {"omp_shape", "flat"}});
  auto objective = [&](const tune::Point& p) { return bowl(p, target); };
  const auto every = tune::search(space, {.strategy = tune::Strategy::exhaustive}, objective);
  ASSERT_EQ(every.size(), space.size());
  const auto best = every[*tune::best_of(every)];
  EXPECT_EQ(best.point, target);
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const auto local = tune::search(
        space, {.strategy = tune::Strategy::local, .seed = seed, .max_evals = 500}, objective);
    ASSERT_TRUE(tune::best_of(local));
    EXPECT_EQ(local[*tune::best_of(local)].point, target) << "seed " << seed;
    EXPECT_LT(local.size(), every.size() / 5) << "seed " << seed;
  }
}

TEST(TuneSearch, RandomIsFixedByTheSeedAlone) {
  const tune::Space space = jacobi_space();
  auto points = [&](std::uint64_t seed, double scale) {
    std::vector<tune::Point> order;
    // The objective differs between calls: the order of a random search must not depend on it.
    tune::search(space, {.strategy = tune::Strategy::random, .seed = seed, .max_evals = 20},
                 [&](const tune::Point& p) {
                   order.push_back(p);
                   auto e = bowl(p, {0, 0, 0, 0, 0});
                   e.median_s *= scale;
                   return e;
                 });
    return order;
  };
  const auto a = points(7, 1.0);
  EXPECT_EQ(a.size(), 20u);
  EXPECT_EQ(a, points(7, 3.0));
  EXPECT_NE(a, points(8, 1.0));
  EXPECT_EQ(std::set<tune::Point>(a.begin(), a.end()).size(), a.size()) << "a point twice";
  EXPECT_EQ(a.front(), tune::default_point(space));
}

TEST(TuneSearch, FailedAndRefusedPointsAreRecordedAndNeverChosen) {
  const tune::Space space = jacobi_space({"omp_teams=64", "omp_threads=128"});
  // The fastest point fails verification, the next is refused: the best is the third.
  const tune::Point fastest = point_of(space, {{"omp_shape", "flat"}, {"omp_construct", "loop"}});
  const tune::Point second =
      point_of(space, {{"omp_shape", "collapse"}, {"omp_construct", "loop"}});
  for (auto strategy : {tune::Strategy::exhaustive, tune::Strategy::local}) {
    const auto done =
        tune::search(space, {.strategy = strategy, .max_evals = 100}, [&](const tune::Point& p) {
          auto e = bowl(p, fastest);
          if (p == fastest) e.outcome = tune::Outcome::failed;
          if (p == second) {
            e = {};
            e.outcome = tune::Outcome::refused;
          }
          return e;
        });
    std::map<tune::Point, tune::Outcome> outcome;
    for (const auto& e : done) outcome[e.point] = e.outcome;
    ASSERT_TRUE(tune::best_of(done));
    const auto& best = done[*tune::best_of(done)];
    EXPECT_EQ(best.outcome, tune::Outcome::verified);
    EXPECT_NE(best.point, fastest);
    EXPECT_NE(best.point, second);
    if (strategy == tune::Strategy::exhaustive) {
      EXPECT_EQ(outcome.at(fastest), tune::Outcome::failed);
      EXPECT_EQ(outcome.at(second), tune::Outcome::refused);
    }
  }
}

TEST(TuneSearch, RefusedPointsDoNotCountAgainstEvalsAndStopIsHonoured) {
  const tune::Space space = jacobi_space({"omp_teams=64", "omp_threads=128"});
  int calls = 0;
  const auto done = tune::search(space, {.strategy = tune::Strategy::exhaustive, .max_evals = 4},
                                 [&](const tune::Point& p) {
                                   ++calls;
                                   auto e = bowl(p, {0, 0, 0});
                                   if (p[0] == 0) e.outcome = tune::Outcome::refused;
                                   return e;
                                 });
  EXPECT_EQ(std::count_if(done.begin(), done.end(),
                          [](const auto& e) { return e.outcome != tune::Outcome::refused; }),
            4);
  EXPECT_GT(done.size(), 4u);
  int asked = 0;
  bool cut = false;
  const auto stopped = tune::search(
      space, {.strategy = tune::Strategy::exhaustive, .stop = [&] { return ++asked > 3; }},
      [&](const tune::Point& p) {
        return bowl(p, {0, 0, 0});
      },
      &cut);
  EXPECT_EQ(stopped.size(), 3u);
  EXPECT_TRUE(cut) << "a search its stop ended is not complete";
}

TEST(TuneSearch, SaysWhetherEvalsOrStopCutItShort) {
  const tune::Space space = jacobi_space({"omp_teams=64", "omp_threads=128"});
  auto objective = [&](const tune::Point& p) { return bowl(p, {0, 0, 0}); };
  for (auto strategy : {tune::Strategy::exhaustive, tune::Strategy::random}) {
    bool cut = true;
    const auto every = tune::search(space, {.strategy = strategy}, objective, &cut);
    EXPECT_EQ(every.size(), space.size());
    EXPECT_FALSE(cut) << to_string(strategy) << ": every point was measured";
    cut = false;
    tune::search(space, {.strategy = strategy, .max_evals = 3}, objective, &cut);
    EXPECT_TRUE(cut) << to_string(strategy) << ": --evals 3 ended it";
    // Exactly as many evals as points: nothing was left, so nothing was cut.
    cut = true;
    tune::search(space, {.strategy = strategy, .max_evals = static_cast<int>(space.size())},
                 objective, &cut);
    EXPECT_FALSE(cut) << to_string(strategy);
  }
  bool cut = true;
  tune::search(space, {.strategy = tune::Strategy::local}, objective, &cut);
  EXPECT_FALSE(cut) << "the climb reached its optimum";
}

// jacobi2d's omp_target_tuned as a report holds it once searched exhaustively on the host, over
// its space with teams and threads fixed; the test fills in the evaluations.
tune::StepReport searched_on_the_host() {
  tune::StepReport step;
  step.variant = &variant_of("jacobi2d", "omp_target_tuned");
  step.place = "host";
  step.status = "searched";
  step.strategy = tune::Strategy::exhaustive;
  step.space = jacobi_space({"omp_teams=64", "omp_threads=128"});
  return step;
}

TEST(TuneReport, JsonHasEveryPointAndTheSpeedupOverDefault) {
  tune::StepReport step = searched_on_the_host();
  step.evaluations =
      tune::search(step.space, {.strategy = tune::Strategy::exhaustive}, [&](const tune::Point& p) {
        return bowl(p, point_of(step.space, {{"omp_construct", "loop"}}));
      });
  ReportContext context;
  context.workload = "jacobi2d";
  context.command_line = {"acclab", "tune", "jacobi2d"};
  tune::TuneSettings settings{.preset = "small", .strategy = "exhaustive"};
  const auto doc = tune::tune_json(context, settings, {step});
  EXPECT_EQ(doc["schema"], "acclab.tune/1");
  EXPECT_EQ(doc["command_line"], context.command_line);
  const auto& s = doc["steps"][0];
  EXPECT_EQ(s["points"].size(), step.space.size());
  EXPECT_EQ(s["points_tried"], step.space.size());
  EXPECT_EQ(s["best"]["tunings"]["omp_construct"], "loop");
  const double def = s["default"]["median_s"], best = s["best"]["median_s"];
  EXPECT_DOUBLE_EQ(s["speedup_over_default"].get<double>(), def / best);
  EXPECT_GT(def, best);
  const std::string table = tune::tune_table(context, settings, {step});
  EXPECT_NE(table.find("jacobi2d/omp_target_tuned"), std::string::npos);
  EXPECT_NE(table.find(fmt::format("{:.2f}x", def / best)), std::string::npos) << table;
}

// A refusal (the step does not take the values) is not a failure: the two are counted apart, in
// the table's columns and in the JSON.
TEST(TuneReport, RefusedPointsAreCountedApartFromFailedOnes) {
  tune::StepReport step = searched_on_the_host();
  int index = 0;
  // Of the space's points: the second fails verification, the next three are refused.
  step.evaluations =
      tune::search(step.space, {.strategy = tune::Strategy::exhaustive}, [&](const tune::Point& p) {
        tune::Evaluation e = bowl(p, tune::default_point(step.space));
        const int i = index++;
        if (i == 1) e.outcome = tune::Outcome::failed;
        if (i >= 2 && i < 5) {
          e = tune::Evaluation{.point = p, .outcome = tune::Outcome::refused};
          e.detail = "--set omp_simd=0: refused";
        }
        return e;
      });
  ASSERT_GE(step.evaluations.size(), 6u);
  EXPECT_EQ(step.failed(), 1);
  EXPECT_EQ(step.refused(), 3);
  EXPECT_EQ(step.measured(), static_cast<int>(step.evaluations.size()) - 3);
  ReportContext context;
  context.workload = "jacobi2d";
  tune::TuneSettings settings{.preset = "small", .strategy = "exhaustive"};
  const auto doc = tune::tune_json(context, settings, {step});
  EXPECT_EQ(doc["steps"][0]["points_failed"], 1);
  EXPECT_EQ(doc["steps"][0]["points_refused"], 3);
  const std::string table = tune::tune_table(context, settings, {step});
  EXPECT_NE(table.find(" tried failed refused  best tunings\n"), std::string::npos) << table;
  EXPECT_NE(table.find(fmt::format(" {:>6} {:>6} {:>7}  ", step.evaluations.size(), 1, 3)),
            std::string::npos)
      << table;
}

TEST(TuneFile, MergeReplacesItsOwnEntriesAndKeepsOthers) {
  tune::StepReport step;
  step.variant = &variant_of("jacobi2d", "omp_target_tuned");
  step.status = "searched";
  step.space = jacobi_space({"omp_teams=64", "omp_threads=128"});
  step.key = tune::tunings_key("host", "", "", "Some CPU", "GNU 12.2.0");
  step.evaluations =
      tune::search(step.space, {.strategy = tune::Strategy::exhaustive}, [&](const tune::Point& p) {
        return bowl(p, {1, 0, 1});
      });
  step.best_tunings = {{"omp_construct", "loop"}};
  const auto other_key = tune::tunings_key("gpu", "NVIDIA H200", "9.0", "", "GNU 12.2.0");
  nlohmann::json existing = {{"schema", "acclab.tunings/1"},
                             {"entries",
                              {{{"key", step.key},
                                {"workload", "jacobi2d"},
                                {"variant", "omp_target_tuned"},
                                {"preset", "small"},
                                {"tunings", {{"omp_construct", "distribute"}}}},
                               {{"key", other_key},
                                {"workload", "jacobi2d"},
                                {"variant", "omp_target_tuned"},
                                {"preset", "small"},
                                {"tunings", {{"omp_construct", "distribute"}}}}}}};
  const auto merged = tune::merge_tunings(existing, "jacobi2d", "small", {step}, {}, {});
  ASSERT_EQ(merged["entries"].size(), 2u);
  const auto* mine = tune::find_tunings(merged, step.key, "jacobi2d", "omp_target_tuned", "small");
  ASSERT_NE(mine, nullptr);
  EXPECT_EQ((*mine)["tunings"]["omp_construct"], "loop");
  const auto* theirs =
      tune::find_tunings(merged, other_key, "jacobi2d", "omp_target_tuned", "large");
  ASSERT_NE(theirs, nullptr) << "another preset's entry is the fallback";
  EXPECT_EQ((*theirs)["tunings"]["omp_construct"], "distribute");
  EXPECT_EQ(tune::find_tunings(merged, other_key, "jacobi2d", "acc_tuned", "small"), nullptr);
}

}  // namespace
}  // namespace acclab
