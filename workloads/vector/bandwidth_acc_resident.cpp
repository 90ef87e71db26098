// Beyond the seed, the steps after triad_acc and dot_acc_partials, which launch a construct (the
// dot two, and an update) every pass: here all nt passes run in ONE compute construct, the passes
// separated by grid_barrier (kit/acc_grid_barrier.hpp), as in diffusion3d's acc_tuned. At the
// seed's 64 MiB arrays a pass at copy bandwidth takes about as long as GCC's runtime takes to
// launch a construct, so one launch a run instead of one (or three) a pass.
//   triad_acc_resident  the triad's strided lanes, a pass over the whole array between barriers.
//   dot_acc_resident    every lane sums its strided slice in double, each gang its lanes (a
//                       worker-vector reduction) into a slot of its own; after the barrier every
//                       gang folds the slots in the same fixed order. dot = the last pass's sum.
// A gang per multiprocessor (acc_gangs_per_sm; never more than can all run at once, for the
// barrier: kit/acc_resident_shape.hpp), 16 workers of one warp (acc_workers), as the other
// resident constructs; with a quarter of the threads triad_acc puts on a multiprocessor, each
// lane loads `batch` elements before it stores or adds, to keep as many loads in flight. The
// shape changes which gang and worker runs a lane, never the lanes: every shape walks the arrays
// alike. The output resident_gangs says how many gangs ran (1 on the host fallback).
#include <fmt/format.h>
#include <openacc.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "kit/acc_data.hpp"
#include "kit/acc_grid_barrier.hpp"
#include "kit/acc_resident_shape.hpp"
#include "kit/grid_barrier_check.hpp"
#include "workloads/vector/multiprocessor_shapes.hpp"
#include "workloads/vector/vector.hpp"

namespace acclab::vector {
namespace {

constexpr int default_workers = 16;  // warps a gang
constexpr int group_warps = 16;      // warps of a lane group (a multiprocessor's)
constexpr int warp = 32;
constexpr std::int64_t group_lanes = group_warps * warp;
constexpr int batch = 8;           // elements a lane loads before it stores or adds them
constexpr int gang_dimension = 0;  // GOMP_DIM_GANG, for __builtin_goacc_parlevel_size and _id

const StepTunings<AccResidentShape>& resident_tunings() {
  static const StepTunings<AccResidentShape> tunings =
      acc_resident_tunings("triad_acc_resident and dot_acc_resident", default_workers);
  return tunings;
}

// The passes run over multiprocessor_counts[shape] "lane groups" of group_lanes lanes each, lane
// t striding by all lanes as in triad_acc (the count a compile-time constant: see
// multiprocessor_shapes.hpp). A group is cut into parts of a gang's lanes (group_warps /
// workers parts of workers warps), and the gangs take the parts. The shape is the largest count
// the device's multiprocessors cover, and the gangs asked for never exceed its multiprocessors
// times acc_gangs_per_sm, so that all of them run at once; a gang takes one part where the
// counts match (the H200's 132) and several in turn where the device has fewer multiprocessors
// than the smallest count (and on the host fallback, 1 gang).
class StreamResident : public StreamInstance {
 public:
  StreamResident(const Params& params, Kernel kernel, std::string name, std::string step_before)
      : StreamInstance(params, kernel),
        tunings_(resident_tunings().read(params)),
        name_(std::move(name)),
        step_before_(std::move(step_before)) {}
  StreamResident(const StreamResident&) = delete;
  StreamResident& operator=(const StreamResident&) = delete;
  ~StreamResident() override { release(); }

  void setup() override {
    StreamInstance::setup();
    const int multiprocessors = device_multiprocessors();
    shape_ = shape_within(multiprocessors);
    gangs_ = multiprocessors > 0
                 ? int(std::min<std::int64_t>(multiprocessors, multiprocessor_counts[shape_]) *
                       tunings_.gangs_per_sm)
                 : 1;
    const std::int64_t n = size_.n();
    // a only for the triad, the slots only for the dot product (device memory of its own).
    acc_enter_copyin(b_.data(), n);
    acc_enter_copyin(c_.data(), n);
    acc_enter_create(a_.data(), kernel_ == Kernel::triad ? n : 0);
    resident_ = true;
    arrived_ = static_cast<unsigned long long*>(acc_malloc(sizeof *arrived_));
    if (kernel_ == Kernel::dot) {
      // Two slots a part of a lane group (one a warp at most): one pass's, and the next one's
      // while slow gangs still fold the first.
      slots_ = static_cast<double*>(
          acc_malloc(2 * sizeof(double) * std::size_t(multiprocessor_counts.back() * group_warps)));
    }
    if (!arrived_ || (kernel_ == Kernel::dot && !slots_)) {
      throw std::runtime_error(fmt::format("vector {}: acc_malloc failed", name_));
    }
  }

  void finish() override {
    if (kernel_ == Kernel::triad) acc_update_host(a_.data(), size_.n());
    release();
  }

  Verification verify() override {
    Verification v = StreamInstance::verify();
    v.outputs["resident_gangs"] = running_;
    return v;
  }

 protected:
  // Zeroes the barrier's count on the device before a construct.
  void reset_barrier() {
    const unsigned long long none = 0;
    acc_memcpy_to_device(arrived_, const_cast<unsigned long long*>(&none), sizeof none);
  }

  // After a construct in which `running` gangs ran: throws where a gang gave up waiting or the
  // count is not the gangs times the passes (so also where the passes were cut short).
  void check_barrier(double running) {
    running_ = int(running);
    unsigned long long counted = 0;
    acc_memcpy_from_device(&counted, arrived_, sizeof counted);
    check_grid_barrier(counted, std::uint64_t(running_) * std::uint64_t(size_.nt),
                       fmt::format("vector {}", name_), gangs_,
                       step_before_ + " launches a construct per pass instead");
  }

  AccResidentShape tunings_;
  std::size_t shape_ = 0;                  // into multiprocessor_counts
  int gangs_ = 1;                          // asked for
  int running_ = 0;                        // ran, as the construct counted them
  unsigned long long* arrived_ = nullptr;  // the barrier's count, on the device
  double* slots_ = nullptr;                // the dot's per-group sums, two passes' worth

 private:
  void release() {
    if (resident_) {
      const std::int64_t n = size_.n();
      acc_exit_delete(a_.data(), kernel_ == Kernel::triad ? n : 0);
      acc_exit_delete(b_.data(), n);
      acc_exit_delete(c_.data(), n);
      resident_ = false;
    }
    if (arrived_) acc_free(arrived_);
    if (slots_) acc_free(slots_);
    arrived_ = nullptr;
    slots_ = nullptr;
  }

  std::string name_, step_before_;  // for messages
  bool resident_ = false;
};

class TriadAccResident : public StreamResident {
 public:
  explicit TriadAccResident(const Params& params)
      : StreamResident(params, Kernel::triad, "triad_acc_resident", "triad_acc") {}
  void run() override {
    with_multiprocessors(shape_, [this](auto groups) {
      with_acc_workers(tunings_.workers, [this](auto workers) {
        passes<decltype(groups)::value, decltype(workers)::value>();
      });
    });
  }

 private:
  template <std::int64_t groups, int workers>
  void passes() {
    constexpr std::int64_t lanes = groups * group_lanes;
    constexpr std::int64_t gang_lanes = workers * warp;
    constexpr std::int64_t parts = groups * (group_warps / workers);
    const std::int64_t n = size_.n(), nt = size_.nt;
    const int gangs = gangs_;
    float* a = a_.data();
    const float* b = b_.data();
    const float* c = c_.data();
    unsigned long long* arrived = arrived_;
    double state[1] = {0};  // gang 0's: gangs running
    reset_barrier();
#pragma acc parallel num_gangs(gangs) num_workers(workers) vector_length(warp) \
    present(a [0:n], b [0:n], c [0:n]) deviceptr(arrived) copyout(state [0:1])
    {
      const unsigned long long running = __builtin_goacc_parlevel_size(gang_dimension);
      unsigned long long expected = 0;  // arrivals at the barrier so far, this gang's included
      bool together = true;             // false once a gang gave up waiting at a barrier
      for (std::int64_t pass = 0; pass < nt && together; ++pass) {
#pragma acc loop gang
        for (std::int64_t g = 0; g < parts; ++g) {
#pragma acc loop worker vector
          for (std::int64_t l = 0; l < gang_lanes; ++l) {
            // Lane t reads b[t], b[t + lanes], ...: neighbouring lanes read neighbouring
            // elements; batch of them loaded before any is stored (a may alias b or c for all
            // the compiler knows, so it would not move a load above a store).
            std::int64_t i = g * gang_lanes + l;
            for (; i + (batch - 1) * lanes < n; i += batch * lanes) {
              float bs[batch], cs[batch];
#pragma GCC unroll 8
              for (int u = 0; u < batch; ++u) {
                bs[u] = b[i + u * lanes];
                cs[u] = c[i + u * lanes];
              }
#pragma GCC unroll 8
              for (int u = 0; u < batch; ++u) a[i + u * lanes] = bs[u] + triad_scalar * cs[u];
            }
            for (; i < n; i += lanes) a[i] = b[i] + triad_scalar * c[i];
          }
        }
        together = grid_barrier(arrived, expected += running);
      }
      if (__builtin_goacc_parlevel_id(gang_dimension) == 0) state[0] = double(running);
    }
    check_barrier(state[0]);
  }
};

class DotAccResident : public StreamResident {
 public:
  explicit DotAccResident(const Params& params)
      : StreamResident(params, Kernel::dot, "dot_acc_resident", "dot_acc_partials") {}
  void run() override {
    with_multiprocessors(shape_, [this](auto groups) {
      with_acc_workers(tunings_.workers, [this](auto workers) {
        passes<decltype(groups)::value, decltype(workers)::value>();
      });
    });
  }

 private:
  template <std::int64_t groups, int workers>
  void passes() {
    constexpr std::int64_t lanes = groups * group_lanes;
    constexpr std::int64_t gang_lanes = workers * warp;
    constexpr std::int64_t parts = groups * (group_warps / workers);
    const std::int64_t n = size_.n(), nt = size_.nt;
    const int gangs = gangs_;
    const float* b = b_.data();
    const float* c = c_.data();
    unsigned long long* arrived = arrived_;
    double* slots = slots_;
    double state[2] = {0, 0};  // gang 0's: gangs running, the last pass's sum
    reset_barrier();
#pragma acc parallel num_gangs(gangs) num_workers(workers) vector_length(warp) \
    present(b [0:n], c [0:n]) deviceptr(arrived, slots) copyout(state [0:2])
    {
      const unsigned long long running = __builtin_goacc_parlevel_size(gang_dimension);
      unsigned long long expected = 0;  // arrivals at the barrier so far, this gang's included
      bool together = true;             // false once a gang gave up waiting at a barrier
      double total = 0.0;
      for (std::int64_t pass = 0; pass < nt && together; ++pass) {
        // Slots by pass parity: a gang that runs ahead writes the other half, and cannot come
        // back to this one before every gang has folded it (the next barrier).
        double* pass_slots = slots + (pass % 2) * parts;
#pragma acc loop gang
        for (std::int64_t g = 0; g < parts; ++g) {
          double group_sum = 0.0;
#pragma acc loop worker vector reduction(+ : group_sum)
          for (std::int64_t l = 0; l < gang_lanes; ++l) {
            double lane_sum = 0.0;
            std::int64_t i = g * gang_lanes + l;
            for (; i + (batch - 1) * lanes < n; i += batch * lanes) {
              float bs[batch], cs[batch];
#pragma GCC unroll 8
              for (int u = 0; u < batch; ++u) {
                bs[u] = b[i + u * lanes];
                cs[u] = c[i + u * lanes];
              }
#pragma GCC unroll 8
              for (int u = 0; u < batch; ++u) lane_sum += double(bs[u]) * double(cs[u]);
            }
            for (; i < n; i += lanes) lane_sum += double(b[i]) * double(c[i]);
            group_sum += lane_sum;
          }
          pass_slots[g] = group_sum;
        }
        together = grid_barrier(arrived, expected += running);
        // Every gang folds the parts' sums, warp lane k the parts k, k + 32, ... in turn, the
        // lanes' sums by GCC's shuffle tree: the same order in every gang and every pass,
        // however many gangs ran.
        double sum = 0.0;
#pragma acc loop vector reduction(+ : sum)
        for (std::int64_t g = 0; g < parts; ++g) sum += pass_slots[g];
        total = sum;
      }
      if (__builtin_goacc_parlevel_id(gang_dimension) == 0) {
        state[0] = double(running);
        state[1] = total;
      }
    }
    check_barrier(state[0]);
    dot_ = state[1];
  }
};

}  // namespace

TuningSet acc_resident_tuning_set() { return resident_tunings().set(); }

std::unique_ptr<Instance> make_triad_acc_resident(const Params& params) {
  return std::make_unique<TriadAccResident>(params);
}
std::unique_ptr<Instance> make_dot_acc_resident(const Params& params) {
  return std::make_unique<DotAccResident>(params);
}

}  // namespace acclab::vector
