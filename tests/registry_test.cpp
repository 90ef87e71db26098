// The registry: what register_all_workloads provides, how select() picks and orders variants,
// and the errors a user sees for names that do not exist.
#include "core/registry.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "support.hpp"
#include "workloads/apsp/apsp.hpp"
#include "workloads/diffusion3d/diffusion3d.hpp"
#include "workloads/iccg/iccg.hpp"
#include "workloads/jacobi2d/jacobi2d.hpp"
#include "workloads/matmul/matmul.hpp"
#include "workloads/vector/vector.hpp"

namespace acclab {
namespace {

using test::all;

const Variant* find_variant(const std::string& workload, const std::string& name) {
  for (const auto& v : all().variants()) {
    if (v.workload == workload && v.name == name) return &v;
  }
  return nullptr;
}

std::vector<std::string> names_of(const std::vector<const Variant*>& variants) {
  std::vector<std::string> names;
  for (const Variant* v : variants) names.push_back(v->name);
  return names;
}

// One row of a workload's ladder table, as the tests read workloads/<workload>/ladder.json
// themselves (apart from the build's generator).
struct TableRow {
  std::string name, backend, family, source, description, gpu_unavailable;
  std::vector<std::string> tunings, files;  // files: the source and what the row needs
  bool built = true;
};

std::filesystem::path workload_dir(const std::string& workload) {
  return std::filesystem::path(ACCLAB_SOURCE_DIR) / "workloads" / workload;
}

// The workloads registered, in the order acclab list shows them: each must have its table.
std::vector<std::string> workloads_with_a_table() {
  std::vector<std::string> names;
  for (const auto& w : all().workloads()) names.push_back(w.name);
  return names;
}

std::vector<TableRow> read_table(const std::string& workload) {
  std::ifstream in(workload_dir(workload) / "ladder.json");
  const auto table = nlohmann::json::parse(in);
  EXPECT_EQ(table.at("workload"), workload);
  std::vector<TableRow> rows;
  for (const auto& step : table.at("steps")) {
    TableRow row;
    row.name = step.at("name");
    row.backend = step.at("backend");
    row.family = step.value("family", table.at("family").get<std::string>());
    row.source = step.at("source");
    row.description = step.at("description");
    row.gpu_unavailable = step.value("gpu_unavailable", "");
    row.tunings = step.value("tunings", std::vector<std::string>{});
    row.files.push_back(row.source);
    for (const auto& [flavour, files] : step.value("needs", nlohmann::json::object()).items()) {
      for (const auto& file : files) row.files.push_back(file);
    }
#ifndef ACCLAB_HAVE_OPENACC
    if (row.backend == "openacc") row.built = false;
#endif
#ifndef ACCLAB_HAVE_OMPTARGET
    if (row.backend == "omptarget") row.built = false;
#endif
#ifndef ACCLAB_HAVE_CUDA
    if (row.backend == "cuda") row.built = false;
#endif
#ifndef ACCLAB_HAVE_OPENBLAS
    for (const auto& library : step.value("requires", std::vector<std::string>{})) {
      if (library == "openblas") row.built = false;
    }
#endif
    rows.push_back(row);
  }
  return rows;
}

// The rows this build holds, in table order.
std::vector<TableRow> built_rows(const std::string& workload) {
  std::vector<TableRow> rows;
  for (const auto& row : read_table(workload)) {
    if (row.built) rows.push_back(row);
  }
  return rows;
}

std::vector<std::string> built_names(const std::string& workload) {
  std::vector<std::string> names;
  for (const auto& row : built_rows(workload)) names.push_back(row.name);
  return names;
}

TEST(LadderTableTest, EveryWorkloadHasATableAndEveryTableAWorkload) {
  std::set<std::string> registered, folders;
  for (const auto& w : all().workloads()) registered.insert(w.name);
  for (const auto& entry :
       std::filesystem::directory_iterator(std::filesystem::path(ACCLAB_SOURCE_DIR) / "workloads")) {
    if (!entry.is_directory()) continue;
    SCOPED_TRACE(entry.path().string());
    EXPECT_TRUE(std::filesystem::exists(entry.path() / "ladder.json"));
    folders.insert(entry.path().filename().string());
  }
  EXPECT_EQ(registered, folders);
}

// The registry holds exactly the table's rows that this build has backends for, in the table's
// order, numbered by their position among those rows within their family: no gaps whichever
// backends were found.
TEST(LadderTableTest, RegistryHoldsTheBuiltRowsNumberedByPosition) {
  for (const auto& workload : workloads_with_a_table()) {
    SCOPED_TRACE(workload);
    const auto rows = built_rows(workload);
    std::vector<const Variant*> registered;
    for (const auto& v : all().variants()) {
      if (v.workload == workload) registered.push_back(&v);
    }
    ASSERT_EQ(registered.size(), rows.size());
    std::map<std::string, int> steps;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      SCOPED_TRACE(rows[i].name);
      const Variant& v = *registered[i];
      EXPECT_EQ(v.name, rows[i].name);
      EXPECT_STREQ(to_string(v.backend), rows[i].backend.c_str());
      EXPECT_EQ(v.family, rows[i].family);
      EXPECT_EQ(v.step, ++steps[rows[i].family]);
      EXPECT_EQ(v.source, rows[i].source);
      EXPECT_EQ(v.description, rows[i].description);
      EXPECT_EQ(v.tunings, rows[i].tunings);
      EXPECT_EQ(v.gpu_unavailable_reason, rows[i].gpu_unavailable);
    }
  }
}

TEST(LadderTableTest, RowsNameFilesAndParametersThatExist) {
  for (const auto& workload : workloads_with_a_table()) {
    const Workload& w = all().workload(workload);
    for (const auto& row : read_table(workload)) {
      SCOPED_TRACE(workload + "/" + row.name);
      EXPECT_TRUE(row.backend == "serial" || row.backend == "openmp" || row.backend == "openacc" ||
                  row.backend == "omptarget" || row.backend == "cuda");
      EXPECT_FALSE(row.description.empty());
      for (const auto& file : row.files) {
        EXPECT_TRUE(std::filesystem::is_regular_file(workload_dir(workload) / file)) << file;
      }
      for (const auto& tuning : row.tunings) {
        EXPECT_TRUE(std::any_of(w.params.begin(), w.params.end(),
                                [&](const ParamSpec& spec) { return spec.key == tuning; }))
            << tuning;
      }
    }
  }
}

// A knob only one step reads (or one step and its MPI twin, mpi_<step>) is declared with that
// step (its row's tuning set), not as a workload parameter: a workload parameter is shared by
// several steps, and a reader looks for a step's own knobs in its own file (docs/architecture.md).
TEST(LadderTableTest, NoWorkloadParameterIsTheKnobOfOneStepAlone) {
  const std::map<std::string, std::vector<LadderRow> (*)()> ladders = {
      {"vector", vector::ladder},     {"jacobi2d", jacobi2d::ladder},
      {"diffusion3d", diffusion3d::ladder}, {"matmul", matmul::ladder},
      {"apsp", apsp::ladder},         {"iccg", iccg::ladder}};
  ASSERT_EQ(ladders.size(), workloads_with_a_table().size());
  for (const auto& [workload, ladder] : ladders) {
    const std::vector<LadderRow> rows = ladder();
    std::set<std::string> step_local;
    for (const auto& row : rows) {
      for (const auto& spec : row.tuning_set.params) step_local.insert(spec.key);
    }
    std::map<std::string, std::set<std::string>> readers;  // workload parameter -> base steps
    for (const auto& row : rows) {
      const std::string base = row.name.rfind("mpi_", 0) == 0 ? row.name.substr(4) : row.name;
      for (const auto& key : row.tunings) {
        if (!step_local.count(key)) readers[key].insert(base);
      }
    }
    for (const auto& [key, steps] : readers) {
      EXPECT_GT(steps.size(), 1u) << workload << ": the workload parameter " << key
                                  << " is the knob of " << *steps.begin()
                                  << " alone: declare it with the step (StepTunings)";
    }
  }
}

TEST(RegistryTest, VectorWorkloadIsRegistered) {
  ASSERT_FALSE(all().workloads().empty());
  const Workload& w = all().workload("vector");
  EXPECT_EQ(w.name, "vector");
  EXPECT_FALSE(w.description.empty());
  EXPECT_EQ(w.default_preset, "small");
  std::vector<std::string> keys;
  for (const auto& spec : w.params) keys.push_back(spec.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"nx", "ny", "nt", "acc_workers", "acc_gangs_per_sm",
                                            "omp_teams", "omp_threads", "omp_simd",
                                            "omp_construct", "omp_shape", "omp_thread_limit",
                                            "omp_teams_per_sm"}));
  EXPECT_TRUE(w.validate);
  EXPECT_TRUE(w.host_bytes);
  EXPECT_TRUE(w.device_bytes);
}

#ifdef ACCLAB_HAVE_OPENACC
TEST(RegistryTest, CourseLadderHasTheSevenSteps) {
  const std::vector<std::string> steps = {"original", "acc_kernels", "acc_kernels_copy", "acc_loop",
                                          "acc_data", "acc_present", "acc_reduction"};
  for (std::size_t i = 0; i < steps.size(); ++i) {
    SCOPED_TRACE(steps[i]);
    const Variant* v = find_variant("vector", steps[i]);
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->family, "course");
    EXPECT_EQ(v->step, static_cast<int>(i) + 1);
    EXPECT_EQ(v->backend, i == 0 ? Backend::serial : Backend::openacc);
    EXPECT_EQ(v->id(), "vector/" + steps[i]);
  }
  // Step 02 maps bare pointers: it must carry the reason it cannot run on a GPU.
  EXPECT_FALSE(find_variant("vector", "acc_kernels")->gpu_unavailable_reason.empty());
  EXPECT_TRUE(find_variant("vector", "acc_loop")->gpu_unavailable_reason.empty());
}
#endif

TEST(RegistryTest, EveryVariantIsComplete) {
  for (const auto& v : all().variants()) {
    SCOPED_TRACE(v.id());
    const Workload& w = all().workload(v.workload);
    const Params params = Params::resolve(w.params, "small", {});
    EXPECT_FALSE(v.name.empty());
    EXPECT_FALSE(v.family.empty());
    EXPECT_GE(v.step, 1);
    EXPECT_FALSE(v.description.empty());
    ASSERT_TRUE(v.factory);
    // Building an instance must not touch a device: the runner builds CUDA instances only
    // after checking that they can run, but list and select must never need one.
    EXPECT_NE(v.factory(params), nullptr);
    ASSERT_TRUE(v.model.flops);
    ASSERT_TRUE(v.model.bytes);
    EXPECT_GT(v.model.flops(params, nlohmann::json::object()), 0);
    EXPECT_GT(v.model.bytes(params, nlohmann::json::object()), 0);
  }
}

TEST(RegistryTest, SelectAllIsInLadderOrder) {
  for (const auto& workload : workloads_with_a_table()) {
    SCOPED_TRACE(workload);
    EXPECT_EQ(names_of(all().select(workload, "*")), built_names(workload));
  }
}

#ifdef ACCLAB_HAVE_OPENACC
TEST(RegistryTest, SelectGlobs) {
  EXPECT_EQ(names_of(all().select("vector", "acc_*")),
            (std::vector<std::string>{"acc_kernels", "acc_kernels_copy", "acc_loop", "acc_data",
                                      "acc_present", "acc_reduction"}));
  EXPECT_EQ(names_of(all().select("vector", "acc_re?uction")),
            (std::vector<std::string>{"acc_reduction"}));
  EXPECT_EQ(
      names_of(all().select("vector", "dot_acc_*")),
      (std::vector<std::string>{"dot_acc_reduction", "dot_acc_partials", "dot_acc_resident"}));
  EXPECT_EQ(names_of(all().select("vector", "acc_loop")), (std::vector<std::string>{"acc_loop"}));
}

TEST(RegistryTest, SelectCommaSeparatedGlobsInLadderOrder) {
  // Whatever order the user writes, the result is in ladder order: families in order of
  // registration, then steps.
  std::vector<std::string> expected = {"original",        "acc_present",       "triad_openmp",
                                       "dot_openmp",      "dot_acc_reduction", "dot_acc_partials",
                                       "dot_acc_resident"};
#ifdef ACCLAB_HAVE_CUDA
  expected.push_back("dot_cuda");
#endif
#ifdef ACCLAB_HAVE_OMPTARGET
  for (const char* name : {"dot_omp_target_map", "dot_omp_target_data", "dot_omp_target_tuned",
                           "dot_omp_target_resident"}) {
    expected.push_back(name);
  }
#endif
  EXPECT_EQ(names_of(all().select("vector", "dot_*,acc_present,original,triad_openmp")), expected);
  EXPECT_EQ(names_of(all().select("vector", "acc_loop,original")),
            (std::vector<std::string>{"original", "acc_loop"}));
  // A variant matched by two globs is selected once.
  EXPECT_EQ(names_of(all().select("vector", "acc_loop,acc_l*")),
            (std::vector<std::string>{"acc_loop"}));
}
#endif

TEST(RegistryTest, SelectMatchingNothingNamesTheGlob) {
  for (const std::string glob : {"nomatch*", "original_", "", ","}) {
    SCOPED_TRACE("--variant '" + glob + "'");
    try {
      all().select("vector", glob);
      ADD_FAILURE() << "no UsageError";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("--variant " + glob + ":"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("vector"), std::string::npos) << e.what();
    }
  }
}

TEST(RegistryTest, UnknownWorkloadIsNamed) {
  for (auto lookup : {+[] { all().workload("nope"); }, +[] { all().select("nope", "*"); }}) {
    try {
      lookup();
      ADD_FAILURE() << "no UsageError";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("'nope'"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("vector"), std::string::npos)
          << "the message lists the known workloads: " << e.what();
    }
  }
}

// A registry built here, so that ordering and duplicate rules are tested apart from the
// vector workload's own registration order.
class SmallRegistryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    registry_.add_workload({.name = "w", .description = "test workload"});
    // Registered out of step order, and with families interleaved.
    add("b2", "beta", 2);
    add("a3", "alpha", 3);
    add("b1", "beta", 1);
    add("a1", "alpha", 1);
    add("a2", "alpha", 2);
  }
  void add(const std::string& name, const std::string& family, int step) {
    Variant v;
    v.workload = "w";
    v.name = name;
    v.family = family;
    v.step = step;
    registry_.add_variant(std::move(v));
  }
  Registry registry_;
};

TEST_F(SmallRegistryTest, FamiliesInRegistrationOrderThenSteps) {
  EXPECT_EQ(names_of(registry_.select("w", "*")),
            (std::vector<std::string>{"b1", "b2", "a1", "a2", "a3"}));
  EXPECT_EQ(names_of(registry_.select("w", "a*")), (std::vector<std::string>{"a1", "a2", "a3"}));
}

TEST_F(SmallRegistryTest, DuplicatesAreRejected) {
  EXPECT_THROW(add("a1", "alpha", 4), std::logic_error);
  EXPECT_THROW(registry_.add_workload({.name = "w"}), std::logic_error);
  // A variant of a workload that was never registered.
  Variant orphan;
  orphan.workload = "missing";
  orphan.name = "x";
  EXPECT_ANY_THROW(registry_.add_variant(orphan));
  EXPECT_EQ(registry_.variants().size(), 5u);
}

// Rows of two families, interleaved: each row's step is its position within its family.
TEST(AddLadderTest, StepsArePositionsWithinEachFamily) {
  Registry registry;
  registry.add_workload({.name = "w", .params = {{.key = "knob"}}});
  const auto row = [](const std::string& name, const std::string& family) {
    LadderRow r;
    r.name = name;
    r.family = family;
    r.source = name + ".cpp";
    return r;
  };
  std::vector<LadderRow> rows = {row("a", "one"), row("b", "two"), row("c", "one"),
                                 row("d", "one"), row("e", "two")};
  rows[2].tunings = {"knob"};
  int models = 0;
  registry.add_ladder("w", rows, [&](const LadderRow&) {
    ++models;
    return PerfModel{};
  });
  EXPECT_EQ(models, 5);
  std::vector<std::pair<std::string, int>> steps;
  for (const auto& v : registry.variants()) steps.emplace_back(v.name, v.step);
  EXPECT_EQ(steps, (std::vector<std::pair<std::string, int>>{
                       {"a", 1}, {"b", 1}, {"c", 2}, {"d", 3}, {"e", 2}}));
  EXPECT_EQ(registry.variants()[2].tunings, std::vector<std::string>{"knob"});
  EXPECT_EQ(registry.variants()[2].source, "c.cpp");
  EXPECT_EQ(names_of(registry.select("w", "*")),
            (std::vector<std::string>{"a", "c", "d", "b", "e"}));
}

TEST(AddLadderTest, AdjustCompletesEachVariantAndUnknownTuningsAreRefused) {
  Registry registry;
  registry.add_workload({.name = "w", .params = {{.key = "knob"}}});
  LadderRow row;
  row.name = "a";
  row.family = "f";
  registry.add_ladder(
      "w", {row}, [](const LadderRow&) { return PerfModel{}; },
      [](Variant& v) { v.description = "adjusted " + v.name; });
  EXPECT_EQ(registry.variants().at(0).description, "adjusted a");
  row.name = "b";
  row.tunings = {"no_such_parameter"};
  EXPECT_THROW(registry.add_ladder("w", {row}, [](const LadderRow&) { return PerfModel{}; }),
               std::logic_error);
  EXPECT_EQ(registry.variants().size(), 1u);
}

// A step's own knobs, declared in its file: a struct, its StepTunings, the row's tuning set.
struct ShapeTunings {
  std::int64_t width = 4;
  bool fast = true;
};

const StepTunings<ShapeTunings>& shape_tunings() {
  static const StepTunings<ShapeTunings> tunings =
      StepTunings<ShapeTunings>()
          .integer({.key = "width", .presets = same_in_all_presets("4"), .maximum = 64},
                   &ShapeTunings::width)
          .flag({.key = "fast", .presets = same_in_all_presets("1")}, &ShapeTunings::fast)
          .check([](const ShapeTunings& t) {
            if (t.width % 4 != 0) throw UsageError("--set width=" + std::to_string(t.width));
          });
  return tunings;
}

TEST(AddLadderTest, ARowsTuningSetAddsItsParametersAndItsCheck) {
  Registry registry;
  registry.add_workload(
      {.name = "w", .params = {{.key = "size", .presets = same_in_all_presets("10")}}});
  LadderRow tuned;
  tuned.name = "tuned";
  tuned.family = "f";
  tuned.tunings = {"width", "fast"};
  tuned.tuning_set = shape_tunings().set();
  LadderRow twin = tuned;  // a second step with the same knobs (an MPI twin)
  twin.name = "twin";
  LadderRow plain;
  plain.name = "plain";
  plain.family = "f";
  int adjusted_checks = 0;
  registry.add_ladder(
      "w", {plain, tuned, twin}, [](const LadderRow&) { return PerfModel{}; },
      [&](Variant& v) {
        if (v.name == "twin") v.check_params = [&](const Params&) { ++adjusted_checks; };
      });

  // The workload gains each declared parameter once, typed by its member.
  const std::vector<ParamSpec>& specs = registry.workload("w").params;
  ASSERT_EQ(specs.size(), 3u);
  EXPECT_EQ(specs[1].key, "width");
  EXPECT_EQ(specs[1].type, ParamType::integer);
  EXPECT_EQ(specs[2].key, "fast");
  EXPECT_EQ(specs[2].type, ParamType::boolean);

  const auto params = [&](const std::vector<std::string>& overrides) {
    return Params::resolve(specs, "small", overrides);
  };
  const ShapeTunings defaults = shape_tunings().read(params({}));
  EXPECT_EQ(defaults.width, 4);
  EXPECT_TRUE(defaults.fast);
  const ShapeTunings set = shape_tunings().read(params({"width=8", "fast=0"}));
  EXPECT_EQ(set.width, 8);
  EXPECT_FALSE(set.fast);
  EXPECT_THROW(shape_tunings().read(params({"width=6"})), UsageError);

  const Variant& plain_variant = registry.variants().at(0);
  const Variant& tuned_variant = registry.variants().at(1);
  const Variant& twin_variant = registry.variants().at(2);
  EXPECT_FALSE(plain_variant.check_tunings);  // no knobs, nothing to check
  ASSERT_TRUE(tuned_variant.check_tunings);
  EXPECT_NO_THROW(tuned_variant.check_tunings(params({"width=8"})));
  EXPECT_THROW(tuned_variant.check_tunings(params({"width=6"})), UsageError);
  // The twin's own check_params, from adjust, stays beside it.
  ASSERT_TRUE(twin_variant.check_tunings);
  EXPECT_THROW(twin_variant.check_tunings(params({"width=6"})), UsageError);
  ASSERT_TRUE(twin_variant.check_params);
  twin_variant.check_params(params({"width=12"}));
  EXPECT_EQ(adjusted_checks, 1);
}

// An optional knob (no preset value) in a std::optional member: unset until --set gives it, so
// that a check can tell a knob given its default value from one not given at all.
struct OptionalTunings {
  std::optional<bool> fast;
  std::optional<std::string> order;
};

TEST(StepTuningsTest, AnOptionalFlagOrTextIsUnsetUntilGiven) {
  const StepTunings<OptionalTunings> tunings =
      StepTunings<OptionalTunings>()
          .flag({.key = "fast", .presets = same_in_all_presets("")}, &OptionalTunings::fast)
          .text({.key = "order", .presets = same_in_all_presets(""), .choices = {"up", "down"}},
                &OptionalTunings::order);
  const TuningSet set = tunings.set();
  ASSERT_EQ(set.params.size(), 2u);
  EXPECT_EQ(set.params[0].type, ParamType::boolean);
  EXPECT_EQ(set.params[1].type, ParamType::text);
  const auto read = [&](const std::vector<std::string>& overrides) {
    return tunings.read(Params::resolve(set.params, "small", overrides));
  };
  const OptionalTunings unset = read({});
  EXPECT_FALSE(unset.fast.has_value());
  EXPECT_FALSE(unset.order.has_value());
  const OptionalTunings given = read({"fast=1", "order=down"});
  EXPECT_EQ(given.fast, true);
  EXPECT_EQ(given.order, "down");
}

TEST(AddLadderTest, ATuningSetMustAgreeWithItsRowAndWithOtherDeclarations) {
  const auto row_with = [](std::vector<std::string> tunings, TuningSet set) {
    LadderRow row;
    row.name = "a";
    row.family = "f";
    row.tunings = std::move(tunings);
    row.tuning_set = std::move(set);
    return row;
  };
  const auto model = [](const LadderRow&) { return PerfModel{}; };
  {  // declares fast, which the row does not name
    Registry registry;
    registry.add_workload({.name = "w"});
    EXPECT_THROW(registry.add_ladder("w", {row_with({"width"}, shape_tunings().set())}, model),
                 std::logic_error);
  }
  {  // the workload already has a width, declared otherwise
    Registry registry;
    registry.add_workload({.name = "w", .params = {{.key = "width", .help = "another"}}});
    EXPECT_THROW(
        registry.add_ladder("w", {row_with({"width", "fast"}, shape_tunings().set())}, model),
        std::logic_error);
  }
  {  // a row may name a knob that a later row's file declares
    Registry registry;
    registry.add_workload({.name = "w"});
    LadderRow first = row_with({"fast"}, {});
    first.name = "first";
    EXPECT_NO_THROW(registry.add_ladder(
        "w", {first, row_with({"width", "fast"}, shape_tunings().set())}, model));
  }
}

TEST(BackendTest, Names) {
  EXPECT_STREQ(to_string(Backend::serial), "serial");
  EXPECT_STREQ(to_string(Backend::openmp), "openmp");
  EXPECT_STREQ(to_string(Backend::openacc), "openacc");
  EXPECT_STREQ(to_string(Backend::omptarget), "omptarget");
  EXPECT_STREQ(to_string(Backend::cuda), "cuda");
}

}  // namespace
}  // namespace acclab
