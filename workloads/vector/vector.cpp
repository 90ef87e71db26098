// Problem definition, parameters and verification shared by every vector variant.
#include "workloads/vector/vector.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace acclab::vector {

Size size_of(const Params& params) {
  return {params.integer("nx"), params.integer("ny"), params.integer("nt")};
}

Workload make_workload() {
  Workload w;
  w.name = "vector";
  w.description = "course openacc_basic: c += a + b for nt steps, then the mean; triad and dot";
  w.params = {
      {.key = "nx",
       .help = "array width",
       .presets = {{"seed", "4096"}, {"small", "2048"}, {"large", "16384"}}},
      {.key = "ny",
       .help = "array height",
       .presets = {{"seed", "4096"}, {"small", "2048"}, {"large", "16384"}}},
      {.key = "nt",
       .help = "time steps (passes for triad and dot)",
       .presets = {{"seed", "1000"}, {"small", "10"}, {"large", "20"}}},
  };
  w.validate = [](const Params& params) {
    // Checked factor by factor so that nothing below can overflow.
    constexpr std::int64_t max_elements = std::int64_t(1) << 34;
    const std::int64_t nx = params.integer("nx"), ny = params.integer("ny");
    if (nx > max_elements || ny > max_elements / nx) {
      throw UsageError(
          fmt::format("--set nx={} ny={}: more than 2^34 elements, the most this "
                      "workload indexes",
                      nx, ny));
    }
    // c reaches 3*nt, which must stay an exact float integer for exact verification.
    const std::int64_t nt = params.integer("nt");
    if (nt > (1 << 24) / 3) {
      throw UsageError(fmt::format("--set nt={}: above {}, 3*nt is no longer exact in float", nt,
                                   (1 << 24) / 3));
    }
  };
  // Three float arrays of n elements on the host, and the same on the device.
  w.host_bytes = [](const Params& params) { return 3.0 * sizeof(float) * size_of(params).n(); };
  w.device_bytes = w.host_bytes;
  return w;
}

CourseInstance::CourseInstance(const Params& params) : size_(size_of(params)) {}

void CourseInstance::setup() {
  const auto n = static_cast<std::size_t>(size_.n());
  a_.assign(n, a_init);
  b_.assign(n, std::numeric_limits<float>::quiet_NaN());
  c_.assign(n, std::numeric_limits<float>::quiet_NaN());
}

Verification CourseInstance::verify() {
  const double expected = static_cast<double>(size_.nt) * (a_init + b_init);
  Verification v;
  v.outputs["mean"] = mean_;
  if (c_on_host_) {
    for (std::size_t i = 0; i < c_.size(); ++i) {
      if (c_[i] != static_cast<float>(expected)) {
        v.detail = fmt::format("c[{}] = {} but nt*(a+b) = {}", i, c_[i], expected);
        return v;
      }
    }
  }
  if (mean_ != expected) {
    v.detail = fmt::format("mean = {} but nt*(a+b) = {}", mean_, expected);
    return v;
  }
  v.ok = true;
  v.detail = fmt::format(
      fmt::runtime(c_on_host_ ? "all {} elements of c and the mean equal {}"
                              : "the mean of the {} elements left on the device equals {}"),
      c_.size(), expected);
  return v;
}

void CourseInstance::mean_on_host() {
  double sum = 0.0;
  for (float value : c_) sum += value;
  mean_ = sum / static_cast<double>(c_.size());
}

void CourseInstance::corrupt_result() {
  if (!c_.empty()) c_[c_.size() / 2] += 1.0f;
  mean_ += 1.0 / static_cast<double>(size_.n());
}

StreamInstance::StreamInstance(const Params& params, Kernel kernel)
    : size_(size_of(params)), kernel_(kernel) {}

void StreamInstance::setup() {
  const auto n = static_cast<std::size_t>(size_.n());
  a_.assign(n, std::numeric_limits<float>::quiet_NaN());
  b_.resize(n);
  c_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    b_[i] = 0.25f * static_cast<float>(i % 16);
    c_[i] = static_cast<float>(i % 5);
  }
}

Verification StreamInstance::verify() {
  Verification v;
  if (kernel_ == Kernel::triad) {
    for (std::size_t i = 0; i < a_.size(); ++i) {
      const float expected = b_[i] + triad_scalar * c_[i];
      if (a_[i] != expected) {
        v.detail = fmt::format("a[{}] = {} but b + {}*c = {}", i, a_[i], triad_scalar, expected);
        return v;
      }
    }
    v.ok = true;
    v.detail = fmt::format("all {} elements of a equal b + {}*c", a_.size(), triad_scalar);
    return v;
  }
  double expected = 0;
  for (std::size_t i = 0; i < b_.size(); ++i) expected += double(b_[i]) * double(c_[i]);
  v.outputs["dot"] = dot_;
  if (dot_ != expected) {
    v.detail = fmt::format("dot = {} but the serial sum is {}", dot_, expected);
    return v;
  }
  v.ok = true;
  v.detail = fmt::format("dot equals the serial sum {} exactly", expected);
  return v;
}

void StreamInstance::corrupt_result() {
  if (!a_.empty()) a_[a_.size() / 3] += 1.0f;
  dot_ += 1.0;
}

}  // namespace acclab::vector
