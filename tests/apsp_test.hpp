// What apsp's tests share (apsp_problem_test.cpp, apsp_variants_test.cpp, apsp_cli_test.cpp,
// apsp_command_test.cpp): the workload's parameters, the serial loop's result, which steps keep
// successors, and the graph files.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/machine.hpp"
#include "core/registry.hpp"
#include "core/runner.hpp"
#include "io/dense_matrix.hpp"
#include "io/graph.hpp"
#include "support.hpp"
#include "workloads/apsp/apsp.hpp"
#include "workloads/apsp/graph_solve.hpp"
#ifdef ACCLAB_HAVE_MPI
#include "workloads/apsp/mpi_blocks.hpp"
#endif

namespace acclab::apsp_test {

// Whether the apsp variant keeps successors: its row in ladder.json lists the tuning paths.
inline bool keeps_paths(const std::string& name) {
  const auto& tunings = test::variant_of("apsp", name).tunings;
  return std::find(tunings.begin(), tunings.end(), "paths") != tunings.end();
}

using apsp::Problem;
using apsp::Semiring;
using test::is_usage_error;
using test::Outcome;
using test::parse_json;
using test::run_acclab;

inline constexpr float inf = std::numeric_limits<float>::infinity();

inline Params apsp_params(const std::vector<std::string>& overrides,
                          const std::string& preset = "small") {
  return test::params_of("apsp", overrides, preset);
}

inline Problem problem(const std::vector<std::string>& overrides,
                       const std::string& preset = "small") {
  return apsp::problem_of(apsp_params(overrides, preset));
}

inline bool bitwise_equal(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

inline std::vector<float> serial_result(const Problem& p) {
  std::vector<float> d = apsp::initial_matrix(p, apsp::generate_graph(p));
  for (int k = 0; k < p.n; ++k) apsp::relax_rows(p, d.data(), k, 0, p.n);
  return d;
}

inline bool multidevice_built() {
  const auto names = test::variant_names("apsp");
  return std::find(names.begin(), names.end(), "multidevice") != names.end();
}

inline std::string graph_file(const std::string& name) {
  return (std::filesystem::path(ACCLAB_TEST_DATA) / "graphs" / name).string();
}

inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

}  // namespace acclab::apsp_test
