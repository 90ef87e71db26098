// The course's openacc_basic workload: c += a + b over an nx*ny float array for nt steps, then
// the mean of c; plus the triad and dot bandwidth kernels over the same n = nx*ny floats.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/registry.hpp"

namespace acclab::vector {

// The course's initial values: a = 1, b = 2, c = 0, so after nt steps every c is 3*nt.
inline constexpr float a_init = 1.0f;
inline constexpr float b_init = 2.0f;
// The triad's scalar: a = b + triad_scalar * c.
inline constexpr float triad_scalar = 3.0f;

struct Size {
  std::int64_t nx = 0, ny = 0, nt = 0;
  std::int64_t n() const { return nx * ny; }
};
Size size_of(const Params& params);

Workload make_workload();

// ---- the course ladder ---------------------------------------------------------------------

// Host arrays and verification shared by every step of the course ladder. setup() fills a
// with a_init and poisons b and c with NaN: each step's run() initialises b and c itself,
// as the course's main() does, then runs nt steps and computes the mean.
class CourseInstance : public Instance {
 public:
  explicit CourseInstance(const Params& params);
  void setup() override;
  // Every element of c equals nt*(a+b) exactly (when the step brings c back to the host), and
  // the mean equals it too. Integers below 2^24 are exact in float, and the mean is summed in
  // double.
  Verification verify() override;
  void corrupt_result() override;

 protected:
  // The mean of c on the host, summed in double as the course does (steps 01-06).
  void mean_on_host();

  Size size_;
  std::vector<float> a_, b_, c_;
  double mean_ = 0;
  bool c_on_host_ = true;  // false for steps that leave c on the device (07 reduction)
};

std::unique_ptr<Instance> make_original(const Params& params);
std::unique_ptr<Instance> make_acc_kernels(const Params& params);
std::unique_ptr<Instance> make_acc_kernels_copy(const Params& params);
std::unique_ptr<Instance> make_acc_loop(const Params& params);
std::unique_ptr<Instance> make_acc_data(const Params& params);
std::unique_ptr<Instance> make_acc_present(const Params& params);
std::unique_ptr<Instance> make_acc_reduction(const Params& params);
std::unique_ptr<Instance> make_course_cuda(const Params& params);

// ---- bandwidth kernels -----------------------------------------------------------------------

// Host arrays for the triad (a = b + s*c) and the dot product (sum of b*c). b and c hold small
// multiples of 1/4 so that every product and every partial sum is exact: results are compared
// bit for bit with values computed here, whatever the summation order.
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

std::unique_ptr<Instance> make_triad_openmp(const Params& params);
std::unique_ptr<Instance> make_dot_openmp(const Params& params);
std::unique_ptr<Instance> make_triad_acc(const Params& params);
std::unique_ptr<Instance> make_dot_acc_reduction(const Params& params);
std::unique_ptr<Instance> make_dot_acc_partials(const Params& params);
std::unique_ptr<Instance> make_triad_cuda(const Params& params);
std::unique_ptr<Instance> make_dot_cuda(const Params& params);

void register_variants(Registry& registry);

}  // namespace acclab::vector
