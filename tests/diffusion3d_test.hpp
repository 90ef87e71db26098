// What diffusion3d's tests share (diffusion3d_problem_test.cpp, diffusion3d_variants_test.cpp,
// diffusion3d_cli_test.cpp): the workload's registry entries and parameters, the result field of
// any instance, and the documented stencil written here.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <numbers>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/machine.hpp"
#include "core/registry.hpp"
#include "core/runner.hpp"
#include "support.hpp"
#ifdef ACCLAB_HAVE_CUDA
#include "workloads/diffusion3d/cuda_host.hpp"
#endif
#include "workloads/diffusion3d/diffusion3d.hpp"

namespace acclab::diffusion3d_test {

using diffusion3d::discrete_solution;
using diffusion3d::Problem;
using diffusion3d::rounding_bound;
using diffusion3d::truncation_bound;
using test::is_usage_error;
using test::Outcome;
using test::parse_json;
using test::run_acclab;

inline constexpr double float_eps = std::numeric_limits<float>::epsilon();
inline constexpr double two_pi = 2 * std::numbers::pi;

inline const Workload& diffusion_workload() { return test::all().workload("diffusion3d"); }

inline const Variant& diffusion_variant(const std::string& name) {
  return test::variant_of("diffusion3d", name);
}

inline std::vector<std::string> diffusion_variant_names() {
  return test::variant_names("diffusion3d");
}

inline Params diffusion_params(const std::vector<std::string>& overrides,
                               const std::string& preset = "small") {
  return test::params_of("diffusion3d", overrides, preset);
}

inline Problem problem(const std::vector<std::string>& overrides,
                       const std::string& preset = "small") {
  return diffusion3d::problem_of(diffusion_params(overrides, preset));
}

inline std::string validate_error(const std::vector<std::string>& overrides,
                                  const std::string& preset = "small") {
  return test::validate_error("diffusion3d", overrides, preset);
}

// validate_error, then `step`'s own check (its tunings).
inline std::string check_error(const std::string& step, const std::vector<std::string>& overrides) {
  return test::check_error("diffusion3d", step, overrides);
}

inline bool has_variant(const std::string& name) {
  const auto names = diffusion_variant_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

inline std::int64_t index_of(const Problem& p, std::int64_t i, std::int64_t j, std::int64_t k) {
  return (k * p.ny + j) * p.nx + i;
}

inline double sum_of(const float* f, std::int64_t n) {
  double sum = 0;
  for (std::int64_t m = 0; m < n; ++m) sum += f[m];
  return sum;
}

// The result field of any diffusion3d instance (result_ is protected: a pointer to member
// named through a derived class reaches it). Never constructed.
struct ResultOf : diffusion3d::DiffusionInstance {
  static const float* of(const Instance& instance) {
    const auto& d = dynamic_cast<const diffusion3d::DiffusionInstance&>(instance);
    return d.*(&ResultOf::result_);
  }
};

// The documented stencil written here rather than taken from the workload: the mirror walls as
// clamped indices, the seven products summed in the course's order (cc, e, w, n, s, t, b).
inline std::vector<float> stencil_by_hand(const Problem& p, std::int64_t steps) {
  std::vector<float> f = diffusion3d::initial_field(p), fn = f;
  auto at = [&](const std::vector<float>& g, std::int64_t i, std::int64_t j, std::int64_t k) {
    i = std::clamp<std::int64_t>(i, 0, p.nx - 1);
    j = std::clamp<std::int64_t>(j, 0, p.ny - 1);
    k = std::clamp<std::int64_t>(k, 0, p.nz - 1);
    return g[index_of(p, i, j, k)];
  };
  for (std::int64_t s = 0; s < steps; ++s) {
    for (std::int64_t k = 0; k < p.nz; ++k) {
      for (std::int64_t j = 0; j < p.ny; ++j) {
        for (std::int64_t i = 0; i < p.nx; ++i) {
          fn[index_of(p, i, j, k)] = p.cc * at(f, i, j, k) + p.ce * at(f, i + 1, j, k) +
                                     p.cw * at(f, i - 1, j, k) + p.cn * at(f, i, j + 1, k) +
                                     p.cs * at(f, i, j - 1, k) + p.ct * at(f, i, j, k + 1) +
                                     p.cb * at(f, i, j, k - 1);
        }
      }
    }
    std::swap(f, fn);
  }
  return f;
}

}  // namespace acclab::diffusion3d_test
