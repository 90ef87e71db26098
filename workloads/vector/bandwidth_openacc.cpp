// Triad and dot with OpenACC, data resident on the device for all passes (entered in setup,
// copied back in finish), so that each pass measures device memory bandwidth alone.
//   triad_acc          one `parallel loop gang vector` per pass over a fixed set of lanes,
//                      each lane striding through the arrays.
//   dot_acc_reduction  one `parallel loop reduction(+:sum)`: GCC combines the gangs' partial
//                      sums with atomics, which starves the memory system.
//   dot_acc_partials   every lane of every gang sums a strided slice into its own partial;
//                      a one-gang second pass folds the partials, the host adds the last 1024.
//                      No reduction clause, so no atomics, and a fixed summation order.
#include <openacc.h>

#include <cstddef>
#include <cstdint>

#include "kit/acc_data.hpp"
#include "workloads/vector/multiprocessor_shapes.hpp"
#include "workloads/vector/vector.hpp"

namespace acclab::vector {
namespace {

// The strided loops run 8 gangs of 256 lanes per multiprocessor, their lane count a
// compile-time constant (multiprocessor_shapes.hpp). setup() gives the device the smallest
// multiprocessor count that covers its own (extra gangs wait their turn; too few would leave
// multiprocessors idle), the largest where none does: vector.hpp's acc_dot_partials sizes the
// partial sums for it. On the host fallback the gangs run one after another and the count only
// sets the summation order: the largest again.
constexpr std::int64_t gangs_per_multiprocessor = 8;
constexpr std::int64_t partial_vector = 256;
constexpr std::int64_t lanes_for(std::int64_t multiprocessors) {
  return multiprocessors * gangs_per_multiprocessor * partial_vector;
}
// dot_acc_partials keeps one partial sum per lane; a second pass of one gang folds them into
// second_lanes sums for the host.
constexpr std::int64_t most_lanes = lanes_for(multiprocessor_counts.back());
constexpr std::int64_t second_lanes = 1024;
static_assert(most_lanes + second_lanes == acc_dot_partials, "vector.hpp counts them");

class StreamOpenACC : public StreamInstance {
 public:
  using StreamInstance::StreamInstance;
  ~StreamOpenACC() override { release(); }

  void setup() override {
    StreamInstance::setup();
    shape_ = shape_covering(device_multiprocessors());
    if (kernel_ == Kernel::dot) {
      partial_.resize(most_lanes);
      partial2_.resize(second_lanes);
    }
    const std::int64_t n = size_.n();
    // a only for the triad, partials only for the dot product: the others stay on the host
    // (and no kernel names them).
    acc_enter_copyin(b_.data(), n);
    acc_enter_copyin(c_.data(), n);
    acc_enter_create(a_.data(), kernel_ == Kernel::triad ? n : 0);
    acc_enter_create(partial_.data(), kernel_ == Kernel::dot ? most_lanes : 0);
    acc_enter_create(partial2_.data(), kernel_ == Kernel::dot ? second_lanes : 0);
    resident_ = true;
  }

  void finish() override {
    if (kernel_ == Kernel::triad) acc_update_host(a_.data(), size_.n());
    release();
  }

 protected:
  std::vector<double> partial_, partial2_;                // the dot product's, from setup()
  std::size_t shape_ = multiprocessor_counts.size() - 1;  // into multiprocessor_counts

 private:
  void release() {
    if (!resident_) return;
    const std::int64_t n = size_.n();
    acc_exit_delete(a_.data(), kernel_ == Kernel::triad ? n : 0);
    acc_exit_delete(b_.data(), n);
    acc_exit_delete(c_.data(), n);
    acc_exit_delete(partial_.data(), kernel_ == Kernel::dot ? most_lanes : 0);
    acc_exit_delete(partial2_.data(), kernel_ == Kernel::dot ? second_lanes : 0);
    resident_ = false;
  }
  bool resident_ = false;
};

class TriadAcc : public StreamOpenACC {
 public:
  explicit TriadAcc(const Params& params) : StreamOpenACC(params, Kernel::triad) {}
  void run() override {
    with_multiprocessors(
        shape_, [this](auto multiprocessors) { passes<decltype(multiprocessors)::value>(); });
  }

 private:
  template <std::int64_t multiprocessors>
  void passes() {
    constexpr std::int64_t lanes = lanes_for(multiprocessors);
    constexpr std::int64_t gangs = multiprocessors * gangs_per_multiprocessor;
    const std::int64_t n = size_.n();
    float* a = a_.data();
    const float* b = b_.data();
    const float* c = c_.data();
    // A grid-stride loop written with directives: a fixed number of lanes, each walking the
    // array with a stride of all lanes. GCC's own split of `parallel loop gang vector` over n
    // reaches less of copy bandwidth (bench/results/h200/vector/NOTES.md); this one keeps every
    // lane busy with independent loads, as the CUDA triad does.
    for (std::int64_t pass = 0; pass < size_.nt; ++pass) {
#pragma acc parallel loop gang vector num_gangs(gangs) vector_length(partial_vector) \
    present(a [0:n], b [0:n], c [0:n])
      for (std::int64_t t = 0; t < lanes; ++t) {
#pragma acc loop seq
        for (std::int64_t i = t; i < n; i += lanes) a[i] = b[i] + triad_scalar * c[i];
      }
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
#pragma acc parallel loop reduction(+ : sum) present(b [0:n], c [0:n])
      for (std::int64_t i = 0; i < n; ++i) sum += double(b[i]) * double(c[i]);
      dot_ = sum;
    }
  }
};

class DotAccPartials : public StreamOpenACC {
 public:
  explicit DotAccPartials(const Params& params) : StreamOpenACC(params, Kernel::dot) {}
  void run() override {
    with_multiprocessors(
        shape_, [this](auto multiprocessors) { passes<decltype(multiprocessors)::value>(); });
  }

 private:
  template <std::int64_t multiprocessors>
  void passes() {
    constexpr std::int64_t lanes = lanes_for(multiprocessors);
    constexpr std::int64_t gangs = multiprocessors * gangs_per_multiprocessor;
    const std::int64_t n = size_.n();
    const float* b = b_.data();
    const float* c = c_.data();
    double* partial = partial_.data();
    double* partial2 = partial2_.data();
    for (std::int64_t pass = 0; pass < size_.nt; ++pass) {
      // Lane t sums b[t], b[t + lanes], ...: neighbouring lanes read neighbouring elements.
#pragma acc parallel loop gang vector num_gangs(gangs) vector_length(partial_vector) \
    present(b [0:n], c [0:n], partial [0:lanes])
      for (std::int64_t t = 0; t < lanes; ++t) {
        double sum = 0.0;
#pragma acc loop seq
        for (std::int64_t i = t; i < n; i += lanes) sum += double(b[i]) * double(c[i]);
        partial[t] = sum;
      }
      // The same again over the partials, with one gang of second_lanes lanes.
#pragma acc parallel loop gang vector num_gangs(1) vector_length(second_lanes) \
    present(partial [0:lanes], partial2 [0:second_lanes])
      for (std::int64_t t = 0; t < second_lanes; ++t) {
        double sum = 0.0;
#pragma acc loop seq
        for (std::int64_t i = t; i < lanes; i += second_lanes) sum += partial[i];
        partial2[t] = sum;
      }
#pragma acc update self(partial2 [0:second_lanes])
      double total = 0.0;
      for (std::int64_t t = 0; t < second_lanes; ++t) total += partial2[t];
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
