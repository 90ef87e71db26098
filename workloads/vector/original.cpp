// Course step 01_original: the plain CPU loops, one thread. This is the reference the ladder
// is measured against; it is never tuned.
#include "workloads/vector/vector.hpp"

namespace acclab::vector {
namespace {

void calc(std::int64_t nx, std::int64_t ny, const float* a, const float* b, float* c) {
  for (std::int64_t j = 0; j < ny; ++j) {
    for (std::int64_t i = 0; i < nx; ++i) {
      const std::int64_t ix = i + j * nx;
      c[ix] += a[ix] + b[ix];
    }
  }
}

class Original : public CourseInstance {
 public:
  using CourseInstance::CourseInstance;
  void run() override {
    const std::int64_t n = size_.n();
    float* b = b_.data();
    float* c = c_.data();
    for (std::int64_t i = 0; i < n; ++i) b[i] = course_b(i);
    for (std::int64_t i = 0; i < n; ++i) c[i] = 0.0f;
    for (std::int64_t step = 0; step < size_.nt; ++step) calc(size_.nx, size_.ny, a_.data(), b, c);
    mean_on_host();
  }
};

}  // namespace

std::unique_ptr<Instance> make_original(const Params& params) {
  return std::make_unique<Original>(params);
}

}  // namespace acclab::vector
