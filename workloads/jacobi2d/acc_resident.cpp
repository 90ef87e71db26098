// Beyond the seed, the step after acc_tuned: every sweep of a run in one compute construct, the
// convergence check inside it. At the seed's size GCC's runtime takes longer to launch a
// construct than a sweep takes at copy bandwidth, so one launch a run instead of one a sweep.
// A gang per multiprocessor (asked of CUDA; acc_gangs_per_sm), 16 workers of one warp
// (acc_workers); the sweeps are separated
// by grid_barrier (kit/acc_grid_barrier.hpp), as in diffusion3d's acc_tuned. A warp takes
// pieces of a row, its lanes the columns 32 apart. In tol mode each gang leaves the largest
// change of its pieces in a slot of its own; after the barrier every gang reads all the slots,
// so all take the same decision to stop. Without CUDA to count the multiprocessors it runs one
// gang; the output resident_gangs says how many ran (1 on the host fallback, which runs them in
// turn).
#include "kit/acc_resident.hpp"

#include <openacc.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "core/machine.hpp"
#include "kit/acc_grid_barrier.hpp"
#include "kit/acc_resident_shape.hpp"
#include "kit/grid_barrier_check.hpp"
#include "workloads/jacobi2d/jacobi2d.hpp"

namespace acclab::jacobi2d {
namespace {

// Warps a gang, and columns a lane loads at once. The more loads a lane has in flight, the less
// its warp waits on memory, but all of a gang's lanes must fit one multiprocessor's registers:
// 16 warps need 128 or fewer a lane, which GCC's code for 8 columns a lane takes exactly
// (scripts/acc-registers.sh; at 129 libgomp refuses to launch it and ends the run, saying why).
// bench/results/h200/jacobi2d/NOTES.md has the shapes measured.
constexpr int default_workers = 16;
constexpr int warp = 32;
constexpr int cells = 8;
constexpr int gang_dimension = 0;  // GOMP_DIM_GANG, for __builtin_goacc_parlevel_size and _id

const StepTunings<AccResidentShape>& resident_tunings() {
  static const StepTunings<AccResidentShape> tunings =
      acc_resident_tunings("acc_resident", default_workers);
  return tunings;
}

class AccOneConstruct : public JacobiInstance {
 public:
  explicit AccOneConstruct(const Params& params)
      : JacobiInstance(params), tunings_(resident_tunings().read(params)) {}
  AccOneConstruct(const AccOneConstruct&) = delete;
  AccOneConstruct& operator=(const AccOneConstruct&) = delete;
  ~AccOneConstruct() override { free_device(); }

  void setup() override {
    JacobiInstance::setup();
    device_.enter(initial_.data(), u0_.data(), u1_.data(), p_.points());
    gangs_ = 1;
    if (acc_get_num_devices(acc_device_nvidia) > 0) {
      gangs_ = std::max(1, cuda_multiprocessors(acc_get_device_num(acc_device_nvidia))) *
               int(tunings_.gangs_per_sm);
    }
    if (!arrived_) {
      arrived_ = static_cast<unsigned long long*>(acc_malloc(sizeof *arrived_));
      // Two slots a gang: one check's, and the next one's while slow gangs still read the first.
      partial_ = static_cast<float*>(acc_malloc(2 * sizeof(float) * std::size_t(gangs_)));
      if (!arrived_ || !partial_)
        throw std::runtime_error("jacobi2d acc_resident: acc_malloc failed");
    }
  }
  void reset() override { device_.reset(); }
  void run() override {
    with_acc_workers(tunings_.workers, [this](auto workers) { sweep<decltype(workers)::value>(); });
  }
  void finish() override {
    device_.fetch(const_cast<float*>(result_));
    device_.release();
    free_device();
  }
  Verification verify() override {
    Verification v = JacobiInstance::verify();
    v.outputs["resident_gangs"] = running_;
    return v;
  }

 private:
  void free_device() {
    if (arrived_) acc_free(arrived_);
    if (partial_) acc_free(partial_);
    arrived_ = nullptr;
    partial_ = nullptr;
  }

  template <int workers>
  void sweep();

  AccResidentShape tunings_;
  AccResidentPair device_;
  int gangs_ = 1;                          // asked for
  int running_ = 0;                        // ran, as the construct counted them
  unsigned long long* arrived_ = nullptr;  // the barrier's count, on the device
  float* partial_ = nullptr;               // each gang's largest change, on the device
};

template <int workers>
void AccOneConstruct::sweep() {
  const profile::Region region("sweeps");  // --profile's label
  const int rows = int(p_.rows), cols = int(p_.cols), n = int(p_.points());
  const std::int64_t iters = p_.iters, check_every = p_.check_every;
  const bool tol_mode = p_.tol_mode;
  const double tol = p_.tol;
  const bool alternate = p_.alternate;
  const float c1f = p_.c1f, wy2 = p_.wy2, hx2 = p_.hx2, c2 = p_.c2;
  const int gangs = gangs_, gang_threads = workers * warp;
  const int pieces_a_row = (cols - 2 + cells * warp - 1) / (cells * warp);
  const int pieces = (rows - 2) * pieces_a_row;
  float *u0 = u0_.data(), *u1 = u1_.data();
  unsigned long long* arrived = arrived_;
  float* partial = partial_;
  // What gang 0 leaves for the host: gangs running, sweeps done, the last change measured (-1:
  // none).
  double state[3] = {0, 0, -1};
  const unsigned long long none = 0;
  acc_memcpy_to_device(arrived, const_cast<unsigned long long*>(&none), sizeof none);
#pragma acc parallel num_gangs(gangs) num_workers(workers) vector_length(warp) \
    present(u0 [0:n], u1 [0:n]) deviceptr(arrived, partial) copyout(state [0:3])
  {
    const int running = __builtin_goacc_parlevel_size(gang_dimension);
    unsigned long long expected = 0;  // arrivals at the barrier so far, this gang's included
    bool together = true;             // false once a gang gave up waiting at a barrier
    std::int64_t done = 0;
    float last_change = -1.0f;
    int checks = 0;
    for (std::int64_t s = 1; s <= iters && together; ++s) {
      // Sweep 1 reads u0 and writes u1, as JacobiInstance::iterate's first sweep.
      const float* in = s % 2 ? u0 : u1;
      float* out = s % 2 ? u1 : u0;
      const bool check = tol_mode && s % check_every == 0;
      // Every other sweep walks the rows bottom-up: it starts on the rows the sweep before wrote
      // last, which are still in L2 (the seed's two grids, 64 MB, about fill the H200's 60 MB).
      const bool bottom_up = alternate && s % 2 == 0;
      float* slots = partial + (checks % 2) * running;
#pragma acc loop gang
      for (int g = 0; g < running; ++g) {
        float change = 0.0f;
#pragma acc loop worker vector reduction(max : change)
        for (int t = 0; t < gang_threads; ++t) {
          const int lane = t % warp;
          // The warps deal out pieces of `cells` x 32 columns of a row, not whole rows: the
          // seed's 8190 rows over 1584 warps would leave some warps 6 rows and others 5, and
          // every gang waits at the barrier for the slowest.
          for (int piece = g * workers + t / warp; piece < pieces; piece += running * workers) {
            const int walked = 1 + piece / pieces_a_row;
            const int row = bottom_up ? rows - 1 - walked : walked;
            // `cells` columns a warp apart at once, all loads before the stores: a lane with
            // one point's loads in flight at a time would leave the memory system idle.
            const int j0 = 1 + lane + (piece % pieces_a_row) * cells * warp;
            float up[cells], down[cells], left[cells], right[cells], centre[cells];
#pragma GCC unroll 8
            for (int u = 0; u < cells; ++u) {
              // A column past the row's end loads an inner point instead, and stores nothing.
              const int j = j0 + u * warp < cols - 1 ? j0 + u * warp : cols - 2;
              const int k = row * cols + j;
              up[u] = in[k - cols];
              down[u] = in[k + cols];
              left[u] = in[k - 1];
              right[u] = in[k + 1];
              centre[u] = in[k];
            }
#pragma GCC unroll 8
            for (int u = 0; u < cells; ++u) {
              const int j = j0 + u * warp;
              if (j < cols - 1) {
                const float v = (c1f + wy2 * (up[u] + down[u]) + hx2 * (left[u] + right[u])) * c2;
                if (check) {
                  const float d = __builtin_fabsf(v - centre[u]);
                  change = d > change ? d : change;  // fmaxf is not in nvptx's default libraries
                }
                out[row * cols + j] = v;
              }
            }
          }
        }
        if (check) slots[g] = change;
      }
      together = grid_barrier(arrived, expected += running);
      done = s;
      if (check) {
        float change = 0.0f;
        for (int h = 0; h < running; ++h) change = slots[h] > change ? slots[h] : change;
        ++checks;
        last_change = change;
        if (change < tol) break;
      }
    }
    if (__builtin_goacc_parlevel_id(gang_dimension) == 0) {
      state[0] = running;
      state[1] = double(done);
      state[2] = last_change;
    }
  }
  running_ = int(state[0]);
  sweeps_ = std::int64_t(state[1]);
  residual_ = state[2];
  result_ = sweeps_ % 2 ? u1_.data() : u0_.data();
  unsigned long long counted = 0;
  acc_memcpy_from_device(&counted, arrived, sizeof counted);
  check_grid_barrier(counted, static_cast<unsigned long long>(state[0] * state[1]),
                     "jacobi2d acc_resident", gangs,
                     "acc_tuned launches a construct per sweep instead");
}

}  // namespace

TuningSet acc_resident_tuning_set() { return resident_tunings().set(); }

std::unique_ptr<Instance> make_acc_resident(const Params& params) {
  return std::make_unique<AccOneConstruct>(params);
}

}  // namespace acclab::jacobi2d
