// The registry: what register_all_workloads provides, how select() picks and orders variants,
// and the errors a user sees for names that do not exist.
#include "core/registry.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "support.hpp"

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

struct Expected {
  std::string name;
  Backend backend;
  std::string family;
  int step;
};

// What this build must register for the vector workload, in registration order. The OpenACC
// and CUDA variants exist only where their compiler was found.
std::vector<Expected> expected_vector_variants() {
  std::vector<Expected> e = {{"original", Backend::serial, "course", 1}};
#ifdef ACCLAB_HAVE_OPENACC
  e.insert(e.end(), {{"acc_kernels", Backend::openacc, "course", 2},
                     {"acc_kernels_copy", Backend::openacc, "course", 3},
                     {"acc_loop", Backend::openacc, "course", 4},
                     {"acc_data", Backend::openacc, "course", 5},
                     {"acc_present", Backend::openacc, "course", 6},
                     {"acc_reduction", Backend::openacc, "course", 7}});
#endif
#ifdef ACCLAB_HAVE_CUDA
  e.push_back({"cuda", Backend::cuda, "course", 8});
#endif
  e.push_back({"triad_openmp", Backend::openmp, "triad", 1});
#ifdef ACCLAB_HAVE_OPENACC
  e.push_back({"triad_acc", Backend::openacc, "triad", 2});
#endif
#ifdef ACCLAB_HAVE_CUDA
  e.push_back({"triad_cuda", Backend::cuda, "triad", 3});
#endif
  e.push_back({"dot_openmp", Backend::openmp, "dot", 1});
#ifdef ACCLAB_HAVE_OPENACC
  e.insert(e.end(), {{"dot_acc_reduction", Backend::openacc, "dot", 2},
                     {"dot_acc_partials", Backend::openacc, "dot", 3}});
#endif
#ifdef ACCLAB_HAVE_CUDA
  e.push_back({"dot_cuda", Backend::cuda, "dot", 4});
#endif
  return e;
}

TEST(RegistryTest, VectorWorkloadIsRegistered) {
  ASSERT_FALSE(all().workloads().empty());
  const Workload& w = all().workload("vector");
  EXPECT_EQ(w.name, "vector");
  EXPECT_FALSE(w.description.empty());
  EXPECT_EQ(w.default_preset, "small");
  std::vector<std::string> keys;
  for (const auto& spec : w.params) keys.push_back(spec.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"nx", "ny", "nt"}));
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

TEST(RegistryTest, VectorVariantsAreExactlyTheExpectedOnes) {
  const auto expected = expected_vector_variants();
  std::vector<std::string> registered, wanted;
  for (const auto& v : all().variants()) {
    if (v.workload == "vector") registered.push_back(v.name);
  }
  for (const auto& e : expected) wanted.push_back(e.name);
  EXPECT_EQ(registered, wanted) << "registration order is the order acclab list shows";
  for (const auto& e : expected) {
    SCOPED_TRACE(e.name);
    const Variant* v = find_variant("vector", e.name);
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->backend, e.backend);
    EXPECT_EQ(v->family, e.family);
    EXPECT_EQ(v->step, e.step);
  }
}

TEST(RegistryTest, CudaVariantsExistExactlyInCudaBuilds) {
  for (const char* name : {"cuda", "triad_cuda", "dot_cuda"}) {
    SCOPED_TRACE(name);
#ifdef ACCLAB_HAVE_CUDA
    ASSERT_NE(find_variant("vector", name), nullptr);
    EXPECT_EQ(find_variant("vector", name)->backend, Backend::cuda);
#else
    EXPECT_EQ(find_variant("vector", name), nullptr);
#endif
  }
}

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

// Steps are positions on a family's whole ladder, so a build without a backend (OpenACC, CUDA,
// OpenBLAS) leaves its variants' steps unused. What holds in every build: each family starts at
// step 1 (its CPU reference, always built) and its steps, in registration order, increase (hence
// unique); in a build with every backend they are 1, 2, 3, ... without gaps.
TEST(RegistryTest, StepsOfEachFamilyIncreaseFromOne) {
#if defined(ACCLAB_HAVE_OPENACC) && defined(ACCLAB_HAVE_CUDA) && defined(ACCLAB_HAVE_OPENBLAS)
  constexpr bool every_backend_built = true;
#else
  constexpr bool every_backend_built = false;
#endif
  std::map<std::string, std::vector<int>> steps;  // "workload/family" -> steps in order
  for (const auto& v : all().variants()) steps[v.workload + "/" + v.family].push_back(v.step);
  for (const auto& [family, list] : steps) {
    SCOPED_TRACE(family);
    ASSERT_FALSE(list.empty());
    EXPECT_EQ(list.front(), 1);
    for (std::size_t i = 1; i < list.size(); ++i) EXPECT_GT(list[i], list[i - 1]);
    if (every_backend_built) {
      for (std::size_t i = 0; i < list.size(); ++i) EXPECT_EQ(list[i], static_cast<int>(i) + 1);
    }
  }
}

TEST(RegistryTest, SelectAllIsInLadderOrder) {
  const auto selected = all().select("vector", "*");
  std::vector<std::string> expected;
  for (const auto& e : expected_vector_variants()) expected.push_back(e.name);
  EXPECT_EQ(names_of(selected), expected);
}

#ifdef ACCLAB_HAVE_OPENACC
TEST(RegistryTest, SelectGlobs) {
  EXPECT_EQ(names_of(all().select("vector", "acc_*")),
            (std::vector<std::string>{"acc_kernels", "acc_kernels_copy", "acc_loop", "acc_data",
                                      "acc_present", "acc_reduction"}));
  EXPECT_EQ(names_of(all().select("vector", "acc_re?uction")),
            (std::vector<std::string>{"acc_reduction"}));
  EXPECT_EQ(names_of(all().select("vector", "dot_acc_*")),
            (std::vector<std::string>{"dot_acc_reduction", "dot_acc_partials"}));
  EXPECT_EQ(names_of(all().select("vector", "acc_loop")), (std::vector<std::string>{"acc_loop"}));
}

TEST(RegistryTest, SelectCommaSeparatedGlobsInLadderOrder) {
  // Whatever order the user writes, the result is in ladder order: families in order of
  // registration, then steps.
  std::vector<std::string> expected = {"original",   "acc_present",       "triad_openmp",
                                       "dot_openmp", "dot_acc_reduction", "dot_acc_partials"};
#ifdef ACCLAB_HAVE_CUDA
  expected.push_back("dot_cuda");
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

TEST(BackendTest, Names) {
  EXPECT_STREQ(to_string(Backend::serial), "serial");
  EXPECT_STREQ(to_string(Backend::openmp), "openmp");
  EXPECT_STREQ(to_string(Backend::openacc), "openacc");
  EXPECT_STREQ(to_string(Backend::cuda), "cuda");
}

}  // namespace
}  // namespace acclab
