// The shared part of iccg's optimized steps (the course's 06_optimized): the matrix in the
// colour-slab layout on the device, the kernels' helpers, and the instance. acc_per_color.cpp
// holds the solve as a construct per colour and phase (optimized_per_color), acc_optimized.cpp
// the solve as one construct (optimized); the latter falls back to the former where it cannot
// run (no CUDA to count the multiprocessors, or indices past 32 bits).
#pragma once

#include <fmt/format.h>
#include <openacc.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "core/machine.hpp"
#include "kit/acc_grid_barrier.hpp"
#include "workloads/iccg/color_ell.hpp"
#include "workloads/iccg/iccg.hpp"

namespace acclab::iccg::optimized {

// Kernels that leave partial sums: a gang of one warp (GCC reduces a 32-lane vector with
// shuffles; over 256 lanes its reduction is far slower) takes
// `rows_per_gang` rows and leaves their sum. Kernels without sums: 256 lanes a gang.
constexpr int rows_per_gang = 128;
constexpr int lanes = 256;

// Gangs (one partial sum each) over `rows` rows.
inline std::int64_t gangs_for(std::int64_t rows) {
  return std::max<std::int64_t>(1, (rows + rows_per_gang - 1) / rows_per_gang);
}
// Gangs of 256 lanes over `rows` rows.
inline std::int64_t wide_gangs_for(std::int64_t rows) {
  return std::max<std::int64_t>(1, (rows + lanes - 1) / lanes);
}

// The resident solve's gangs: workers of one warp each (the tuning acc_workers, compiled for
// 1, 2, 4, 8 and 12; default 12) and acc_gangs_per_sm gangs a multiprocessor (default 1), and
// on the host fallback (one thread runs every gang in turn) a few gangs, so that the tests
// cover the partial sums' bookkeeping. Every phase is one `loop gang worker vector` (no nested
// gang, worker and vector loops, which took the construct to 248 registers a lane), so the
// construct needs 168 registers a lane, whatever its workers (scripts/acc-registers.sh, ptxas
// for sm_90 on GCC's PTX, for 1 to 16 workers): a multiprocessor's 64K registers hold 12 such
// warps (12 x 32 x 168 = 64512; GCC's runtime refuses a gang that does not fit), and more warps
// in flight hide more of the sweeps' gathers. Every gang must be resident at once (the grid
// barrier), so a gang's warps, in whole fours as CUDA allocates them, times the gangs a
// multiprocessor may not pass 12.
constexpr int resident_workers = 12;
constexpr int resident_registers = 168;
constexpr int resident_warps_a_multiprocessor = 12;
constexpr int resident_max_gangs_per_sm = 3;
struct ResidentShape {
  std::int64_t workers = resident_workers;  // warps a gang
  std::int64_t gangs_per_sm = 1;            // gangs a multiprocessor (on a GPU)
};
constexpr int warp = 32;
constexpr int host_gangs = 3;
// Couplings a thread loads at once, before it gathers their columns' values: a slab's slots
// `slot_chunk` at a time, the last chunk's missing slots reading the row's last slot again with
// weight 0 (no branch, so the loads go out together). A loop of one slot at a time waits for a
// column's load and then for its gather, slot after slot; 3 matches the slabs of the course's
// 20 colours (bench/results/h200/iccg/NOTES.md has the chunk sizes measured).
constexpr int slot_chunk = 3;
// Rows a thread takes at once in a sweep, their loads issued together (GCC cannot tell that a
// row's store leaves the next row's inputs alone, so rows one after the other wait for each
// other's loads). More than one row costs more registers (fewer warps a multiprocessor) than
// the overlap gains.
constexpr int batch = 1;
constexpr int gang_dimension = 0;    // GOMP_DIM_GANG, for __builtin_goacc_parlevel_size and _id
constexpr int worker_dimension = 1;  // GOMP_DIM_WORKER
constexpr int vector_dimension = 2;  // GOMP_DIM_VECTOR

// Adds `sum` to the calling thread's partial sum in `part` (one slot a thread, gang-major), or
// starts it afresh with `restart`. Call it from a `loop gang worker vector` of exactly as many
// iterations as threads, so that on a GPU each thread passes once per loop whatever iteration
// GCC gives it, and the gang's threads' slots are its own: the gang adds them up after the loop
// without waiting for other gangs. On the host fallback one thread runs every iteration and
// keeps the running sum in slot 0 (the caller restarts only at iteration 0 there).
#pragma acc routine seq
inline void add_thread_part(double* part, int gang_threads, bool restart, double sum) {
  const int slot = __builtin_goacc_parlevel_id(gang_dimension) * gang_threads +
                   __builtin_goacc_parlevel_id(worker_dimension) *
                       __builtin_goacc_parlevel_size(vector_dimension) +
                   __builtin_goacc_parlevel_id(vector_dimension);
  part[slot] = (restart ? 0.0 : part[slot]) + sum;
}

// Loads slots s0, s0 + 1, ... (slot_chunk of them) of row k of a colour's ELL slab (`rows` rows,
// `width` slots): their columns and, in `a`, their values; slots past the width read slot
// width - 1 again (width > s0) and get value 0.
#pragma acc routine seq
inline void load_slots(const std::int32_t* column, const double* value, int rows, int width, int k,
                       int s0, int (&col)[slot_chunk], double (&a)[slot_chunk]) {
#pragma GCC unroll 8
  for (int u = 0; u < slot_chunk; ++u) {
    const int s = s0 + u < width ? s0 + u : width - 1;
    col[u] = column[s * rows + k];
    const double slot_value = value[s * rows + k];
    a[u] = s0 + u < width ? slot_value : 0.0;
  }
}

// The resident solve's phases, timed on the device by gang 0 (device_clock_ns: 0 on the host
// fallback): from one barrier's exit to the next's entry (its own share of the work) summed in
// state[phase_slot + 2 phase], and its wait in the barrier (for the slowest gang, and the
// barrier's own latency) in the slot after. arrived[1] and [2] hold gang 0's clock at its last
// barrier's entry and exit.
enum Phase { setup_phase, forward_phase, backward_phase, product_phase, update_phase, phases };
constexpr int phase_slot = 5;

// Whether p.q proves A not positive definite, as solve_iccg decides: p != 0 while r is not yet
// 0, so only an indefinite A gives p . A p <= 0. A NaN or -inf p.q is left to the residual's
// not-finite check, as solve_iccg leaves it.
#pragma acc routine seq
inline bool proves_indefinite(double pq) {
  return pq <= 0 && pq > -std::numeric_limits<double>::infinity();
}

// grid_barrier, gang 0 timing the phase before it.
#pragma acc routine seq
inline bool timed_barrier(unsigned long long* arrived, unsigned long long target, double* state,
                          int phase) {
  const bool gang0 = __builtin_goacc_parlevel_id(gang_dimension) == 0;
  if (gang0) arrived[1] = device_clock_ns();
  const bool together = grid_barrier(arrived, target);
  if (gang0) {
    const unsigned long long now = device_clock_ns();
    state[phase_slot + 2 * phase] += double(arrived[1] - arrived[2]);
    state[phase_slot + 2 * phase + 1] += double(now - arrived[1]);
    arrived[2] = now;
  }
  return together;
}

// Device addresses of everything the solve touches.
struct Device {
  const std::int64_t *color_start, *lower_start, *upper_start;
  const int *lower_width, *upper_width;
  const std::int32_t *lower_column, *upper_column;
  const double *lower_value, *upper_value, *diagonal, *b;
  double *x, *w, *r, *z, *p0, *p1, *q;
  // One partial sum a gang: r.z or p.q, and r.r; rr_part's last slot is 1 where the
  // iteration's p.q proved A indefinite (proves_indefinite), else 0.
  double *part, *rr_part;
  double* scalar;  // r.z by iteration parity, then p.q
  // The resident solve's: a partial sum per thread, then per gang for r.z, p.q and r.r; the
  // barrier's counter; what the solve leaves for the host (iterations, r.r, b.b, the arrivals
  // expected at the counter, and 1 where p.q proved A indefinite).
  double *thread_part, *rz_part, *pq_part, *rr_gang_part;
  unsigned long long* arrived;
  double* state;
};

class Optimized : public IccgInstance {
 public:
  // resident: the whole solve as one construct where the device allows it (solve_resident),
  // else a construct per colour and phase (solve). async: an iteration's constructs on one
  // async queue (optimized_per_color's tuning).
  Optimized(const Params& params, bool resident, bool async, ResidentShape shape = {})
      : IccgInstance(params), async_(async), resident_(resident), shape_(shape) {}
  ~Optimized() override { release(); }

  void setup() override {
    IccgInstance::setup();
    m_ = color_ell(a_, ordering_, min_saved_slots_);
    const std::size_t n = std::size_t(a_.n);
    for (auto* v : {&x_, &w_, &r_, &z_, &p0_, &p1_, &q_}) v->assign(n, 0.0);
    // r.z's partial sums: a gang per 128 rows of each colour.
    std::int64_t gangs = 0;
    for (int c = 0; c < m_.colors; ++c) {
      gangs += gangs_for(m_.color_start[c + 1] - m_.color_start[c]);
    }
    part_.assign(std::size_t(std::max(gangs, gangs_for(m_.n))), 0.0);
    rr_part_.assign(std::size_t(gangs_for(m_.n)) + 1, 0.0);  // and the indefinite flag
    scalar_.assign(3, 0.0);
    if (resident_) {
      // acc_gangs_per_sm gangs a multiprocessor, all running at once. Without CUDA to ask how
      // many there are, or where the resident solve's 32-bit indices would not do, the
      // launches per colour.
      gangs_ = host_gangs;
      if (acc_get_num_devices(acc_device_nvidia) > 0) {
        gangs_ = cuda_multiprocessors(acc_get_device_num(acc_device_nvidia)) *
                 int(shape_.gangs_per_sm);
        if (gangs_ == 0) resident_ = false;
      }
      resident_ = resident_ && indices_fit_in_32_bits();
    }
    // Which solve runs: the gangs of the one construct, or 0 for a construct per colour.
    extra_outputs_["resident_gangs"] = resident_ ? gangs_ : 0;
    const std::size_t resident_gangs = std::size_t(std::max(gangs_, 1));
    thread_part_.assign(resident_gangs * std::size_t(shape_.workers) * warp, 0.0);
    for (auto* v : {&rz_part_, &pq_part_, &rr_gang_part_}) v->assign(resident_gangs, 0.0);
    arrived_.assign(3, 0);
    state_.assign(phase_slot + 2 * phases, 0.0);
    enter();
  }
  void run() override { solution_ = resident_ ? solve_resident() : solve(); }
  void finish() override {
    acc_update_self(x_.data(), sizeof(double) * x_.size());
    solution_.x = x_;
    release();
  }

 private:
  Solution solve();
  Solution solve_resident();  // solve_resident_with the shape's workers
  template <int workers>
  Solution solve_resident_with();

  // solve's phases (acc_per_color.cpp), each a construct or one a colour on `queue`: the IC(0)
  // factor; x = 0, r = b, z = p = 0 with b.b's partial sums; the two sweeps, the backward one
  // leaving r.z's partial sums (it returns how many); p and q = A p with p.q's; x and r with
  // r.r's and the indefinite flag; one gang's sum of partial sums into scalar[into]; and the
  // residual's partial sums brought back and added in gang order.
  void factor_per_color(int queue);
  void start_per_color(int queue);
  void forward_sweep(int queue);
  std::int64_t backward_sweep(int queue);
  void direction_and_product(int queue, int parity, bool first_iteration);
  void update_solution(int queue, int parity);
  void add_up(int queue, std::int64_t count, int into);
  double residual_sum(int queue);

  // Whether every index of the resident solve (a row, a slab entry within its colour, a row
  // plus the threads) stays below 2^31.
  bool indices_fit_in_32_bits() const {
    const std::int64_t limit = std::numeric_limits<std::int32_t>::max();
    const std::int64_t threads = std::int64_t(gangs_) * shape_.workers * warp;
    if (m_.n + threads > limit) return false;
    for (int c = 0; c < m_.colors; ++c) {
      const std::int64_t rows = m_.color_start[c + 1] - m_.color_start[c];
      if (std::max(m_.lower_width[c], m_.upper_width[c]) * rows > limit) return false;
    }
    return true;
  }

  // Every host array with its device copy, and whether setup's values go up.
  template <typename F>
  void for_each_array(F&& f) {
    f(m_.color_start, true);
    f(m_.lower_start, true);
    f(m_.upper_start, true);
    f(m_.lower_width, true);
    f(m_.upper_width, true);
    f(m_.lower_column, true);
    f(m_.upper_column, true);
    f(m_.lower_value, true);
    f(m_.upper_value, true);
    f(m_.diagonal, true);
    f(b_, true);
    // Zeros: a slab's padding reads w and z at the row's own index (times 0) before the row's
    // value is written, so they must start finite.
    f(w_, true);
    f(z_, true);
    for (auto* v : {&x_, &r_, &p0_, &p1_, &q_, &part_, &rr_part_, &scalar_, &thread_part_,
                    &rz_part_, &pq_part_, &rr_gang_part_, &state_}) {
      f(*v, false);
    }
    f(arrived_, false);
  }
  void enter() {
    for_each_array([](auto& v, bool upload) {
      const std::size_t bytes = sizeof(v[0]) * v.size();
      if (bytes == 0) return;  // a matrix with no lower or upper couplings
      if (upload) {
        acc_copyin(v.data(), bytes);
      } else {
        acc_create(v.data(), bytes);
      }
    });
    entered_ = true;
    const auto on_device = [](auto& v) {
      using T = typename std::remove_reference_t<decltype(v)>::value_type;
      return v.empty() ? nullptr : static_cast<T*>(acc_deviceptr(v.data()));
    };
    d_ = {on_device(m_.color_start),
          on_device(m_.lower_start),
          on_device(m_.upper_start),
          on_device(m_.lower_width),
          on_device(m_.upper_width),
          on_device(m_.lower_column),
          on_device(m_.upper_column),
          on_device(m_.lower_value),
          on_device(m_.upper_value),
          on_device(m_.diagonal),
          on_device(b_),
          on_device(x_),
          on_device(w_),
          on_device(r_),
          on_device(z_),
          on_device(p0_),
          on_device(p1_),
          on_device(q_),
          on_device(part_),
          on_device(rr_part_),
          on_device(scalar_),
          on_device(thread_part_),
          on_device(rz_part_),
          on_device(pq_part_),
          on_device(rr_gang_part_),
          on_device(arrived_),
          on_device(state_)};
  }
  void release() {
    if (!entered_) return;
    for_each_array([](auto& v, bool) {
      if (!v.empty()) acc_delete(v.data(), sizeof(v[0]) * v.size());
    });
    entered_ = false;
  }

  bool async_;
  bool resident_;
  ResidentShape shape_;  // the resident solve's
  int gangs_ = 0;        // the resident solve's
  bool entered_ = false;
  ColorEll m_;
  Device d_{};
  std::vector<double> x_, w_, r_, z_, p0_, p1_, q_;
  std::vector<double> part_, rr_part_, scalar_;
  std::vector<double> thread_part_, rz_part_, pq_part_, rr_gang_part_, state_;
  std::vector<unsigned long long> arrived_;
};

}  // namespace acclab::iccg::optimized
