// The course's openacc_basic workload: c += a + b over an nx*ny float array for nt steps, then
// the mean of c; plus the triad and dot bandwidth kernels over the same n = nx*ny floats.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/registry.hpp"
#include "workloads/vector/course_values.hpp"

namespace acclab::vector {

// The partial sums dot_acc_reduction and dot_acc_partials keep on the host (and the device):
// one per lane of the partials' first pass and of its second (bandwidth_openacc.cpp).
inline constexpr std::int64_t acc_dot_partials = 132 * 8 * 256 + 1024;

// The triad's scalar: a = b + triad_scalar * c.
inline constexpr float triad_scalar = 3.0f;

// The parameters of one run (the workload's Problem), read once (size_of).
struct Size {
  std::int64_t nx = 0, ny = 0, nt = 0;
  std::int64_t n() const { return nx * ny; }
};
// The size of these values, parsed at the first call and kept with them (Params::problem).
const Size& size_of(const Params& params);

Workload make_workload();

// ---- the course ladder ---------------------------------------------------------------------

// The mean of c after nt course steps over n elements, from the closed form of the sum of
// course_a + course_b (exact: an integer below 2^53, which validate() ensures).
double course_mean(std::int64_t n, std::int64_t nt);

// The course's check, bitwise: every element of c (when c_on_host; c may be empty otherwise)
// equals nt*(course_a(i) + course_b(i)), and the mean equals course_mean(n, nt). Every value
// is an integer below 2^24 (c) or a sum of them below 2^53 (the mean's), exact in any order.
// outputs: mean, tolerance 0, difference (the largest absolute difference, NaN if any is).
Verification verify_course(std::int64_t n, std::int64_t nt, const std::vector<float>& c,
                           bool c_on_host, double mean);

// Host arrays and verification shared by every step of the course ladder. setup() fills a
// with course_a and poisons b and c with NaN: each step's run() initialises b (course_b) and
// c (0) itself, as the course's main() does, then runs nt steps and computes the mean.
class CourseInstance : public Instance {
 public:
  explicit CourseInstance(const Params& params);
  void setup() override;
  Verification verify() override { return verify_after(size_.nt); }
  // verify()'s check of the result against what `steps` steps give (tests check that a run
  // of nt - 1 steps fails against nt).
  Verification verify_after(std::int64_t steps) const;
  void corrupt_result() override;

 protected:
  // The mean of c on the host, summed in double as the course does (steps 01-06).
  void mean_on_host();

  Size size_;
  std::vector<float> a_, b_, c_;
  double mean_ = 0;
  bool c_on_host_ = true;  // false for steps that leave c on the device (07 reduction)
};

// The rows of ladder.json built into this binary (generated from the table).
std::vector<LadderRow> ladder();

// ---- bandwidth kernels -----------------------------------------------------------------------

// The dot product of stream_b and stream_c over n elements, summed in integers of quarters.
double exact_dot(std::int64_t n);

// Host arrays for the triad (a = b + s*c) and the dot product (sum of b*c), b and c from
// stream_b and stream_c. Results are compared bit for bit with values computed from those
// functions (not from the arrays), whatever the summation order.
class StreamInstance : public Instance {
 public:
  enum class Kernel { triad, dot };
  StreamInstance(const Params& params, Kernel kernel);
  void setup() override;
  Verification verify() override;
  void corrupt_result() override;

 protected:
  Size size_;
  Kernel kernel_;
  std::vector<float> a_, b_, c_;
  double dot_ = 0;
};

void register_variants(Registry& registry);

}  // namespace acclab::vector
