// The compiler-notes parser behind acclab explain (core/compiler_notes.hpp):
//   - which notes file a variant reads, by backend and source (variants sharing a source share
//     it; CPU and vendor-library variants have none);
//   - GCC's -fopt-info-omp-all lines grouped by file and line, repeats and "made addressable"
//     dropped, other lines skipped;
//   - ptxas -v reports split per kernel, names demangled, resource lines without the prefix;
//   - the notes the build kept for this binary's variants parse to something.
#include "core/compiler_notes.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/build_config.hpp"
#include "core/registry.hpp"
#include "support.hpp"

namespace acclab {
namespace {

Variant variant_with(const std::string& workload, Backend backend, const std::string& source) {
  Variant v;
  v.workload = workload;
  v.name = "v";
  v.backend = backend;
  v.source = source;
  return v;
}

TEST(CompilerNotesTest, NotesFileFollowsTheVariantsBackendAndSource) {
  const NotesSource acc = notes_source(variant_with("vector", Backend::openacc, "acc_loop.cpp"));
  EXPECT_EQ(acc.kind, NotesKind::gcc);
  EXPECT_EQ(acc.file, "vector/acc_loop.txt");
  const NotesSource cuda = notes_source(variant_with("apsp", Backend::cuda, "cuda_kernels.cu"));
  EXPECT_EQ(cuda.kind, NotesKind::ptxas);
  EXPECT_EQ(cuda.file, "apsp/cuda_kernels.ptxas.txt");
  // Only the last dot ends the stem.
  EXPECT_EQ(notes_source(variant_with("w", Backend::openacc, "a.b.cpp")).file, "w/a.b.txt");
  const NotesSource library = notes_source(variant_with("matmul", Backend::cuda, "cuda.cpp"));
  EXPECT_EQ(library.kind, NotesKind::vendor_library);
  EXPECT_TRUE(library.file.empty());
  const NotesSource omp =
      notes_source(variant_with("jacobi2d", Backend::omptarget, "omp_target_tuned.cpp"));
  EXPECT_EQ(omp.kind, NotesKind::gcc_omptarget);
  EXPECT_EQ(omp.file, "jacobi2d/omp_target_tuned.txt");
  for (Backend cpu : {Backend::serial, Backend::openmp}) {
    const NotesSource none = notes_source(variant_with("jacobi2d", cpu, "reference.cpp"));
    EXPECT_EQ(none.kind, NotesKind::cpu);
    EXPECT_TRUE(none.file.empty());
  }
}

TEST(CompilerNotesTest, FindNotesTakesTheFirstFolderThatHoldsTheFile) {
  test::TempDir dir;
  const auto bundle = dir.path() / "bundle", build = dir.path() / "build";
  std::filesystem::create_directories(bundle / "apsp");
  std::filesystem::create_directories(build / "apsp");
  std::ofstream(build / "apsp" / "acc_optimize.txt") << "x";
  EXPECT_EQ(find_notes("apsp/acc_optimize.txt", {bundle, build}), build / "apsp/acc_optimize.txt");
  std::ofstream(bundle / "apsp" / "acc_optimize.txt") << "y";
  EXPECT_EQ(find_notes("apsp/acc_optimize.txt", {bundle, build}), bundle / "apsp/acc_optimize.txt");
  EXPECT_FALSE(find_notes("apsp/acc_multidevice.txt", {bundle, build}));
}

TEST(CompilerNotesTest, GccNotesAreGroupedByFileAndLineOnceEach) {
  std::istringstream in(
      "/src/workloads/vector/acc_loop.cpp:20:9: optimized: assigned OpenACC gang worker loop "
      "parallelism\n"
      "/src/workloads/vector/acc_loop.cpp:22:11: optimized: assigned OpenACC vector loop "
      "parallelism\n"
      // The same note from a second construct over the same loop: kept once.
      "/src/workloads/vector/acc_loop.cpp:20:9: optimized: assigned OpenACC gang worker loop "
      "parallelism\n"
      "/src/workloads/vector/acc_loop.cpp:20:9: note: variable 'i' declared in block "
      "isn't candidate for adjusting OpenACC privatization level: not addressable\n"
      "/src/workloads/vector/acc_loop.cpp:15:9: note: OpenACC 'kernels' decomposition: "
      "variable 'n' in 'copy' clause requested to be made addressable\n"
      "/src/kit/acc_resident.hpp:33:9: optimized: assigned OpenACC gang vector loop "
      "parallelism\n"
      // Not notes: no line number, too short, no message.
      "lto-wrapper: warning: using serial compilation of 2 LTRANS jobs\n"
      "In function 'calc':\n"
      "/src/a.cpp:x:1: note: not a line number\n"
      "/src/a.cpp:3:1:\n");
  const GccNotes notes = parse_gcc_notes(in);
  ASSERT_EQ(notes.size(), 2u);
  const auto& loop = notes.at("/src/workloads/vector/acc_loop.cpp");
  ASSERT_EQ(loop.size(), 2u) << "line 15 held only a made-addressable note";
  EXPECT_EQ(loop.at(20), (std::vector<std::string>{
                             "optimized: assigned OpenACC gang worker loop parallelism",
                             "note: variable 'i' declared in block isn't candidate for adjusting "
                             "OpenACC privatization level: not addressable"}));
  EXPECT_EQ(loop.at(22),
            std::vector<std::string>{"optimized: assigned OpenACC vector loop parallelism"});
  EXPECT_EQ(notes.at("/src/kit/acc_resident.hpp").at(33),
            std::vector<std::string>{"optimized: assigned OpenACC gang vector loop parallelism"});
}

TEST(CompilerNotesTest, GccNotesOfAnEmptyOrForeignFileAreEmpty) {
  std::istringstream empty("");
  EXPECT_TRUE(parse_gcc_notes(empty).empty());
  std::istringstream foreign("ptxas info    : Used 32 registers, 380 bytes cmem[0]\n");
  EXPECT_TRUE(parse_gcc_notes(foreign).empty());
}

TEST(CompilerNotesTest, PtxasReportIsSplitPerKernelWithReadableNames) {
  std::istringstream in(
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function '_ZN6acclab8jacobi2d4cuda5sweepEiiPKfPf' for "
      "'sm_90'\n"
      "ptxas info    : Function properties for _ZN6acclab8jacobi2d4cuda5sweepEiiPKfPf\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 18 registers, 384 bytes cmem[0]\n"
      "ptxas info    : Compile time = 3.2 ms\n"
      "ptxas info    : Compiling entry function 'plain_c_kernel' for 'sm_90'\n"
      "ptxas info    : Function properties for plain_c_kernel\n"
      "    16 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
      "ptxas info    : Used 255 registers, used 1 barriers, 32768 bytes smem\n");
  const auto kernels = parse_ptxas_notes(in);
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].name, "acclab::jacobi2d::cuda::sweep(int, int, float const*, float*)");
  EXPECT_EQ(
      kernels[0].resources,
      (std::vector<std::string>{"0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
                                "Used 18 registers, 384 bytes cmem[0]"}));
  EXPECT_EQ(kernels[1].name, "plain_c_kernel") << "a C name stays as it is";
  EXPECT_EQ(
      kernels[1].resources,
      (std::vector<std::string>{"16 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads",
                                "Used 255 registers, used 1 barriers, 32768 bytes smem"}));
}

TEST(CompilerNotesTest, PtxasResourcesBeforeAnyKernelAreKeptUnnamed) {
  std::istringstream in("ptxas info    : Used 8 registers\n");
  const auto kernels = parse_ptxas_notes(in);
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_TRUE(kernels[0].name.empty());
  EXPECT_EQ(kernels[0].resources, std::vector<std::string>{"Used 8 registers"});
  std::istringstream gcc("/src/a.cpp:3:1: optimized: assigned OpenACC vector loop parallelism\n");
  EXPECT_TRUE(parse_ptxas_notes(gcc).empty());
}

TEST(CompilerNotesTest, DemangleReadsCppNamesAndKeepsOthers) {
  EXPECT_EQ(demangle("_ZN6acclab4apsp4cuda4restILb1EEEviiiiPfPKfS5_"),
            "void acclab::apsp::cuda::rest<true>(int, int, int, int, float*, float const*, float "
            "const*)");
  EXPECT_EQ(demangle("main"), "main");
  EXPECT_EQ(demangle(""), "");
}

// The workload's own files `source` includes ("workloads/<workload>/x.hpp" as x.hpp): a step
// whose constructs sit in a header its workload's steps share (jacobi2d's mpi_acc_block.hpp).
std::vector<std::string> workload_headers(const Variant& v) {
  std::vector<std::string> headers;
  std::ifstream in(std::string(ACCLAB_SOURCE_DIR) + "/workloads/" + v.workload + "/" + v.source);
  const std::string prefix = "#include \"workloads/" + v.workload + "/";
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(prefix)) {
      headers.push_back(line.substr(prefix.size(), line.find('"', prefix.size()) - prefix.size()));
    }
  }
  return headers;
}

// Of GCC's inlining notes, only those naming a libgomp entry point, each as "REGION calls ENTRY:
// meaning", once per line.
TEST(CompilerNotesTest, TargetRegionCallsKeepsTheLibgompEntryPoints) {
  std::istringstream in(
      "w/a.cpp:12:9: missed:   not inlinable: f()/15 -> GOMP_target_ext/18, function body not "
      "available\n"
      "w/a.cpp:12:26: missed:   not inlinable: f() [clone ._omp_fn.2]/24 -> GOMP_teams4/28, "
      "function body not available\n"
      "w/a.cpp:12:26: missed:   not inlinable: f() [clone ._omp_fn.2]/24 -> GOMP_teams4/28, "
      "function body not available\n"
      "w/a.cpp:20:3: missed:   not inlinable: g()/3 -> std::vector<int>::size()/9, call is cold\n");
  const GccNotes calls = target_region_calls(parse_gcc_notes(in));
  ASSERT_EQ(calls.size(), 1u);
  const auto& lines = calls.at("w/a.cpp");
  ASSERT_EQ(lines.size(), 1u) << "line 20 names no libgomp entry point";
  const auto& messages = lines.at(12);
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0].rfind("host code calls GOMP_target_ext: launches", 0), 0u) << messages[0];
  EXPECT_EQ(messages[1].rfind("._omp_fn.2 calls GOMP_teams4: ", 0), 0u) << messages[1];
}

// The notes this build kept: every offloaded variant with its own kernels has a file that parses
// to at least one note (explain on it would not fail), and it names the variant's source or a
// header of its workload that the source includes (not only code of src/core).
TEST(CompilerNotesTest, EveryOffloadedVariantOfThisBuildHasParsableNotes) {
  Registry registry;
  register_all_workloads(registry);
  int checked = 0;
  for (const auto& v : registry.variants()) {
    const NotesSource source = notes_source(v);
    if (source.kind != NotesKind::gcc && source.kind != NotesKind::gcc_omptarget &&
        source.kind != NotesKind::ptxas) {
      continue;
    }
    SCOPED_TRACE(v.id());
    const auto path = find_notes(source.file, {std::filesystem::path(ACCLAB_NOTES_DIR)});
    ASSERT_TRUE(path) << source.file << " missing from " << ACCLAB_NOTES_DIR;
    std::ifstream in(*path);
    if (source.kind == NotesKind::ptxas) {
      const auto kernels = parse_ptxas_notes(in);
      ASSERT_FALSE(kernels.empty());
      EXPECT_FALSE(kernels.front().name.empty());
      EXPECT_FALSE(kernels.front().resources.empty());
    } else {
      GccNotes notes = parse_gcc_notes(in);
      // What explain prints of an OpenMP target variant's notes: its regions' libgomp calls.
      if (source.kind == NotesKind::gcc_omptarget) notes = target_region_calls(notes);
      ASSERT_FALSE(notes.empty());
      bool names_source = false;
      const std::vector<std::string> headers = workload_headers(v);
      for (const auto& [file, lines] : notes) {
        names_source = names_source || file.ends_with("/" + v.workload + "/" + v.source);
        for (const auto& header : headers) {
          names_source = names_source || file.ends_with("/" + v.workload + "/" + header);
        }
        EXPECT_FALSE(lines.empty());
      }
      EXPECT_TRUE(names_source) << "no note about " << v.source;
    }
    ++checked;
  }
#ifdef ACCLAB_HAVE_OPENACC
  EXPECT_GT(checked, 0);
#endif
}

}  // namespace
}  // namespace acclab
