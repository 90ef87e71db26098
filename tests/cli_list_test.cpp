// acclab list and acclab info as users and scripts see them: the real binary, its stdout, its
// stderr and its exit status.
#include <gtest/gtest.h>

#include "cli_test.hpp"

namespace acclab::cli_test {
namespace {

// ---- list and info -----------------------------------------------------------------------------

TEST(CliListTest, JsonListsEveryVariantWithItsAvailability) {
  const Outcome o = run_acclab({"list", "--format", "json"});
  ASSERT_EQ(o.status, 0) << o;
  EXPECT_TRUE(o.err.empty()) << o;
  auto doc = parse_json(o.out);
  EXPECT_EQ(doc["schema"], "acclab.list/1");
  ASSERT_TRUE(doc["variants"].is_array());
  auto find = [&](const std::string& name) -> nlohmann::json* {
    for (auto& v : doc["variants"]) {
      if (v["workload"] == "vector" && v["variant"] == name) return &v;
    }
    return nullptr;
  };
  for (auto& v : doc["variants"]) {
    SCOPED_TRACE(v.dump());
    for (const char* field : {"workload", "variant", "backend", "step", "description"}) {
      EXPECT_TRUE(v.contains(field)) << field;
    }
    ASSERT_TRUE(v["available"].is_boolean());
    if (v["backend"] == "cuda") EXPECT_EQ(v["available"].get<bool>(), cuda_gpu_here());
  }
#ifdef ACCLAB_HAVE_OPENACC
  const std::vector<std::string> course = {"original",     "acc_kernels", "acc_kernels_copy",
                                           "acc_loop",     "acc_data",    "acc_present",
                                           "acc_reduction"};
  for (std::size_t i = 0; i < course.size(); ++i) {
    SCOPED_TRACE(course[i]);
    auto* v = find(course[i]);
    ASSERT_NE(v, nullptr);
    EXPECT_EQ((*v)["step"], i + 1);
    EXPECT_EQ((*v)["family"], "course");
    EXPECT_FALSE((*v)["description"].get<std::string>().empty());
    // Step 02 is unsafe on a GPU; everything else on the course ladder runs anywhere.
    const bool available = course[i] != "acc_kernels" || !openacc_gpu_here();
    EXPECT_EQ((*v)["available"].get<bool>(), available);
  }
#endif
#ifdef ACCLAB_HAVE_CUDA
  for (const char* name : {"cuda", "triad_cuda", "dot_cuda"}) {
    ASSERT_NE(find(name), nullptr) << name;
    EXPECT_EQ((*find(name))["available"].get<bool>(), cuda_gpu_here()) << name;
  }
#endif
}

// Every variant lists its tunings (RAJAPerf's word for a variant's own knobs) with the value of
// the workload's default preset.
TEST(CliListTest, JsonListsEachVariantsTunings) {
  const Outcome o = run_acclab({"list", "--format", "json"});
  ASSERT_EQ(o.status, 0) << o;
  const auto doc = parse_json(o.out);
  const nlohmann::json* serial = nullptr;
  const nlohmann::json* acc_tuned = nullptr;
  for (const auto& v : doc["variants"]) {
    SCOPED_TRACE(v.dump());
    ASSERT_TRUE(v["tunings"].is_array());
    for (const auto& tuning : v["tunings"]) {
      for (const char* field : {"name", "type", "help", "default"}) {
        EXPECT_TRUE(tuning.contains(field)) << field;
      }
    }
    if (v["workload"] == "jacobi2d" && v["variant"] == "serial") serial = &v;
    if (v["workload"] == "jacobi2d" && v["variant"] == "acc_tuned") acc_tuned = &v;
  }
  ASSERT_NE(serial, nullptr);
  EXPECT_TRUE((*serial)["tunings"].empty());
#ifdef ACCLAB_HAVE_OPENACC
  ASSERT_NE(acc_tuned, nullptr);
  ASSERT_EQ((*acc_tuned)["tunings"].size(), 1u);
  EXPECT_EQ((*acc_tuned)["tunings"][0]["name"], "async");
  EXPECT_EQ((*acc_tuned)["tunings"][0]["type"], "boolean");
  EXPECT_EQ((*acc_tuned)["tunings"][0]["default"], "1");
#endif
}

#ifdef ACCLAB_HAVE_OMPTARGET
// An optional tuning that no preset sets still has a default where unset means a plain value
// (the OpenMP target knobs), and its range where it is numeric.
TEST(CliListTest, JsonShowsTheDefaultOfAnUnsetTuning) {
  const Outcome o = run_acclab({"list", "--format", "json"});
  ASSERT_EQ(o.status, 0) << o;
  const std::map<std::string, std::string> expected = {{"omp_teams", "0"},
                                                       {"omp_threads", "0"},
                                                       {"omp_simd", "1"},
                                                       {"omp_construct", "distribute"},
                                                       {"omp_shape", "rows"}};
  int seen = 0;
  const auto doc = parse_json(o.out);
  for (const auto& v : doc["variants"]) {
    if (v["workload"] != "jacobi2d" || v["variant"] != "omp_target_tuned") continue;
    for (const auto& tuning : v["tunings"]) {
      const std::string name = tuning["name"];
      SCOPED_TRACE(name);
      ASSERT_TRUE(expected.contains(name));
      EXPECT_EQ(tuning["default"], expected.at(name));
      if (name == "omp_teams") EXPECT_EQ(tuning["maximum"], 65536);
      if (name == "omp_threads") EXPECT_EQ(tuning["maximum"], 1024);
      ++seen;
    }
  }
  EXPECT_EQ(seen, 5);
}
#endif

TEST(CliListTest, TableNamesEveryVariant) {
  const Outcome o = run_acclab({"list"});
  ASSERT_EQ(o.status, 0) << o;
  auto doc = parse_json(run_acclab({"list", "--format", "json"}).out);
  for (auto& v : doc["variants"]) {
    EXPECT_NE(o.out.find(v["variant"].get<std::string>()), std::string::npos) << v.dump();
  }
#ifdef ACCLAB_HAVE_CUDA
  // CUDA variants are built here; without a GPU they are listed as unavailable.
  if (!cuda_gpu_here()) EXPECT_NE(o.out.find("[unavailable: "), std::string::npos) << o;
#endif
}

TEST(CliListTest, TableColumnsLineUpWhateverTheNameLength) {
  const Outcome o = run_acclab({"list"});
  ASSERT_EQ(o.status, 0) << o;
  auto doc = parse_json(run_acclab({"list", "--format", "json"}).out);
  std::set<std::string> names, backends;
  for (auto& v : doc["variants"]) {
    names.insert(v["variant"].get<std::string>());
    backends.insert(v["backend"].get<std::string>());
  }
  // Names run from 8 to over 30 characters: every row's backend starts in one column.
  std::set<std::size_t> columns;
  std::size_t rows = 0;
  std::istringstream lines(o.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("  ", 0) != 0 || line.find("tunings:") != std::string::npos) continue;
    const std::string name = line.substr(2, line.find(' ', 2) - 2);
    if (!names.count(name)) continue;
    const std::size_t at = second_column(line, name);
    const std::string backend = line.substr(at, line.find(' ', at) - at);
    EXPECT_TRUE(backends.count(backend)) << line;
    columns.insert(at);
    ++rows;
  }
  EXPECT_EQ(rows, doc["variants"].size()) << o.out;
  EXPECT_EQ(columns.size(), 1u) << o.out;
}

TEST(CliInfoTest, JsonDescribesHostAndCompiler) {
  const Outcome o = run_acclab({"info", "--format", "json"});
  ASSERT_EQ(o.status, 0) << o;
  auto doc = parse_json(o.out);
  EXPECT_EQ(doc["schema"], "acclab.info/1");
  ASSERT_TRUE(doc["host"]["cores"].is_number_integer());
  EXPECT_GT(doc["host"]["cores"].get<int>(), 0);
  EXPECT_GT(doc["host"]["memory_bytes"].get<double>(), 0);
  ASSERT_TRUE(doc["compiler"]["cxx"].is_string());
  EXPECT_FALSE(doc["compiler"]["cxx"].get<std::string>().empty());
  EXPECT_TRUE(doc["devices"].is_array());
  // Without --probe nothing is measured.
  EXPECT_EQ(doc["limits"], nlohmann::json::object());
}

TEST(CliInfoTest, HostAndEveryDeviceCarryTheirPeakRatesOrWhyNot) {
  const Outcome o = run_acclab({"info", "--format", "json"});
  ASSERT_EQ(o.status, 0) << o;
  auto doc = parse_json(o.out);
  auto check = [](const nlohmann::json& peaks, const char* how) {
    ASSERT_TRUE(peaks.is_object()) << peaks.dump();
    if (peaks["fp64"].is_number()) {
      EXPECT_GT(peaks["fp64"].get<double>(), 0) << peaks.dump();
      EXPECT_GT(peaks["fp32"].get<double>(), peaks["fp64"].get<double>()) << peaks.dump();
      EXPECT_EQ(peaks["origin"].get<std::string>().rfind(how, 0), 0u) << peaks.dump();
    } else {
      EXPECT_TRUE(peaks["fp64"].is_null()) << peaks.dump();
      EXPECT_FALSE(peaks["missing"].get<std::string>().empty()) << peaks.dump();
    }
  };
  check(doc["host"]["peak_gflops"], "nominal:");
  for (const auto& device : doc["devices"]) check(device["peak_gflops"], "attributes:");
  const Outcome table = run_acclab({"info"});
  ASSERT_EQ(table.status, 0) << table;
  EXPECT_NE(table.out.find("\npeak      "), std::string::npos) << table;
}

TEST(CliInfoTest, ProbeMeasuresHostCopyBandwidth) {
  const Outcome o = run_acclab({"info", "--probe", "--format", "json"});
  ASSERT_EQ(o.status, 0) << o;
  auto doc = parse_json(o.out);
  ASSERT_TRUE(doc["limits"]["host_copy_gbytes_per_s"].is_number()) << doc.dump(2);
  EXPECT_GT(doc["limits"]["host_copy_gbytes_per_s"].get<double>(), 0);
  if (doc["devices"].empty()) EXPECT_FALSE(doc["limits"].contains("device_copy_gbytes_per_s"));
}

TEST(CliInfoTest, ProbeIsKeptPerMachineAndRemeasuredOnRequest) {
  TempDir cache;
  ScopedEnvironment variable("ACCLAB_CACHE_DIR", cache.path().string());
  // Not the busy-machine default: a figure measured beside the other tests is marked busy and
  // measured again by the first run that finds the machine idle, which would make the second
  // run's origin depend on the load.
  ScopedEnvironment load("ACCLAB_HOST_LOAD", "ignore");
  const auto run_vector = [] {
    return run_acclab(with({"run", "vector", "--variant", "original", "--format", "json"}, tiny));
  };
  const Outcome first = run_vector();
  ASSERT_EQ(first.status, 0) << first;
  const auto measured = parse_json(first.out)["limits"];
  EXPECT_EQ(measured["host_copy_origin"].get<std::string>().rfind("measured now", 0), 0u)
      << measured.dump();
  const auto cached = parse_json(read_file(cache.path() / "host-copy.json"));
  ASSERT_EQ(cached.size(), 1u) << cached.dump();
  EXPECT_EQ(cached.begin().value()["gbytes_per_s"], measured["host_copy_gbytes_per_s"]);

  const Outcome second = run_vector();
  ASSERT_EQ(second.status, 0) << second;
  const auto reused = parse_json(second.out)["limits"];
  EXPECT_EQ(reused["host_copy_gbytes_per_s"], measured["host_copy_gbytes_per_s"]);
  EXPECT_NE(reused["host_copy_origin"].get<std::string>().find("cached in"), std::string::npos)
      << reused.dump();

  const Outcome probe = run_acclab({"info", "--probe", "--format", "json"});
  ASSERT_EQ(probe.status, 0) << probe;
  EXPECT_EQ(parse_json(probe.out)["limits"]["host_copy_origin"].get<std::string>().rfind(
                "measured now", 0),
            0u);
}

TEST(CliInfoTest, TableMentionsCoresAndCompiler) {
  const Outcome o = run_acclab({"info"});
  ASSERT_EQ(o.status, 0) << o;
  EXPECT_NE(o.out.find("cores"), std::string::npos) << o;
  EXPECT_NE(o.out.find("compiler"), std::string::npos) << o;
}

}  // namespace
}  // namespace acclab::cli_test
