// Reporters: the JSON document (schema acclab.run/1), CSV and the table, built from results
// made here so that every field has a known value.
#include "core/report.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"

namespace acclab {
namespace {

// Variants the results point at; only their identity is read by the reporters.
Variant make_variant(const std::string& name, Backend backend, int step) {
  Variant v;
  v.workload = "vector";
  v.name = name;
  v.backend = backend;
  v.family = "course";
  v.step = step;
  v.description = "test variant " + name;
  return v;
}

const Variant& verified_variant() {
  static const Variant v = make_variant("original", Backend::serial, 1);
  return v;
}
const Variant& failed_variant() {
  static const Variant v = make_variant("acc_loop", Backend::openacc, 4);
  return v;
}
const Variant& unavailable_variant() {
  static const Variant v = make_variant("cuda", Backend::cuda, 8);
  return v;
}

Params test_params() {
  Params p;
  p.set("nx", 37);
  p.set("ny", 5);
  p.set("nt", 3);
  return p;
}

// Three results covering the three statuses: timed with every optional field, timed and
// failed with an error holding CSV's special characters, and unavailable (never timed).
std::vector<Result> test_results() {
  Result verified;
  verified.variant = &verified_variant();
  verified.params = test_params();
  verified.reps = 3;
  verified.times_s = {0.003, 0.001, 0.002};
  verified.min_s = 0.001;
  verified.median_s = 0.002;
  verified.max_s = 0.003;
  verified.setup_s = 0.5;
  verified.transfer_s = 0.0005;
  verified.copy_out_s = 0.25;
  verified.gflops = 1.5;
  verified.gbytes_per_s = 12.0;
  verified.limit_gbytes_per_s = 48.0;
  verified.limit_fraction = 0.25;
  verified.status = Status::verified;
  verified.verification = "all 185 elements of c and the mean equal 9";
  verified.outputs = {{"mean", 9.0}};
  verified.speedup_vs_first = 1.0;

  Result failed = verified;
  failed.variant = &failed_variant();
  failed.transfer_s.reset();
  failed.limit_fraction.reset();
  failed.limit_gbytes_per_s.reset();
  failed.status = Status::failed;
  failed.error = "c[92] = 10, but \"nt*(a+b)\" = 9";
  failed.note = "no GPU: OpenACC ran on the host";
  failed.speedup_vs_first.reset();

  Result unavailable;
  unavailable.variant = &unavailable_variant();
  unavailable.params = test_params();
  unavailable.reps = 3;
  unavailable.status = Status::unavailable;
  unavailable.note = "no CUDA GPU on this machine";
  return {verified, failed, unavailable};
}

ReportContext test_context(const std::string& command = "run") {
  ReportContext c;
  c.command = command;
  c.workload = "vector";
  c.preset = "small";
  c.host = {{"hostname", "testhost"}, {"cpu", "Test CPU"}, {"cores", 4}};
  c.devices = nlohmann::json::array();
  c.compiler = {{"cxx", "GNU 12.2.0"}};
  c.limits = {{"host_copy_gbytes_per_s", 48.0}};
  return c;
}

std::string report(const std::string& format, const std::vector<Result>& results,
                   const ReportContext& context = test_context()) {
  std::ostringstream out;
  auto reporter = make_reporter(format, out);
  reporter->report_context(context);
  reporter->report_runs(results);
  reporter->finalize();
  return out.str();
}

// Splits CSV text into records of fields, honouring quotes ("" inside quotes is one ").
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      record.push_back(field);
      field.clear();
    } else if (c == '\n') {
      record.push_back(field);
      field.clear();
      records.push_back(record);
      record.clear();
    } else {
      field += c;
    }
  }
  EXPECT_FALSE(quoted) << "unterminated quote";
  EXPECT_TRUE(field.empty() && record.empty()) << "last record has no newline";
  return records;
}

TEST(JsonReportTest, DocumentHasTheSchemaAndContext) {
  auto doc = nlohmann::json::parse(report("json", test_results()));
  EXPECT_EQ(doc["schema"], "acclab.run/1");
  EXPECT_EQ(doc["command"], "run");
  EXPECT_EQ(doc["workload"], "vector");
  EXPECT_EQ(doc["preset"], "small");
  EXPECT_EQ(doc["host"], test_context().host);
  ASSERT_TRUE(doc["devices"].is_array());
  EXPECT_EQ(doc["compiler"], test_context().compiler);
  EXPECT_EQ(doc["limits"], test_context().limits);
  ASSERT_TRUE(doc["results"].is_array());
  EXPECT_EQ(doc["results"].size(), 3u);
}

TEST(JsonReportTest, EveryResultHasTheSchemaFields) {
  auto doc = nlohmann::json::parse(report("json", test_results()));
  for (auto& r : doc["results"]) {
    SCOPED_TRACE(r.dump());
    for (const char* field :
         {"workload", "variant", "backend", "step", "params", "reps", "time_s", "setup_s",
          "transfer_s", "gflops", "gbytes_per_s", "limit_fraction", "status", "error", "note"}) {
      EXPECT_TRUE(r.contains(field)) << "missing " << field;
    }
    for (const char* field : {"min", "median", "max"}) {
      EXPECT_TRUE(r["time_s"].contains(field)) << "missing time_s." << field;
    }
    EXPECT_EQ(r["workload"], "vector");
    EXPECT_EQ(r["params"], (nlohmann::json{{"nx", 37}, {"ny", 5}, {"nt", 3}}));
    EXPECT_EQ(r["reps"], 3);
  }
}

TEST(JsonReportTest, ValuesOfATimedResult) {
  auto r = nlohmann::json::parse(report("json", test_results()))["results"][0];
  EXPECT_EQ(r["variant"], "original");
  EXPECT_EQ(r["backend"], "serial");
  EXPECT_EQ(r["step"], 1);
  EXPECT_EQ(r["status"], "verified");
  EXPECT_DOUBLE_EQ(r["time_s"]["min"].get<double>(), 0.001);
  EXPECT_DOUBLE_EQ(r["time_s"]["median"].get<double>(), 0.002);
  EXPECT_DOUBLE_EQ(r["time_s"]["max"].get<double>(), 0.003);
  EXPECT_DOUBLE_EQ(r["setup_s"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(r["transfer_s"].get<double>(), 0.0005);
  EXPECT_DOUBLE_EQ(r["gflops"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(r["gbytes_per_s"].get<double>(), 12.0);
  EXPECT_DOUBLE_EQ(r["limit_fraction"].get<double>(), 0.25);
  EXPECT_TRUE(r["error"].is_null());
  EXPECT_TRUE(r["note"].is_null());
  EXPECT_EQ(r["outputs"]["mean"], 9.0);
  EXPECT_EQ(r["times_s"].size(), 3u);
  EXPECT_DOUBLE_EQ(r["speedup_vs_first"].get<double>(), 1.0);
  EXPECT_FALSE(r.contains("speedup_vs_previous"));
}

TEST(JsonReportTest, ValuesOfFailedAndUnavailableResults) {
  auto results = nlohmann::json::parse(report("json", test_results()))["results"];
  auto& failed = results[1];
  EXPECT_EQ(failed["status"], "failed");
  EXPECT_EQ(failed["backend"], "openacc");
  EXPECT_EQ(failed["error"], "c[92] = 10, but \"nt*(a+b)\" = 9");
  EXPECT_EQ(failed["note"], "no GPU: OpenACC ran on the host");
  EXPECT_TRUE(failed["transfer_s"].is_null());
  EXPECT_TRUE(failed["limit_fraction"].is_null());
  EXPECT_FALSE(failed.contains("speedup_vs_first"));

  // Never timed: every time and rate is null rather than a misleading 0.
  auto& unavailable = results[2];
  EXPECT_EQ(unavailable["status"], "unavailable");
  EXPECT_EQ(unavailable["backend"], "cuda");
  EXPECT_EQ(unavailable["note"], "no CUDA GPU on this machine");
  EXPECT_TRUE(unavailable["error"].is_null());
  for (const char* field : {"min", "median", "max"}) {
    EXPECT_TRUE(unavailable["time_s"][field].is_null()) << field;
  }
  for (const char* field : {"setup_s", "transfer_s", "gflops", "gbytes_per_s", "limit_fraction"}) {
    EXPECT_TRUE(unavailable[field].is_null()) << field;
  }
}

TEST(JsonReportTest, NoResultsIsAnEmptyList) {
  auto doc = nlohmann::json::parse(report("json", {}));
  EXPECT_EQ(doc["schema"], "acclab.run/1");
  EXPECT_EQ(doc["results"], nlohmann::json::array());
}

TEST(JsonReportTest, ResultToJsonCarriesLadderSpeedups) {
  Result r = test_results()[0];
  r.speedup_vs_first = 4.0;
  r.speedup_vs_previous = 2.0;
  auto j = result_to_json(r);
  EXPECT_DOUBLE_EQ(j["speedup_vs_first"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(j["speedup_vs_previous"].get<double>(), 2.0);
  // transfer_s over median_s.
  EXPECT_DOUBLE_EQ(j["transfer_share"].get<double>(), 0.25);
}

// Whether the profile notes of an OpenACC step run on a GPU, its OpenACC launches recorded in
// `regions`, say that the step ran one gang.
bool notes_one_gang(const std::vector<profile::RegionProfile>& regions) {
  Result r;
  r.variant = &failed_variant();  // an OpenACC variant
  r.place = Place::gpu;
  profile::Profile p;
  p.openacc_callbacks = true;
  p.regions = regions;
  r.profile = p;
  const auto notes = profile_notes(r);
  return std::any_of(notes.begin(), notes.end(), [](const std::string& note) {
    return note.find("one gang") != std::string::npos;
  });
}

// The profile says when an OpenACC step's every launch had one gang (GCC's sequential fallback)
// and stays quiet when any launch had more.
TEST(ProfileNotesTest, OneGangOnlyWhenEveryLaunchHadOne) {
  const auto notes_with_gangs = [](std::vector<std::uint64_t> gangs) {
    profile::RegionProfile region;
    region.path = "matmul/acc_tile";
    for (std::uint64_t g : gangs) {
      profile::Stats stats;
      stats.add(1e-3);
      region.acc_launches.push_back({{"kernel" + std::to_string(g), g, 1, 32}, stats});
    }
    return notes_one_gang({region});
  };
  EXPECT_TRUE(notes_with_gangs({1}));
  EXPECT_TRUE(notes_with_gangs({1, 1}));
  EXPECT_FALSE(notes_with_gangs({1, 132}));
  EXPECT_FALSE(notes_with_gangs({}));
}

// On a GPU the runner's reset between runs launches a wide copy kernel (8448 gangs for matmul on
// an H200): the note looks at the timed runs' launches, where the runner labelled them.
TEST(ProfileNotesTest, OneGangLooksAtTheTimedRunsNotTheReset) {
  const auto notes_with = [](std::uint64_t reset_gangs, std::uint64_t timed_gangs) {
    profile::Stats stats;
    stats.add(1e-3);
    profile::RegionProfile reset, timed;
    reset.path = "matmul/acc_tile/reset";
    reset.acc_launches.push_back({{"reset", reset_gangs, 1, 32}, stats});
    timed.path = "matmul/acc_tile/timed runs";
    timed.acc_launches.push_back({{"multiply", timed_gangs, 1, 32}, stats});
    return notes_one_gang({reset, timed});
  };
  EXPECT_TRUE(notes_with(8448, 1));
  EXPECT_FALSE(notes_with(8448, 9504));
  EXPECT_FALSE(notes_with(1, 132));
}

TEST(CsvReportTest, HeaderAndOneRecordPerResult) {
  const auto records = parse_csv(report("csv", test_results()));
  ASSERT_EQ(records.size(), 4u);
  const auto& header = records[0];
  for (const char* column : {"workload", "variant", "backend", "step", "params", "reps", "median_s",
                             "status", "error", "note"}) {
    EXPECT_NE(std::find(header.begin(), header.end(), column), header.end()) << column;
  }
  for (std::size_t i = 1; i < records.size(); ++i) {
    EXPECT_EQ(records[i].size(), header.size()) << "record " << i;
  }
}

TEST(CsvReportTest, FieldsRoundTrip) {
  const auto records = parse_csv(report("csv", test_results()));
  ASSERT_EQ(records.size(), 4u);
  const auto& header = records[0];
  auto field = [&](std::size_t record, const std::string& column) {
    const auto at = std::find(header.begin(), header.end(), column) - header.begin();
    return records.at(record).at(static_cast<std::size_t>(at));
  };
  EXPECT_EQ(field(1, "variant"), "original");
  EXPECT_EQ(field(1, "status"), "verified");
  EXPECT_DOUBLE_EQ(std::stod(field(1, "median_s")), 0.002);
  // The params column holds JSON with commas: it must come back whole.
  EXPECT_EQ(nlohmann::json::parse(field(1, "params")),
            (nlohmann::json{{"nx", 37}, {"ny", 5}, {"nt", 3}}));
  EXPECT_EQ(field(2, "status"), "failed");
  EXPECT_EQ(field(2, "error"), "c[92] = 10, but \"nt*(a+b)\" = 9");
  EXPECT_EQ(field(3, "status"), "unavailable");
  EXPECT_EQ(field(3, "median_s"), "");  // not timed: empty, not 0
  EXPECT_EQ(field(3, "note"), "no CUDA GPU on this machine");
}

TEST(CsvReportTest, NoResultsIsTheHeaderAlone) {
  const auto records = parse_csv(report("csv", {}));
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].front(), "workload");
}

TEST(TableReportTest, NamesEveryVariantAndItsStatus) {
  const std::string table = report("table", test_results());
  // Each result is one row holding its variant name and its status.
  for (const auto& [name, status] : std::vector<std::pair<std::string, std::string>>{
           {"original", "verified"}, {"acc_loop", "failed"}, {"cuda", "unavailable"}}) {
    int rows = 0;
    std::istringstream lines(table);
    std::string line;
    while (std::getline(lines, line)) {
      if (line.find(" " + name + " ") != std::string::npos &&
          line.find(" " + status + " ") != std::string::npos) {
        ++rows;
      }
    }
    EXPECT_EQ(rows, 1) << name << " " << status << " in\n" << table;
  }
  EXPECT_NE(table.find("Test CPU"), std::string::npos);
  EXPECT_NE(table.find(format_seconds(0.002)), std::string::npos);
  EXPECT_NE(table.find("no CUDA GPU on this machine"), std::string::npos);
  EXPECT_NE(table.find("\"nt*(a+b)\""), std::string::npos) << "the error is shown";
  // Ladder columns appear only for a ladder.
  EXPECT_EQ(table.find("vs 1st"), std::string::npos);
}

TEST(TableReportTest, LadderShowsSpeedups) {
  auto results = test_results();
  results[0].speedup_vs_first = 1.0;
  const std::string table = report("table", results, test_context("ladder"));
  EXPECT_NE(table.find("vs 1st"), std::string::npos);
  EXPECT_NE(table.find("1.00x"), std::string::npos);
}

TEST(FormatSecondsTest, PicksTheUnit) {
  EXPECT_EQ(format_seconds(1.23), "1.23 s");
  EXPECT_EQ(format_seconds(2.0), "2 s");
  EXPECT_EQ(format_seconds(0.0123), "12.3 ms");
  EXPECT_EQ(format_seconds(1e-3), "1 ms");
  EXPECT_EQ(format_seconds(456e-6), "456 µs");
  EXPECT_EQ(format_seconds(5e-7), "0.5 µs");
}

// Values that round up to the next unit must not print as "1e+03 ms".
TEST(FormatSecondsTest, RoundsAcrossUnitBoundaries) {
  EXPECT_EQ(format_seconds(0.9996), "1 s");
  EXPECT_EQ(format_seconds(0.0009996), "1 ms");
}

TEST(MakeReporterTest, KnowsThreeFormats) {
  std::ostringstream out;
  for (const char* format : {"table", "json", "csv"}) {
    EXPECT_NE(make_reporter(format, out), nullptr) << format;
  }
  try {
    make_reporter("xml", out);
    FAIL() << "no UsageError for --format xml";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--format xml"), std::string::npos) << e.what();
  }
  EXPECT_THROW(make_reporter("JSON", out), UsageError);
}

}  // namespace
}  // namespace acclab
