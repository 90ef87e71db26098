// What the command line's tests share (cli_list_test.cpp, cli_run_test.cpp, cli_out_test.cpp).
#pragma once

#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/machine.hpp"
#include "support.hpp"
#include "workloads/vector/course_values.hpp"

namespace acclab::cli_test {

namespace fs = std::filesystem;

using test::cuda_gpu_here;
using test::is_usage_error;
using test::openacc_gpu_here;
using test::Outcome;
using test::parse_json;
using test::read_file;
using test::run_acclab;
using test::TempDir;

// Sets an environment variable for the children the test starts, and restores it.
class ScopedEnvironment {
 public:
  ScopedEnvironment(std::string name, const std::string& value) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) old_ = old;
    setenv(name_.c_str(), value.c_str(), 1);
  }
  ~ScopedEnvironment() {
    if (old_) {
      setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      unsetenv(name_.c_str());
    }
  }

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// The mean of c after nt steps of the course (c[i] = nt * (a[i] + b[i])), summed in double as
// the workload sums it.
inline double course_mean(std::int64_t nx, std::int64_t ny, std::int64_t nt) {
  double sum = 0;
  for (std::int64_t i = 0; i < nx * ny; ++i) {
    sum += double(float(nt) * (vector::course_a(i) + vector::course_b(i)));
  }
  return sum / double(nx * ny);
}

// Where the text after the first column starts on each line that begins with `first` (the
// column width that line was printed with).
inline std::size_t second_column(const std::string& line, const std::string& first) {
  return line.find_first_not_of(' ', line.find(first) + first.size());
}

// Small sizes for tests that check the command line, not the variants.
inline const std::vector<std::string> tiny = {"--set", "nx=37", "--set", "ny=5", "--set", "nt=3"};

using test::with;

// A command line refused as bad usage, with a line on stderr that names `names`
// (test::BadInputTest).
inline test::BadInput usage(std::string name, std::vector<std::string> args, std::string names) {
  return {std::move(name), std::move(args), {std::move(names)}};
}

}  // namespace acclab::cli_test
