// The step after optimize: the seed's one-pass-per-step algorithm with all n steps in one
// compute construct. At the seed's n = 4096 a step is a few tens of microseconds of memory
// traffic, about what GCC's runtime spends launching a construct, so one launch a run instead of
// one a step. gangs_per_sm gangs a multiprocessor (2; the multiprocessors asked of CUDA), 16
// workers of one warp: rows over gangs and workers, columns over the warp's lanes; the steps
// separated by grid_barrier
// (kit/acc_grid_barrier.hpp). The arithmetic and the stores are optimize's (an element is
// stored only where step k improves it, the successor beside it with paths=1), and row k, read
// by every row during step k, does not change in it (apsp.hpp), so the result is the serial
// loop's bit for bit. Without CUDA to count the multiprocessors it runs one gang; the output
// resident_gangs says how many ran.
#include <openacc.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "kit/acc_grid_barrier.hpp"
#include "kit/grid_barrier_check.hpp"
#include "core/machine.hpp"
#include "workloads/apsp/acc_present.hpp"

namespace acclab::apsp {
namespace {

constexpr int workers = 16;  // warps a gang
constexpr int warp = 32;
constexpr int gang_dimension = 0;  // GOMP_DIM_GANG, for __builtin_goacc_parlevel_size and _id

#pragma acc routine seq
template <bool max_plus>
inline bool improves(float now, float through) {
  return max_plus ? now < through : through < now;
}

// All n steps over d, present on the device, `gangs` gangs asked for; with paths also over the
// successors at the device address `next` (null without: a device address, so that no clause
// ever names an empty section). Returns the gangs that ran, as the construct counted them.
template <bool max_plus, bool paths>
int all_steps(int n, float* d, std::int32_t* next, int gangs, bool alternate,
              unsigned long long* arrived) {
  // Columns a lane loads at once: a warp has one row a step, so the loads it keeps in flight
  // are what bounds the pass. As many as fit the 64 registers a lane that two gangs of 16
  // warps leave: 56 without successors, 64 with (6 columns there take 70); 7 fit as well
  // without, and ran slower.
  constexpr int cells = paths ? 5 : 6;
  const std::int64_t nn = std::int64_t(n) * n;
  int ran[1] = {0};  // an array section, as the other resident constructs map their results
#pragma acc parallel num_gangs(gangs) num_workers(workers) vector_length(warp) present(d [0:nn]) \
    deviceptr(arrived, next) copyout(ran [0:1])
  {
    const unsigned long long running = __builtin_goacc_parlevel_size(gang_dimension);
    unsigned long long expected = 0;  // arrivals at the barrier so far, this gang's included
    bool together = true;             // false once a gang gave up waiting at a barrier
    for (int k = 0; k < n && together; ++k) {
      const float* pivot = d + std::int64_t(k) * n;
      // Every other step walks the rows bottom-up: where a warp has several rows (one gang a
      // multiprocessor), it starts on those the step before touched last, still in L2. With two
      // gangs every row is in flight at once and it changes nothing.
      const bool bottom_up = alternate && k % 2 == 1;
      const int whole = n - n % (cells * warp);  // the columns of whole batches
#pragma acc loop gang worker
      for (int walked = 0; walked < n; ++walked) {
        const int i = bottom_up ? n - 1 - walked : walked;
        float* row = d + std::int64_t(i) * n;
        const float dik = row[k];
        std::int32_t nik = 0;
        if (paths) nik = next[std::int64_t(i) * n + k];
        // A row with no path to k yet cannot improve in step k (dik + anything is `none`, or
        // NaN, and neither improves), so it is not read: on the seed's graph a tenth of the
        // row-steps, nearly all in the first eighth of the steps.
        const bool reaches = max_plus ? dik != -__builtin_inff() : dik != __builtin_inff();
        // Each lane takes `cells` columns a warp apart at once, all loads before the stores:
        // one load at a time a lane would leave the memory system waiting on latency.
#pragma acc loop vector
        for (int lane = 0; lane < warp; ++lane) {
          if (!reaches) continue;
          // Whole batches first, without the clamps that the last, partial batch needs:
          // GCC compiles each clamp to a branch around its load pair.
          int j0 = lane;
          for (; j0 < whole; j0 += cells * warp) {
            float now[cells], through[cells];
#pragma GCC unroll 6
            for (int u = 0; u < cells; ++u) {
              now[u] = row[j0 + u * warp];
              through[u] = dik + pivot[j0 + u * warp];
            }
#pragma GCC unroll 6
            for (int u = 0; u < cells; ++u) {
              if (improves<max_plus>(now[u], through[u])) {
                row[j0 + u * warp] = through[u];
                if (paths) next[std::int64_t(i) * n + j0 + u * warp] = nik;
              }
            }
          }
          for (; j0 < n; j0 += cells * warp) {
            float now[cells], through[cells];
#pragma GCC unroll 6
            for (int u = 0; u < cells; ++u) {
              const int j = j0 + u * warp < n ? j0 + u * warp : j0;
              now[u] = row[j];
              through[u] = dik + pivot[j];
            }
#pragma GCC unroll 6
            for (int u = 0; u < cells; ++u) {
              const int j = j0 + u * warp;
              if (j < n && improves<max_plus>(now[u], through[u])) {
                row[j] = through[u];
                if (paths) next[std::int64_t(i) * n + j] = nik;
              }
            }
          }
        }
      }
      together = grid_barrier(arrived, expected += running);
    }
    if (__builtin_goacc_parlevel_id(gang_dimension) == 0) ran[0] = int(running);
  }
  return ran[0];
}

struct ResidentTunings {
  std::int64_t gangs_per_sm = 2;
};

const StepTunings<ResidentTunings>& resident_tunings() {
  static const StepTunings<ResidentTunings> tunings = StepTunings<ResidentTunings>().integer(
      {.key = "gangs_per_sm",
       .help = "optimize_resident only: gangs (blocks of 16 warps) a multiprocessor, 1 or 2; "
               "every gang must be resident at once for the barrier between steps",
       .presets = same_in_all_presets("2"),
       .maximum = 2},
      &ResidentTunings::gangs_per_sm);
  return tunings;
}

class OptimizeResident : public PresentInstance {
 public:
  explicit OptimizeResident(const Params& params)
      : PresentInstance(params), tunings_(resident_tunings().read(params)) {}
  OptimizeResident(const OptimizeResident&) = delete;
  OptimizeResident& operator=(const OptimizeResident&) = delete;
  ~OptimizeResident() override { free_counter(); }

  void setup() override {
    PresentInstance::setup();
    gangs_ = 1;
    if (acc_get_num_devices(acc_device_nvidia) > 0) {
      // Two gangs a multiprocessor fit its registers (at most 64 a lane) and double the warps
      // waiting on memory, which is what bounds the pass (ncu: a quarter of the warp slots
      // occupied).
      gangs_ = std::max(1, static_cast<int>(tunings_.gangs_per_sm) *
                               cuda_multiprocessors(acc_get_device_num(acc_device_nvidia)));
    }
    if (!arrived_) arrived_ = static_cast<unsigned long long*>(acc_malloc(sizeof *arrived_));
    if (!arrived_) throw std::runtime_error("apsp optimize_resident: acc_malloc failed");
  }
  void run() override {
    const unsigned long long none = 0;
    acc_memcpy_to_device(arrived_, const_cast<unsigned long long*>(&none), sizeof none);
    float* d = d_.data();
    std::int32_t* next =
        p_.paths ? static_cast<std::int32_t*>(acc_deviceptr(next_.data())) : nullptr;
    const bool max_plus = p_.semiring == Semiring::max_plus;
    const auto steps = max_plus ? (p_.paths ? all_steps<true, true> : all_steps<true, false>)
                                : (p_.paths ? all_steps<false, true> : all_steps<false, false>);
    running_ = steps(p_.n, d, next, gangs_, p_.alternate, arrived_);
    // Every gang at every step's barrier: a run cut short fails here, not only at verify().
    unsigned long long counted = 0;
    acc_memcpy_from_device(&counted, arrived_, sizeof counted);
    check_grid_barrier(counted, std::uint64_t(running_) * std::uint64_t(p_.n),
                       "apsp optimize_resident", gangs_,
                       "optimize launches a kernel per step instead");
  }
  void finish() override {
    PresentInstance::finish();
    free_counter();
  }
  Verification verify() override {
    Verification v = PresentInstance::verify();
    v.outputs["resident_gangs"] = running_;
    return v;
  }

 private:
  void free_counter() {
    if (arrived_) acc_free(arrived_);
    arrived_ = nullptr;
  }

  ResidentTunings tunings_;
  int gangs_ = 1;                          // asked for
  int running_ = 0;                        // ran, as the construct counted them
  unsigned long long* arrived_ = nullptr;  // the barrier's count, on the device
};

}  // namespace

TuningSet optimize_resident_tuning_set() { return resident_tunings().set(); }

std::unique_ptr<Instance> make_optimize_resident(const Params& params) {
  return std::make_unique<OptimizeResident>(params);
}

}  // namespace acclab::apsp
