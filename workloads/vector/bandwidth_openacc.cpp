// Triad and dot with OpenACC, data resident on the device for all passes (entered in setup,
// copied back in finish), so that each pass measures device memory bandwidth alone.
//   triad_acc          one `parallel loop gang vector` per pass.
//   dot_acc_reduction  one `parallel loop reduction(+:sum)`: GCC combines the gangs' partial
//                      sums with atomics, which starves the memory system.
//   dot_acc_partials   each gang reduces a contiguous chunk with its vector lanes and writes
//                      one partial sum; a second one-gang pass adds the partials. No gang-level
//                      reduction, no atomics.
#include <openacc.h>

#include <algorithm>

#include "workloads/vector/vector.hpp"

namespace acclab::vector {
namespace {

// Enough gangs to fill an H200 (132 SMs) several times over; the second pass adds this many.
constexpr std::int64_t partial_gangs = 4096;

class StreamOpenACC : public StreamInstance {
 public:
  using StreamInstance::StreamInstance;
  ~StreamOpenACC() override { release(); }

  void setup() override {
    StreamInstance::setup();
    const std::int64_t n = size_.n();
    float* a = a_.data();
    float* b = b_.data();
    float* c = c_.data();
    double* partial = partial_.data();
#pragma acc enter data copyin(b[0:n], c[0:n]) create(a[0:n], partial[0:partial_gangs])
    resident_ = true;
  }

  void finish() override {
    const std::int64_t n = size_.n();
    float* a = a_.data();
    if (kernel_ == Kernel::triad) {
#pragma acc update self(a[0:n])
    }
    release();
  }

 protected:
  std::vector<double> partial_ = std::vector<double>(partial_gangs);

 private:
  void release() {
    if (!resident_) return;
    const std::int64_t n = size_.n();
    float* a = a_.data();
    float* b = b_.data();
    float* c = c_.data();
    double* partial = partial_.data();
#pragma acc exit data delete(a[0:n], b[0:n], c[0:n], partial[0:partial_gangs])
    resident_ = false;
  }
  bool resident_ = false;
};

class TriadAcc : public StreamOpenACC {
 public:
  explicit TriadAcc(const Params& params) : StreamOpenACC(params, Kernel::triad) {}
  void run() override {
    const std::int64_t n = size_.n();
    float* a = a_.data();
    const float* b = b_.data();
    const float* c = c_.data();
    for (std::int64_t pass = 0; pass < size_.nt; ++pass) {
#pragma acc parallel loop gang vector vector_length(256) present(a[0:n], b[0:n], c[0:n])
      for (std::int64_t i = 0; i < n; ++i) a[i] = b[i] + triad_scalar * c[i];
    }
  }
};

class DotAccReduction : public StreamOpenACC {
 public:
  explicit DotAccReduction(const Params& params) : StreamOpenACC(params, Kernel::dot) {}
  void run() override {
    const std::int64_t n = size_.n();
    const float* b = b_.data();
    const float* c = c_.data();
    for (std::int64_t pass = 0; pass < size_.nt; ++pass) {
      double sum = 0.0;
#pragma acc parallel loop reduction(+:sum) present(b[0:n], c[0:n])
      for (std::int64_t i = 0; i < n; ++i) sum += double(b[i]) * double(c[i]);
      dot_ = sum;
    }
  }
};

class DotAccPartials : public StreamOpenACC {
 public:
  explicit DotAccPartials(const Params& params) : StreamOpenACC(params, Kernel::dot) {}
  void run() override {
    const std::int64_t n = size_.n();
    const std::int64_t chunk = (n + partial_gangs - 1) / partial_gangs;
    const float* b = b_.data();
    const float* c = c_.data();
    double* partial = partial_.data();
    for (std::int64_t pass = 0; pass < size_.nt; ++pass) {
#pragma acc parallel num_gangs(partial_gangs) vector_length(256) \
    present(b[0:n], c[0:n], partial[0:partial_gangs])
      {
#pragma acc loop gang
        for (std::int64_t g = 0; g < partial_gangs; ++g) {
          const std::int64_t begin = std::min(n, g * chunk);
          const std::int64_t end = std::min(n, begin + chunk);
          double sum = 0.0;
#pragma acc loop vector reduction(+:sum)
          for (std::int64_t i = begin; i < end; ++i) sum += double(b[i]) * double(c[i]);
          partial[g] = sum;
        }
      }
      double total = 0.0;
#pragma acc parallel loop vector num_gangs(1) vector_length(1024) reduction(+:total) \
    present(partial[0:partial_gangs])
      for (std::int64_t g = 0; g < partial_gangs; ++g) total += partial[g];
      dot_ = total;
    }
  }
};

}  // namespace

std::unique_ptr<Instance> make_triad_acc(const Params& params) {
  return std::make_unique<TriadAcc>(params);
}
std::unique_ptr<Instance> make_dot_acc_reduction(const Params& params) {
  return std::make_unique<DotAccReduction>(params);
}
std::unique_ptr<Instance> make_dot_acc_partials(const Params& params) {
  return std::make_unique<DotAccPartials>(params);
}

}  // namespace acclab::vector
