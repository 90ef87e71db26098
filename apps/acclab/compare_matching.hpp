// compare's matching: result files labelled A, B, ..., the provenance in which they differ, and
// each step of the baseline paired with the same step of every later file and tested
// (core/compare_stats.hpp). compare_reports.hpp writes what this finds.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/compare_stats.hpp"
#include "core/run_file.hpp"

namespace acclab::compare {

struct ResultFile : RunFile {
  std::string label;  // A, B, C, ...: the baseline is A
};

// The result file at `path`, checked as read_run_file checks it, labelled by its `position`
// among the files given ("A", "B", ..., "Z", then "F27", "F28", ...).
ResultFile read_result_file(const std::string& path, std::size_t position);

// What a file does not record: no difference with anything (an OpenMP target place exists only
// where such a step ran; older files lack newer fields).
inline const std::string kNotRecorded = "-";

struct ProvenanceDifference {
  std::string name;
  std::vector<std::string> values;  // one per file, in the files' order; kNotRecorded if absent
};

// What a row's test compared: each side's timed runs of one process, or where both files ran
// the step in several processes (run --invocations), each process's median.
enum class Tested { repetitions, invocations };

const char* to_string(Tested tested);

struct Row {
  const ResultFile* baseline;
  const ResultFile* file;
  const RunStep* before;  // the baseline's step
  const RunStep* after;   // the same step in `file`
  Tested tested;
  stats::StepComparison comparison;

  const std::vector<double>& sample(const RunStep& step) const {
    return tested == Tested::invocations ? step.invocations_median_s : step.times_s;
  }
};

// A step of one file that has no comparison: in that file alone, or not timed on one side.
struct Unmatched {
  const ResultFile* file;   // where the step is
  const ResultFile* other;  // the file it was looked for in
  const RunStep* step;
  std::string reason;
};

// Rows and Unmatched point into `files`: a Comparison is moved, never copied.
struct Comparison {
  std::vector<ResultFile> files;
  std::vector<ProvenanceDifference> provenance;
  std::vector<Row> rows;
  std::vector<Unmatched> unmatched;
  std::vector<std::string> files_not_compared;  // why, for each file left out (lenient only)
};

// What a file with no step to compare with the baseline's does: stops the command (compare),
// or is left out and said so (report, whose page shows the files' steps anyway).
enum class NothingInCommon { refuse, leave_out };

// Each of files[1..] against files[0]. Throws UsageError for a file with no step verified and
// timed in both where `nothing_in_common` is refuse.
Comparison compare_files(std::vector<ResultFile> files, double noise_percent,
                         NothingInCommon nothing_in_common = NothingInCommon::refuse);

}  // namespace acclab::compare
