// acclab run, ladder and explain as users and scripts see them: the real binary, its stdout, its
// stderr and its exit status (0 all verified, 1 a verification failed, 2 bad usage or input);
// tunings.
#include <gtest/gtest.h>

#include "cli_test.hpp"

namespace acclab::cli_test {
namespace {

// ---- run and ladder ----------------------------------------------------------------------------

TEST(CliRunTest, EveryAvailableVariantVerifiesOnTheSmallPreset) {
  // One timed run: repetitions are vector_test's business, and the OpenACC variants running
  // on the host are slow.
  const Outcome o = run_acclab({"run", "vector", "--format", "json", "--reps", "1"});
  ASSERT_EQ(o.status, 0) << o;
  EXPECT_TRUE(o.err.empty()) << o;
  auto doc = parse_json(o.out);
  EXPECT_EQ(doc["schema"], "acclab.run/1");
  EXPECT_EQ(doc["command"], "run");
  EXPECT_EQ(doc["preset"], "small");
  for (const char* field : {"host", "devices", "compiler", "results"}) {
    EXPECT_TRUE(doc.contains(field)) << field;
  }
  auto list = parse_json(run_acclab({"list", "--format", "json"}).out);
  std::size_t vector_variants = 0;
  for (const auto& v : list["variants"]) vector_variants += v["workload"] == "vector";
  ASSERT_EQ(doc["results"].size(), vector_variants) << "one result per vector variant";
  int verified = 0;
  for (auto& r : doc["results"]) {
    SCOPED_TRACE(r["variant"].dump());
    // The problem, and the step's own launch shape where it declares one (at its default).
    nlohmann::json params = {{"nx", 2048}, {"ny", 2048}, {"nt", 10}};
    const std::string variant = r["variant"];
    if (variant.ends_with("_acc_resident")) {
      params.update({{"acc_workers", 16}, {"acc_gangs_per_sm", 1}});
    } else if (variant.ends_with("_omp_target_resident")) {
      params.update({{"omp_thread_limit", 16}, {"omp_teams_per_sm", 1}});
    }
    EXPECT_EQ(r["params"], params);
    if (r["status"] == "unavailable") {
      EXPECT_TRUE(r["note"].is_string());
      if (!cuda_gpu_here()) EXPECT_TRUE(r["backend"] == "cuda" || openacc_gpu_here());
      continue;
    }
    EXPECT_EQ(r["status"], "verified") << r["error"];
    EXPECT_EQ(r["reps"], 1);
    EXPECT_EQ(r["times_s"].size(), 1u);
    EXPECT_TRUE(r["time_s"]["median"].is_number());
    if (r["family"] == "course") EXPECT_EQ(r["outputs"]["mean"], course_mean(2048, 2048, 10));
    ++verified;
  }
  EXPECT_GE(verified, 3);  // at least original, triad_openmp, dot_openmp
}

TEST(CliRunTest, CsvHasAHeaderAndOneLinePerResult) {
  const Outcome o = run_acclab(
      with({"run", "vector", "--variant", "original,dot_openmp", "--format", "csv"}, tiny));
  ASSERT_EQ(o.status, 0) << o;
  std::istringstream lines(o.out);
  std::string header, line;
  ASSERT_TRUE(std::getline(lines, header));
  EXPECT_EQ(header.rfind("workload,variant,", 0), 0u) << header;
  int records = 0;
  while (std::getline(lines, line)) {
    ++records;
    EXPECT_NE(line.find(",verified,"), std::string::npos) << line;
  }
  EXPECT_EQ(records, 2);
}

TEST(CliRunTest, TableIsTheDefault) {
  const Outcome o = run_acclab(with({"run", "vector", "--variant", "original"}, tiny));
  ASSERT_EQ(o.status, 0) << o;
  EXPECT_NE(o.out.find("original"), std::string::npos) << o;
  EXPECT_NE(o.out.find("verified"), std::string::npos) << o;
  EXPECT_NE(o.out.find(fmt::format("mean = {:.2f}", course_mean(37, 5, 3))), std::string::npos)
      << o;
}

TEST(CliRunTest, TableColumnsLineUpForLongNames) {
  // triad_omp_target_tuned (22 characters) and omptarget (9) are wider than the columns' least
  // widths: the header and both rows still start each column in one place.
  const Outcome o = run_acclab(
      with({"run", "vector", "--variant", "original,triad_omp_target_tuned", "--reps", "1"}, tiny));
  ASSERT_EQ(o.status, 0) << o;
  std::istringstream lines(o.out);
  std::set<std::size_t> backend, step;
  for (std::string line; std::getline(lines, line);) {
    for (const std::string name : {"variant", "original", "triad_omp_target_tuned"}) {
      const std::size_t at = line.find(" " + name + " ");
      if (at == std::string::npos || at > 12) continue;
      const std::size_t b = second_column(line, name);
      backend.insert(b);
      // The step column is right-aligned: its text ends in one place on every line.
      step.insert(line.find(' ', line.find_first_not_of(' ', line.find(' ', b))));
      if (name == "variant") EXPECT_EQ(line.compare(b, 7, "backend"), 0) << line;
    }
  }
  EXPECT_EQ(backend.size(), 1u) << o.out;
  EXPECT_EQ(step.size(), 1u) << o.out;
}

TEST(CliRunTest, AnEmptyOutPathIsRefused) {
  // "" would read as no --out: the report would go to stdout and no file be written.
  EXPECT_TRUE(is_usage_error(run_acclab(with({"run", "vector", "--out", ""}, tiny)),
                             {"--out", "empty path"}));
}

TEST(CliRunTest, CorruptResultExitsOne) {
  const Outcome o = run_acclab(
      {"run", "vector", "--variant", "acc_loop", "--corrupt-result", "--format", "json"});
#ifdef ACCLAB_HAVE_OPENACC
  ASSERT_EQ(o.status, 1) << o;
  auto doc = parse_json(o.out);
  ASSERT_EQ(doc["results"].size(), 1u);
  EXPECT_EQ(doc["results"][0]["status"], "failed");
  EXPECT_TRUE(doc["results"][0]["error"].is_string());
#else
  EXPECT_TRUE(is_usage_error(o, {"--variant acc_loop"}));
#endif
}

TEST(CliRunTest, ExitOneNamesTheFailedVariantInOneLine) {
  const Outcome o = run_acclab(with(
      {"run", "vector", "--variant", "original", "--corrupt-result", "--format", "json"}, tiny));
  ASSERT_EQ(o.status, 1) << o;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o;
  EXPECT_NE(o.err.find("vector/original"), std::string::npos) << o;
  EXPECT_NE(o.err.find("failed"), std::string::npos) << o;
}

TEST(CliRunTest, JsonNamesTheBuildAndTheCommandLine) {
  const std::vector<std::string> args =
      with({"run", "vector", "--variant", "original", "--format", "json"}, tiny);
  const Outcome o = run_acclab(args);
  ASSERT_EQ(o.status, 0) << o;
  const auto doc = parse_json(o.out);
  const auto& build = doc["build"];
  ASSERT_TRUE(build["commit"].is_string()) << build.dump();
  const std::string commit = build["commit"];
  // A git checkout's tests name its commit; a source tarball's say so plainly.
  const bool hex40 = commit.size() == 40 && std::all_of(commit.begin(), commit.end(), [](char c) {
                       return std::isxdigit(static_cast<unsigned char>(c));
                     });
  EXPECT_TRUE(hex40 || commit == "unknown") << commit;
  ASSERT_TRUE(build["dirty"].is_boolean());
  EXPECT_EQ(build["dirty"].get<bool>(), !build["changed"].empty()) << build.dump();
  EXPECT_TRUE(build["cxx"].is_string());
  ASSERT_TRUE(doc["command_line"].is_array());
  ASSERT_EQ(doc["command_line"].size(), args.size() + 1);
  for (std::size_t i = 0; i < args.size(); ++i) EXPECT_EQ(doc["command_line"][i + 1], args[i]);
  EXPECT_EQ(doc["openacc_runs_on"], openacc_gpu_here() ? "gpu" : "host");
#ifdef ACCLAB_HAVE_OPENACC
  // What the build can do follows from the flags the OpenACC sources were compiled with.
  const std::string flags = build["openacc_flags"];
  EXPECT_EQ(build["openacc_offload"] == "nvptx-none",
            flags.find("-foffload=nvptx") != std::string::npos)
      << build.dump();
#endif
}

TEST(CliRunTest, OneFailureAmongVerifiedResultsStillExitsOne) {
  const Outcome o = run_acclab(
      with({"run", "vector", "--variant", "original,dot_*", "--corrupt-result", "--format", "json"},
           tiny));
  ASSERT_EQ(o.status, 1) << o;
  for (auto& r : parse_json(o.out)["results"]) {
    EXPECT_NE(r["status"], "verified") << r.dump();
  }
}

TEST(CliLadderTest, SpeedupsAgainstTheFirstStep) {
#ifndef ACCLAB_HAVE_OPENACC
  GTEST_SKIP() << "no OpenACC variants in this build";
#endif
  // Written in reverse: the ladder runs in step order whatever the user types.
  for (const std::string glob : {"original,acc_loop", "acc_loop,original"}) {
    SCOPED_TRACE(glob);
    const Outcome o = run_acclab(
        with({"ladder", "vector", "--variant", glob, "--format", "json", "--reps", "2"}, tiny));
    ASSERT_EQ(o.status, 0) << o;
    auto doc = parse_json(o.out);
    EXPECT_EQ(doc["command"], "ladder");
    auto& results = doc["results"];
    ASSERT_EQ(results.size(), 2u);
    EXPECT_EQ(results[0]["variant"], "original");
    EXPECT_EQ(results[1]["variant"], "acc_loop");
    ASSERT_TRUE(results[0]["speedup_vs_first"].is_number()) << results[0].dump();
    ASSERT_TRUE(results[1]["speedup_vs_first"].is_number()) << results[1].dump();
    EXPECT_EQ(results[0]["speedup_vs_first"].get<double>(), 1.0);
    EXPECT_FALSE(results[0].contains("speedup_vs_previous"));
    EXPECT_DOUBLE_EQ(results[1]["speedup_vs_first"].get<double>(),
                     results[0]["time_s"]["median"].get<double>() /
                         results[1]["time_s"]["median"].get<double>());
    EXPECT_TRUE(results[1]["speedup_vs_previous"].is_number());
  }
}

TEST(CliLadderTest, RunHasNoSpeedups) {
  const Outcome o = run_acclab(
      with({"run", "vector", "--variant", "original,dot_openmp", "--format", "json"}, tiny));
  ASSERT_EQ(o.status, 0) << o;
  for (auto& r : parse_json(o.out)["results"]) {
    EXPECT_FALSE(r.contains("speedup_vs_first")) << r.dump();
  }
}

// ---- bad usage: status 2, one line naming the argument ------------------------------------------

using test::BadInputTest;

INSTANTIATE_TEST_SUITE_P(
    CliArguments, BadInputTest,
    ::testing::Values(
        usage("UnknownWorkload", {"run", "nope"}, "'nope'"),
        usage("LadderUnknownWorkload", {"ladder", "nope"}, "'nope'"),
        usage("MissingWorkload", {"run"}, "workload"),
        usage("VariantMatchesNothing", {"run", "vector", "--variant", "nomatch*"},
              "--variant nomatch*"),
        usage("UnknownPreset", {"run", "vector", "--preset", "huge"}, "--preset huge"),
        usage("EmptyPreset", {"run", "vector", "--preset", ""}, "--preset ''"),
        usage("DevicesBeyondTheLimit", {"run", "apsp", "--devices", "99"}, "--devices 99"),
        usage("DevicesZero", {"run", "apsp", "--devices", "0"}, "--devices 0"),
        usage("SetWithoutEquals", {"run", "vector", "--set", "nx"}, "--set nx"),
        usage("SetUnknownKey", {"run", "vector", "--set", "bogus=1"}, "--set bogus=1"),
        usage("SetZero", {"run", "vector", "--set", "nx=0"}, "--set nx=0"),
        usage("SetNegative", {"run", "vector", "--set", "nx=-5"}, "--set nx=-5"),
        usage("SetNotAnInteger", {"run", "vector", "--set", "nt=ten"}, "--set nt=ten"),
        usage("SetNtTooLargeToVerify", {"ladder", "vector", "--set", "nt=10000000"}, "nt=10000000"),
        usage("RepsZero", {"run", "vector", "--reps", "0"}, "--reps"),
        usage("RepsNotANumber", {"run", "vector", "--reps", "many"}, "--reps"),
        usage("RunFormatXml", {"run", "vector", "--format", "xml"}, "--format xml"),
        usage("ListFormatXml", {"list", "--format", "xml"}, "--format xml"),
        usage("InfoFormatXml", {"info", "--format", "xml"}, "--format xml"),
        usage("UnknownOption", {"run", "vector", "--frobnicate"}, "--frobnicate"),
        usage("ProfileAsCsv", {"run", "vector", "--profile", "--format", "csv"}, "--profile"),
        usage("ProfileOnList", {"list", "--profile"}, "--profile"),
        usage("NoSubcommand", {}, "a command is required"),
        usage("DevicesTwiceOver", {"run", "apsp", "--devices", "1,2", "--set", "devices=2"},
              "--devices 1,2 and --set devices=2"),
        // int would wrap these (2^31 to a negative count, 10^11 to a run that never ends).
        usage("OmpTeamsPastTheLimit",
              {"run", "vector", "--variant", "triad_omp_target_tuned", "--set",
               "omp_teams=2147483648", "--set", "omp_threads=32"},
              "omp_teams must be 0 to 65536"),
        usage("OmpThreadsPastTheLimit",
              {"run", "vector", "--variant", "triad_omp_target_tuned", "--set", "omp_teams=4",
               "--set", "omp_threads=1025"},
              "omp_threads must be 0 to 1024")),
    test::bad_input_name);

TEST(CliUsageTest, TooLargeForMemoryFailsBeforeAllocating) {
  // 4e12 elements (48 TB): refused before any array exists, so the process stays small and
  // ends at once rather than swapping or being killed.
  const Outcome o = run_acclab({"run", "vector", "--set", "nx=2000000", "--set", "ny=2000000"},
                               std::chrono::seconds(30));
  EXPECT_TRUE(is_usage_error(o, {"nx=2000000"}));
  EXPECT_LT(o.max_rss_kib, test::kRefusalPeakKib) << "peak memory " << o.max_rss_kib << " KiB";
}

TEST(CliUsageTest, TooLargeForThisHostFailsBeforeAllocating) {
  // 2^34 elements: within what the workload indexes, but 192 GiB of host memory.
  Machine machine;
  if (machine.host().available_bytes <= 0 ||
      machine.host().available_bytes >= 3.0 * 4 * std::ldexp(1.0, 34)) {
    GTEST_SKIP() << "this host has the memory for it";
  }
  const Outcome o =
      run_acclab({"run", "vector", "--set", "nx=131072", "--set", "ny=131072", "--set", "nt=1"},
                 std::chrono::seconds(30));
  EXPECT_TRUE(is_usage_error(o, {"host memory"}));
  EXPECT_LT(o.max_rss_kib, test::kRefusalPeakKib) << "peak memory " << o.max_rss_kib << " KiB";
}

TEST(CliUsageTest, AMemoryRefusalNamesTheVariantsOwnParameters) {
  // apsp/serial at n = 46340: 40 GiB of host memory. The refusal names the problem, not the
  // tunings of the other steps (gangs_per_sm is optimize_resident's), which serial never reads.
  Machine machine;
  const double have = machine.host().available_bytes;
  if (have <= 0 || have >= 48 * std::ldexp(1.0, 30)) {
    GTEST_SKIP() << "this host has the memory for it";
  }
  const Outcome o = run_acclab({"run", "apsp", "--variant", "serial", "--set", "n=46340"},
                               std::chrono::seconds(30));
  EXPECT_TRUE(is_usage_error(o, {"apsp/serial", "\"n\":46340", "host memory"}));
  EXPECT_EQ(o.err.find("gangs_per_sm"), std::string::npos) << o.err;
}

TEST(CliUsageTest, UnavailableVariantByExactNameIsAUsageError) {
  if (cuda_gpu_here()) GTEST_SKIP() << "this machine has a CUDA GPU";
#ifndef ACCLAB_HAVE_CUDA
  GTEST_SKIP() << "no CUDA variants in this build";
#endif
  const Outcome o = run_acclab({"run", "vector", "--variant", "cuda"});
  EXPECT_TRUE(is_usage_error(o, {"--variant cuda"}));
  // A glob that happens to match only unavailable variants is a report, not an error.
  const Outcome glob = run_acclab({"run", "vector", "--variant", "cuda*", "--format", "json"});
  ASSERT_EQ(glob.status, 0) << glob;
  EXPECT_EQ(parse_json(glob.out)["results"][0]["status"], "unavailable");
}

// Every exact name in a comma-separated list is checked for availability, not only the first.
TEST(CliUsageTest, UnavailableVariantInAListOfExactNamesIsAUsageError) {
  if (cuda_gpu_here()) GTEST_SKIP() << "this machine has a CUDA GPU";
  EXPECT_TRUE(
      is_usage_error(run_acclab({"run", "vector", "--variant", "original,cuda"}), {"cuda"}));
}

// nx*ny would wrap around in std::int64_t (nx = ny = 2^32 gives 0 elements): validation must
// catch it before the product is formed.
TEST(CliUsageTest, SizesWhoseProductOverflowsAreUsageErrors) {
  EXPECT_TRUE(is_usage_error(run_acclab({"run", "vector", "--variant", "original", "--set",
                                         "nx=4294967296", "--set", "ny=4294967296"},
                                        std::chrono::seconds(30)),
                             {"nx=4294967296"}));
}

// CLI11 alone answers "A subcommand is required" for an unknown subcommand, which does not name
// the word the user typed.
TEST(CliUsageTest, UnknownSubcommandIsNamed) {
  EXPECT_TRUE(is_usage_error(run_acclab({"frobnicate"}), {"frobnicate"}));
}

// CLI11's own sentences ("The following argument was not expected: b a", words last first)
// read unlike every other refusal: acclab names the command, the words in order, and --help.
TEST(CliUsageTest, ParseErrorsAreSaidInAcclabsWords) {
  const Outcome extra = run_acclab({"run", "vector", "a", "b"});
  EXPECT_TRUE(is_usage_error(extra, {"run: unexpected arguments a b", "acclab run --help"}))
      << extra;
  EXPECT_TRUE(is_usage_error(run_acclab({"run"}), {"run: workload is required"}));
  EXPECT_TRUE(is_usage_error(run_acclab({"run", "vector", "--reps"}), {"--reps expects a value"}));
  EXPECT_TRUE(is_usage_error(run_acclab({}), {"a command is required: list, info, run"}));
}

// --version: what a bug report needs, from the build's own record: the commit this binary was
// built from (as every JSON report records it) and a line for each backend.
TEST(CliVersionTest, NamesCommitCompilerAndEveryBackend) {
  const Outcome text = run_acclab({"--version"});
  ASSERT_EQ(text.status, 0) << text;
  const Outcome json = run_acclab({"--version", "--format", "json"});
  ASSERT_EQ(json.status, 0) << json;
  const auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["schema"], "acclab.version/1");
  const auto commit = doc["commit"].get<std::string>();
  EXPECT_FALSE(commit.empty());
  EXPECT_NE(text.out.find("commit    " + commit), std::string::npos) << text;
  std::vector<std::string> names;
  for (const auto& backend : doc["backends"]) names.push_back(backend["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"serial", "openmp", "openacc", "omptarget", "cuda",
                                             "mpi"}));
  for (const auto& name : names) {
    EXPECT_NE(text.out.find("\n" + name + " "), std::string::npos) << name << "\n" << text;
  }
  // The same binary's run report names the same commit.
  const Outcome run = run_acclab({"info", "--format", "json"});
  ASSERT_EQ(run.status, 0) << run;
  EXPECT_EQ(nlohmann::json::parse(run.out)["build"]["commit"], commit);
  EXPECT_TRUE(is_usage_error(run_acclab({"--version", "--format", "xml"}), {"--format xml"}));
}

// An integer option given a value its type cannot hold, or no integer at all, is refused in
// acclab's words with the option's range (CLI11's own answer is "Could not convert").
TEST(CliUsageTest, IntegerOptionsNameTheirRange) {
  const std::string matrix = test::data_file("matrices/494_bus.mtx");
  const std::string graph = test::data_file("graphs/polbooks.mtx");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"run", "vector", "--reps", "99999999999999"},
       "--reps 99999999999999: must be an integer from 1 to 2147483647"},
      {{"ladder", "vector", "--reps", "five"}, "--reps five: must be an integer from 1 to"},
      {{"run", "vector", "--reps", "0"}, "--reps 0: must be an integer from 1 to 2147483647"},
      {{"tune", "jacobi2d", "--evals", "3000000000"}, "--evals 3000000000: must be an integer"},
      {{"tune", "jacobi2d", "--reps", "-2"}, "--reps -2: must be an integer from 1 to"},
      {{"tune", "jacobi2d", "--seed", "-1"},
       "--seed -1: must be an integer from 0 to 18446744073709551615"},
      {{"tune", "jacobi2d", "--seed", "18446744073709551616"}, "--seed 18446744073709551616:"},
      {{"apsp", graph, "--devices", "99999999999"},
       "--devices 99999999999: must be an integer "
       "from 1 to 64"},
      {{"apsp", graph, "--query", "1", "9223372036854775808"},
       "--query 9223372036854775808: must be an integer"},
      {{"apsp", "--seed-graph", "1e3"}, "--seed-graph 1e3: must be an integer"},
      {{"iccg", matrix, "--maxiter", "99999999999999"},
       "--maxiter 99999999999999: must be an integer from 1 to 1000000000"},
      {{"iccg", matrix, "--colors", "-99999999999"}, "--colors -99999999999: must be an integer"},
  };
  for (const auto& [args, message] : cases) {
    const test::Outcome o = run_acclab(args, std::chrono::seconds(60));
    EXPECT_TRUE(is_usage_error(o, {message})) << args[0] << " " << args[args.size() - 2];
    EXPECT_EQ(o.err.find("Could not convert"), std::string::npos) << o.err;
  }
  // In range, the value is taken as before.
  const test::Outcome ok = run_acclab({"run", "vector", "--variant", "original", "--set", "nt=1",
                                       "--reps", "+2", "--format", "json"});
  ASSERT_EQ(ok.status, 0) << ok;
  EXPECT_EQ(parse_json(ok.out)["results"][0]["reps"], 2);
}

// ---- explain ---------------------------------------------------------------------------------

#ifdef ACCLAB_HAVE_OPENACC
TEST(CliExplainTest, OpenAccVariantShowsTheCompilersLoopDecisions) {
  // acc_loop's calc: GCC (decompose) maps the outer loop to gang/worker, the inner to vector.
  const Outcome o = run_acclab({"explain", "vector/acc_loop"});
  ASSERT_EQ(o.status, 0) << o;
  EXPECT_NE(o.out.find("#pragma acc loop independent"), std::string::npos) << o;
  EXPECT_NE(o.out.find("vector loop parallelism"), std::string::npos) << o;
  // Step 03 has no `independent`: its loops stay sequential, and explain must say so.
  const Outcome seq = run_acclab({"explain", "vector/acc_kernels_copy"});
  ASSERT_EQ(seq.status, 0) << seq;
  EXPECT_NE(seq.out.find("seq loop parallelism"), std::string::npos) << seq;
  EXPECT_EQ(seq.out.find("made addressable"), std::string::npos) << seq;
}
#endif

#ifdef ACCLAB_HAVE_CUDA
TEST(CliExplainTest, CudaVariantShowsPtxasResourcesPerKernel) {
  const Outcome o = run_acclab({"explain", "jacobi2d/cuda"});
  ASSERT_EQ(o.status, 0) << o;
  EXPECT_NE(o.out.find("kernel acclab::jacobi2d::cuda::"), std::string::npos) << o;
  EXPECT_NE(o.out.find("registers"), std::string::npos) << o;
  EXPECT_NE(o.out.find("spill"), std::string::npos) << o;
}
#endif

TEST(CliExplainTest, VendorLibraryVariantSaysSo) {
#ifdef ACCLAB_HAVE_CUDA
  const Outcome o = run_acclab({"explain", "matmul/cublas"});
  ASSERT_EQ(o.status, 0) << o;
  EXPECT_NE(o.out.find("vendor library"), std::string::npos) << o;
#else
  GTEST_SKIP() << "cublas is built only with CUDA";
#endif
}

TEST(CliExplainTest, CpuVariantSaysSo) {
  const Outcome o = run_acclab({"explain", "jacobi2d/serial"});
  ASSERT_EQ(o.status, 0) << o;
  EXPECT_NE(o.out.find("A CPU variant"), std::string::npos) << o;
}

TEST(CliExplainTest, BadTargetsAreUsageErrors) {
  EXPECT_TRUE(is_usage_error(run_acclab({"explain", "vector/nope"}), {"vector/nope"}));
  EXPECT_TRUE(is_usage_error(run_acclab({"explain", "vector"}), {"WORKLOAD/VARIANT"}));
  EXPECT_TRUE(is_usage_error(run_acclab({"explain", "nowork/acc_loop"}), {"nowork"}));
}

// ---- tunings -----------------------------------------------------------------------------------

// jacobi2d's small problem, cut to a few sweeps.
const std::vector<std::string> tiny_jacobi = {"--set", "rows=18", "--set",  "cols=12",
                                              "--set", "iters=4", "--reps", "1"};

#ifdef ACCLAB_HAVE_OPENACC
TEST(CliTuningTest, ASetOfATuningNoSelectedVariantHasIsRefused) {
  const Outcome o = run_acclab(
      with({"run", "jacobi2d", "--variant", "serial,openmp", "--set", "async=0"}, tiny_jacobi));
  EXPECT_TRUE(is_usage_error(o, {"--set async=0", "acc_tuned"})) << o;
}

TEST(CliTuningTest, EachResultNamesTheTuningItRanWith) {
  const Outcome o = run_acclab(with(
      {"run", "jacobi2d", "--variant", "serial,acc_tuned", "--set", "async=0", "--format", "json"},
      tiny_jacobi));
  ASSERT_EQ(o.status, 0) << o;
  const auto doc = parse_json(o.out);
  ASSERT_EQ(doc["results"].size(), 2u);
  EXPECT_EQ(doc["results"][0]["variant"], "serial");
  EXPECT_EQ(doc["results"][0]["tuning"], "default");
  EXPECT_EQ(doc["results"][1]["variant"], "acc_tuned");
  EXPECT_EQ(doc["results"][1]["tuning"], "async=0");
  // A result's params are the ones its step reads: acc_tuned's async is no param of serial's.
  EXPECT_FALSE(doc["results"][0]["params"].contains("async")) << doc["results"][0]["params"];
  EXPECT_EQ(doc["results"][1]["params"]["async"], 0) << doc["results"][1]["params"];
  EXPECT_EQ(doc["results"][0]["params"]["rows"], doc["results"][1]["params"]["rows"]);
  // The table says it too, beside the result.
  const Outcome table =
      run_acclab(with({"run", "jacobi2d", "--variant", "acc_tuned"}, tiny_jacobi));
  ASSERT_EQ(table.status, 0) << table;
  EXPECT_NE(table.out.find("tuning async=1"), std::string::npos) << table;
}
#endif

TEST(CliTuningTest, ProblemParametersPassWhateverIsSelected) {
  const Outcome o = run_acclab(with({"run", "jacobi2d", "--variant", "serial"}, tiny_jacobi));
  EXPECT_EQ(o.status, 0) << o;
}

}  // namespace
}  // namespace acclab::cli_test
