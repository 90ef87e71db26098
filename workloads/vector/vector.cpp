// Problem definition, parameters and verification shared by every vector variant.
#include "workloads/vector/vector.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <utility>

#include "core/compare.hpp"
#include "core/error.hpp"
#include "kit/omp_tuned.hpp"
#include "workloads/vector/omp_target_shapes.hpp"

namespace acclab::vector {

namespace {

// Each parameter of the Size, read here and nowhere else.
Size parse_size(const Params& params) {
  static const ProblemFields<Size> fields = [] {
    ProblemFields<Size> f;
    f.integer("nx", &Size::nx).integer("ny", &Size::ny).integer("nt", &Size::nt);
    return f;
  }();
  Size size;
  fields.fill(params, size);
  return size;
}

}  // namespace

const Size& size_of(const Params& params) { return params.problem(parse_size); }

Workload make_workload() {
  Workload w;
  w.name = "vector";
  w.description = "course openacc_basic: c += a + b for nt steps, then the mean; triad and dot";
  w.params = {
      {.key = "nx", .help = "array width", .presets = presets_of("4096", "2048", "16384")},
      {.key = "ny", .help = "array height", .presets = presets_of("4096", "2048", "16384")},
      {.key = "nt",
       .help = "time steps (passes for triad and dot)",
       .presets = presets_of("1000", "10", "20")},
  };
  w.validate = [](const Params& params) {
    // Checked factor by factor so that nothing below can overflow.
    constexpr std::int64_t max_elements = std::int64_t(1) << 34;
    const Size& size = size_of(params);
    const std::int64_t nx = size.nx, ny = size.ny, nt = size.nt;
    if (nx > max_elements || ny > max_elements / nx) {
      throw UsageError(
          fmt::format("--set nx={} ny={}: more than 2^34 elements, the most this "
                      "workload indexes",
                      nx, ny));
    }
    // c reaches course_max_sum*nt, which must stay an exact float integer, and the sum of c
    // (for the mean) an exact double integer, for exact verification.
    constexpr std::int64_t max_nt = ((std::int64_t(1) << 24) - 1) / course_max_sum;
    if (nt > max_nt) {
      throw UsageError(fmt::format("--set nt={}: above {}, {}*nt is no longer exact in float", nt,
                                   max_nt, course_max_sum));
    }
    if (nt * course_max_sum > (std::int64_t(1) << 53) / (nx * ny)) {
      throw UsageError(fmt::format(
          "--set nx={} ny={} nt={}: the sum of c for the mean passes 2^53, no longer exact in "
          "double",
          nx, ny, nt));
    }
  };
  // Three float arrays of n elements on the host, and the same on the device; the OpenACC dot
  // products' partial sums beside them.
  w.host_bytes = [](const Params& params) {
    return 3.0 * sizeof(float) * size_of(params).n() + sizeof(double) * acc_dot_partials;
  };
  w.device_bytes = w.host_bytes;
  return w;
}

namespace {

// The sum of i % m over i in [0, n).
std::int64_t sum_of_remainders(std::int64_t n, std::int64_t m) {
  const std::int64_t r = n % m;
  return n / m * (m * (m - 1) / 2) + r * (r - 1) / 2;
}

// |value - expected|, NaN when value is.
double difference(double value, double expected) { return std::fabs(value - expected); }

}  // namespace

double course_mean(std::int64_t n, std::int64_t nt) {
  // course_a + course_b = 3 + i%3 + i%5.
  const std::int64_t sum = 3 * n + sum_of_remainders(n, 3) + sum_of_remainders(n, 5);
  return static_cast<double>(nt * sum) / static_cast<double>(n);
}

Verification verify_course(std::int64_t n, std::int64_t nt, const std::vector<float>& c,
                           bool c_on_host, double mean) {
  Verification v;
  v.outputs["mean"] = mean;
  v.outputs["tolerance"] = 0.0;
  Difference worst;  // over c (indices 0 to n - 1) and the mean (index n)
  std::string first_wrong;
  if (c_on_host) {
    for (std::int64_t i = 0; i < n; ++i) {
      const double expected = double(nt) * (course_a(i) + course_b(i));
      const double d = difference(c[i], expected);
      if (!(d == 0) && first_wrong.empty()) {
        first_wrong = fmt::format("c[{}] = {} but nt*(a+b) = {}", i, c[i], expected);
      }
      fold_difference(worst, d, i);
    }
  }
  const double expected_mean = course_mean(n, nt);
  const double d = difference(mean, expected_mean);
  if (!(d == 0) && first_wrong.empty()) {
    first_wrong = fmt::format("mean = {} but {} steps give {}", mean, nt, expected_mean);
  }
  fold_difference(worst, d, n);
  v.outputs["difference"] = worst.value_or_nan();
  v.ok = worst.value == 0;
  v.detail =
      v.ok ? fmt::format(fmt::runtime(c_on_host ? "all {} elements of c equal nt*(a+b) and the "
                                                  "mean {}"
                                                : "the mean of the {} elements left on the "
                                                  "device equals {}"),
                         n, expected_mean)
           : first_wrong;
  return v;
}

CourseInstance::CourseInstance(const Params& params) : size_(size_of(params)) {}

void CourseInstance::setup() {
  const auto n = static_cast<std::size_t>(size_.n());
  a_.resize(n);
  for (std::size_t i = 0; i < n; ++i) a_[i] = course_a(std::int64_t(i));
  b_.assign(n, std::numeric_limits<float>::quiet_NaN());
  c_.assign(n, std::numeric_limits<float>::quiet_NaN());
}

Verification CourseInstance::verify_after(std::int64_t steps) const {
  return verify_course(size_.n(), steps, c_, c_on_host_, mean_);
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

double exact_dot(std::int64_t n) {
  std::int64_t quarters = 0;
  for (std::int64_t i = 0; i < n; ++i) quarters += (i % 16) * (i % 5);
  return static_cast<double>(quarters) / 4.0;
}

void StreamInstance::setup() {
  const auto n = static_cast<std::size_t>(size_.n());
  a_.assign(n, std::numeric_limits<float>::quiet_NaN());
  b_.resize(n);
  c_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    b_[i] = stream_b(std::int64_t(i));
    c_[i] = stream_c(std::int64_t(i));
  }
}

Verification StreamInstance::verify() {
  Verification v;
  v.outputs["tolerance"] = 0.0;
  if (kernel_ == Kernel::triad) {
    Difference worst;
    std::string first_wrong;
    for (std::size_t i = 0; i < a_.size(); ++i) {
      const auto at = std::int64_t(i);
      const float expected = stream_b(at) + triad_scalar * stream_c(at);  // exact in float
      const double d = difference(a_[i], expected);
      if (!(d == 0) && first_wrong.empty()) {
        first_wrong = fmt::format("a[{}] = {} but b + {}*c = {}", i, a_[i], triad_scalar, expected);
      }
      fold_difference(worst, d, at);
    }
    v.outputs["difference"] = worst.value_or_nan();
    v.ok = worst.value == 0;
    v.detail = v.ok ? fmt::format("all {} elements of a equal b + {}*c", a_.size(), triad_scalar)
                    : first_wrong;
    return v;
  }
  const double expected = exact_dot(size_.n());
  v.outputs["dot"] = dot_;
  v.outputs["difference"] = difference(dot_, expected);
  v.ok = dot_ == expected;
  v.detail = v.ok ? fmt::format("dot equals the exact sum {}", expected)
                  : fmt::format("dot = {} but the exact sum is {}", dot_, expected);
  return v;
}

void StreamInstance::corrupt_result() {
  if (!a_.empty()) a_[a_.size() / 3] += 1.0f;
  dot_ += 1.0;
}

}  // namespace acclab::vector
