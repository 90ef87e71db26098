// What jacobi2d's tests share (jacobi2d_problem_test.cpp, jacobi2d_variants_test.cpp,
// jacobi2d_cli_test.cpp): the workload's registry entries and parameters, the serial sweep
// written from the formula, and the result grid of any instance.
#pragma once

#include "workloads/jacobi2d/jacobi2d.hpp"
#ifdef ACCLAB_HAVE_MPI
#include "workloads/jacobi2d/mpi_blocks.hpp"
#endif

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <numbers>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/machine.hpp"
#include "core/registry.hpp"
#include "core/runner.hpp"
#include "support.hpp"

namespace acclab::jacobi2d_test {

using test::is_usage_error;
using test::Outcome;
using test::parse_json;
using test::run_acclab;

inline constexpr double float_eps = std::numeric_limits<float>::epsilon();

inline const Workload& jacobi_workload() { return test::all().workload("jacobi2d"); }

inline const Variant& jacobi_variant(const std::string& name) {
  return test::variant_of("jacobi2d", name);
}

inline std::vector<std::string> jacobi_variant_names() { return test::variant_names("jacobi2d"); }

inline Params jacobi_params(const std::vector<std::string>& overrides,
                            const std::string& preset = "small") {
  return test::params_of("jacobi2d", overrides, preset);
}

inline std::string validate_error(const std::vector<std::string>& overrides,
                                  const std::string& preset = "small") {
  return test::validate_error("jacobi2d", overrides, preset);
}

// max |u| over the grid: u = x^2 + y^2 is largest at the corner (height, width).
inline double umax_of(const Params& params) {
  return params.real("height") * params.real("height") +
         params.real("width") * params.real("width");
}

// The documented serial sweep, written here from the formula rather than taken from the
// workload: u_new = (c1f + wy2*(up + down) + hx2*(left + right)) * c2 on interior points,
// boundaries untouched. Same float operations in the same order as the seed.
inline std::vector<float> serial_by_hand(const jacobi2d::Problem& p, std::int64_t sweeps) {
  std::vector<float> u = jacobi2d::initial_grid(p), next = u;
  const std::int64_t R = p.rows, C = p.cols;
  for (std::int64_t s = 0; s < sweeps; ++s) {
    for (std::int64_t i = 1; i < R - 1; ++i) {
      for (std::int64_t j = 1; j < C - 1; ++j) {
        const float up = u[(i - 1) * C + j], down = u[(i + 1) * C + j];
        const float left = u[i * C + j - 1], right = u[i * C + j + 1];
        next[i * C + j] = (p.c1f + p.wy2 * (up + down) + p.hx2 * (left + right)) * p.c2;
      }
    }
    std::swap(u, next);
  }
  return u;
}

// The result grid of any jacobi2d instance (result_ is protected: a pointer to member named
// through a derived class reaches it). Never constructed.
struct ResultOf : jacobi2d::JacobiInstance {
  static const float* of(const Instance& instance) {
#ifdef ACCLAB_HAVE_MPI
    if (const auto* m = dynamic_cast<const jacobi2d::MpiJacobiInstance*>(&instance)) {
      return m->gathered();
    }
#endif
    const auto& j = dynamic_cast<const jacobi2d::JacobiInstance&>(instance);
    return j.*(&ResultOf::result_);
  }
};

}  // namespace acclab::jacobi2d_test
