// The course's 06_optimized, our fastest directive version. What changes from 05
// (exclude_datacpy_time), all within OpenACC:
//   - the matrix in the colour-slab layout (color_ell.hpp): 32-bit columns, lower and upper
//     couplings apart, slot-major so that a vector's lanes read consecutive addresses, and no
//     `column < i` test in the sweeps;
//   - no `reduction` clause at gang level (GCC's costs a copy back each and reaches a tenth of
//     the bandwidth): a gang of one warp takes 128 rows and leaves their partial sum; one
//     small kernel (one gang) adds the partial sums up into a scalar that stays on the device,
//     so r.z and p.q never travel to the host; only the residual's partial sums come back, once
//     an iteration, for the convergence test. Measured on the H200 (128^3, ncu): the update
//     took 285 us as 512 gangs of 256 lanes, 2 ms as a gang of 256 lanes per 256 rows, 31 us
//     as a warp per 128 rows;
//   - p = z + beta p fused into the product q = A p (the neighbours' p computed from z and the
//     previous p, kept in a second array), and x, r and r.r in one pass: an iteration is the
//     sweeps, the product, the update and two one-gang sums, against 5 kernels and 3
//     reductions in 05;
//   - kernels on device addresses (`deviceptr`): no present-table lookups at each launch;
//   - a sweep launches the gangs its colour's rows need (GCC's default is 96 per multiprocessor
//     whatever the loop's length);
//   - async=1 queues an iteration's kernels on one async queue and waits once; GCC 12's async
//     launches cost more than its synchronous ones, so the default is 0.
// Those are `resident=0`, a construct per colour and phase (solve()). resident=1 (the default,
// solve_resident()) runs the whole solve, factor included, as one compute construct: a gang
// per multiprocessor, colours and phases separated by a barrier across gangs (an atomic
// counter each gang adds to and waits on), dot products as per-gang partial sums that every
// gang adds up in the same order, so every gang takes the same branch at the convergence test.
// The 44 constructs an iteration of resident=0 cost GCC's runtime about 40 us each (enter
// data, argument upload, launch, wait): more than their kernels.
// The matrix and vectors enter the device in setup (as in 05); x comes back in finish.
#include <fmt/format.h>
#include <openacc.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "core/acc_grid_barrier.hpp"
#include "core/machine.hpp"
#include "workloads/iccg/color_ell.hpp"
#include "workloads/iccg/iccg.hpp"

namespace acclab::iccg {
namespace {

// Kernels that leave partial sums: a gang of one warp (GCC reduces a 32-lane vector with
// shuffles; over 256 lanes its reduction took the H200 a millisecond per 4096 gangs) takes
// `rows_per_gang` rows and leaves their sum. Kernels without sums: 256 lanes a gang.
constexpr int rows_per_gang = 128;
constexpr int lanes = 256;

// Gangs (one partial sum each) over `rows` rows.
std::int64_t gangs_for(std::int64_t rows) {
  return std::max<std::int64_t>(1, (rows + rows_per_gang - 1) / rows_per_gang);
}
// Gangs of 256 lanes over `rows` rows.
std::int64_t wide_gangs_for(std::int64_t rows) {
  return std::max<std::int64_t>(1, (rows + lanes - 1) / lanes);
}

// The resident solve's gangs: `resident_workers` workers of one warp each, and on the host
// fallback (one thread runs every gang in turn) a few gangs, so that the tests cover the
// partial sums' bookkeeping. Every phase is one `loop gang worker vector` (no nested gang,
// worker and vector loops, which took the construct to 248 registers a lane), so the construct
// needs 168 registers a lane (ptxas -v for sm_90 on GCC's PTX): 12 warps fit a multiprocessor's
// 64K registers (12 x 32 x 168 = 64512; 13 would not, and GCC's runtime refuses a launch that
// does not fit). On the H200 12 workers took the 128^3 seed solve from 728 to 592 us an
// iteration against 8 (bench/results/h200/iccg_threads/).
constexpr int resident_workers = 12;
constexpr int warp = 32;
constexpr int host_gangs = 3;
// Couplings a thread loads at once, before it gathers their columns' values: a slab's slots
// `slot_chunk` at a time, the last chunk's missing slots reading the row's last slot again with
// weight 0 (no branch, so the loads go out together). A loop of one slot at a time waits for a
// column's load and then for its gather, slot after slot: on the H200 at 128^3 with 20 colours
// (bench/results/h200/iccg_slots/), 568 us an iteration; chunks of 3 in the sweeps 525, in the
// sweeps and the product 469. Chunks of 4 in both (a slot wasted on the 3-slot slabs of 20
// colours) took 576, of 6 in the sweeps 834. GCC's code generation alone moves these by several
// per cent: this code took 497 us in the same run as the 469 us build of the same loops.
constexpr int slot_chunk = 3;
// Rows a thread takes at once in a sweep, their loads issued together (GCC cannot tell that a
// row's store leaves the next row's inputs alone, so rows one after the other wait for each
// other's loads). With 3-slot chunks, 2 rows take the construct to 176 registers (8 warps a
// multiprocessor; 658 against 469 us an iteration), 3 rows to 220 (607 us).
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
constexpr int phase_slot = 4;

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
  double *part, *rr_part;  // one partial sum a gang: r.z or p.q, and r.r
  double* scalar;          // r.z by iteration parity, then p.q
  // The resident solve's: a partial sum per thread, then per gang for r.z, p.q and r.r; the
  // barrier's counter; what the solve leaves for the host (iterations, r.r, b.b, and the
  // arrivals expected at the counter).
  double *thread_part, *rz_part, *pq_part, *rr_gang_part;
  unsigned long long* arrived;
  double* state;
};

class Optimized : public IccgInstance {
 public:
  explicit Optimized(const Params& params)
      : IccgInstance(params),
        async_(params.integer("async") != 0),
        resident_(params.integer("resident") != 0) {}
  ~Optimized() override { release(); }

  void setup() override {
    IccgInstance::setup();
    m_ = color_ell(a_, ordering_);
    const std::size_t n = std::size_t(a_.n);
    for (auto* v : {&x_, &w_, &r_, &z_, &p0_, &p1_, &q_}) v->assign(n, 0.0);
    // r.z's partial sums: a gang per 128 rows of each colour.
    std::int64_t gangs = 0;
    for (int c = 0; c < m_.colors; ++c) {
      gangs += gangs_for(m_.color_start[c + 1] - m_.color_start[c]);
    }
    part_.assign(std::size_t(std::max(gangs, gangs_for(m_.n))), 0.0);
    rr_part_.assign(std::size_t(gangs_for(m_.n)), 0.0);
    scalar_.assign(3, 0.0);
    if (resident_) {
      // A gang per multiprocessor, so that all run at once. Without CUDA to ask how many there
      // are, or where the resident solve's 32-bit indices would not do, the launches per
      // colour.
      gangs_ = host_gangs;
      if (acc_get_num_devices(acc_device_nvidia) > 0) {
        gangs_ = cuda_multiprocessors(acc_get_device_num(acc_device_nvidia));
        if (gangs_ == 0) resident_ = false;
      }
      resident_ = resident_ && indices_fit_in_32_bits();
    }
    // Which solve runs: the gangs of the one construct, or 0 for a construct per colour.
    extra_outputs_["resident_gangs"] = resident_ ? gangs_ : 0;
    const std::size_t resident_gangs = std::size_t(std::max(gangs_, 1));
    thread_part_.assign(resident_gangs * resident_workers * warp, 0.0);
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
  Solution solve_resident();

  // Whether every index of the resident solve (a row, a slab entry within its colour, a row
  // plus the threads) stays below 2^31.
  bool indices_fit_in_32_bits() const {
    const std::int64_t limit = std::numeric_limits<std::int32_t>::max();
    const std::int64_t threads = std::int64_t(gangs_) * resident_workers * warp;
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
  int gangs_ = 0;  // the resident solve's
  bool entered_ = false;
  ColorEll m_;
  Device d_{};
  std::vector<double> x_, w_, r_, z_, p0_, p1_, q_;
  std::vector<double> part_, rr_part_, scalar_;
  std::vector<double> thread_part_, rz_part_, pq_part_, rr_gang_part_, state_;
  std::vector<unsigned long long> arrived_;
};

Solution Optimized::solve() {
  const int queue = async_ ? 1 : acc_async_sync;
  const std::int64_t n = m_.n;
  const int colors = m_.colors;
  const std::int64_t *color_start = d_.color_start, *lower_start = d_.lower_start,
                     *upper_start = d_.upper_start;
  const int *lower_width = d_.lower_width, *upper_width = d_.upper_width;
  const std::int32_t *lower_column = d_.lower_column, *upper_column = d_.upper_column;
  const double *lower_value = d_.lower_value, *upper_value = d_.upper_value,
               *diagonal = d_.diagonal, *b = d_.b;
  double *x = d_.x, *w = d_.w, *r = d_.r, *z = d_.z, *q = d_.q;
  double *part = d_.part, *rr_part = d_.rr_part, *scalar = d_.scalar;
  int top = 1;  // the largest power of two below colors: the colour search's first step
  while (2 * top < colors) top *= 2;
  const std::int64_t row_gangs = gangs_for(n);

  // IC(0), colour by colour.
  for (int c = 0; c < colors; ++c) {
    const std::int64_t first = m_.color_start[c], rows = m_.color_start[c + 1] - first;
    const std::int64_t base = m_.lower_start[c];
    const int width = m_.lower_width[c];
#pragma acc parallel loop gang vector num_gangs(wide_gangs_for(rows)) vector_length(lanes) \
    async(queue) deviceptr(diagonal, lower_column, lower_value, w)
    for (std::int64_t k = 0; k < rows; ++k) {
      double v = diagonal[first + k];
      for (int s = 0; s < width; ++s) {
        const double a = lower_value[base + s * rows + k];
        v -= a * a * w[lower_column[base + s * rows + k]];
      }
      w[first + k] = 1.0 / v;
    }
  }
  // x = 0, r = b, z = p = 0, and b.b's partial sums in rr_part.
  {
    double* p_old = d_.p1;
#pragma acc parallel loop gang num_gangs(row_gangs) vector_length(32) async(queue) \
    deviceptr(b, x, r, z, p_old, rr_part)
    for (std::int64_t g = 0; g < row_gangs; ++g) {
      double sum = 0;
#pragma acc loop vector reduction(+ : sum)
      for (int l = 0; l < rows_per_gang; ++l) {
        const std::int64_t i = g * rows_per_gang + l;
        if (i < n) {
          x[i] = 0.0;
          r[i] = b[i];
          z[i] = 0.0;
          p_old[i] = 0.0;
          sum += b[i] * b[i];
        }
      }
      rr_part[g] = sum;
    }
  }
  // The residual's partial sums, brought back and added in gang order.
  const auto residual_sum = [&] {
    acc_memcpy_from_device_async(rr_part_.data(), rr_part, sizeof(double) * rr_part_.size(), queue);
    acc_wait(queue);
    double sum = 0;
    for (double p : rr_part_) sum += p;
    return sum;
  };
  // scalar[into] = the sum of part[0 .. count), by one gang.
  const auto add_up = [&](std::int64_t count, int into) {
#pragma acc parallel num_gangs(1) vector_length(32) async(queue) deviceptr(part, scalar)
    {
      double sum = 0;
#pragma acc loop vector reduction(+ : sum)
      for (std::int64_t h = 0; h < count; ++h) sum += part[h];
      scalar[into] = sum;
    }
  };
  const double norm_b = std::sqrt(residual_sum());

  Solution s;
  for (s.iterations = 1; s.iterations <= p_.max_iterations; ++s.iterations) {
    const int parity = s.iterations % 2;
    const bool first_iteration = s.iterations == 1;
    double* p_new = parity ? d_.p0 : d_.p1;
    const double* p_old = parity ? d_.p1 : d_.p0;
    // Forward sweep: z = (W^-1 + L)^-1 r, colour by colour.
    for (int c = 0; c < colors; ++c) {
      const std::int64_t first = m_.color_start[c], rows = m_.color_start[c + 1] - first;
      const std::int64_t base = m_.lower_start[c];
      const int width = m_.lower_width[c];
#pragma acc parallel loop gang vector num_gangs(wide_gangs_for(rows)) vector_length(lanes) \
    async(queue) deviceptr(lower_column, lower_value, w, r, z)
      for (std::int64_t k = 0; k < rows; ++k) {
        double v = r[first + k];
        for (int s = 0; s < width; ++s) {
          v -= lower_value[base + s * rows + k] * z[lower_column[base + s * rows + k]];
        }
        z[first + k] = v * w[first + k];
      }
    }
    // Backward sweep z -= W U z, each gang leaving its rows' share of r.z.
    std::int64_t parts = 0;
    for (int c = colors - 1; c >= 0; --c) {
      const std::int64_t first = m_.color_start[c], rows = m_.color_start[c + 1] - first;
      const std::int64_t base = m_.upper_start[c], gangs = gangs_for(rows);
      const int width = m_.upper_width[c];
      double* color_part = part + parts;
#pragma acc parallel loop gang num_gangs(gangs) vector_length(32) async(queue) \
    deviceptr(upper_column, upper_value, w, r, z, color_part)
      for (std::int64_t g = 0; g < gangs; ++g) {
        double sum = 0;
#pragma acc loop vector reduction(+ : sum)
        for (int l = 0; l < rows_per_gang; ++l) {
          const std::int64_t k = g * rows_per_gang + l;
          if (k < rows) {
            double v = 0;
            for (int s = 0; s < width; ++s) {
              v += upper_value[base + s * rows + k] * z[upper_column[base + s * rows + k]];
            }
            const double zi = z[first + k] - w[first + k] * v;
            z[first + k] = zi;
            sum += r[first + k] * zi;
          }
        }
        color_part[g] = sum;
      }
      parts += gangs;
    }
    add_up(parts, parity);
    // p = z + beta p and q = A p in one pass (a neighbour's new p computed from z and its old
    // p), each gang leaving its rows' share of p.q.
#pragma acc parallel loop gang num_gangs(row_gangs) vector_length(32) async(queue)           \
    deviceptr(color_start, lower_start, upper_start, lower_width, upper_width, lower_column, \
              lower_value, upper_column, upper_value, diagonal, z, p_old, p_new, q, part, scalar)
    for (std::int64_t g = 0; g < row_gangs; ++g) {
      const double beta = first_iteration ? 0.0 : scalar[parity] / scalar[1 - parity];
      double sum = 0;
#pragma acc loop vector reduction(+ : sum)
      for (int l = 0; l < rows_per_gang; ++l) {
        const std::int64_t i = g * rows_per_gang + l;
        if (i < n) {
          int c = 0;  // the row's colour: the last whose first row is <= i
          for (int step = top; step > 0; step /= 2) {
            if (c + step < colors && color_start[c + step] <= i) c += step;
          }
          const std::int64_t rows = color_start[c + 1] - color_start[c];
          const std::int64_t k = i - color_start[c];
          const double pi = z[i] + beta * p_old[i];
          double v = diagonal[i] * pi;
          for (int s = 0; s < lower_width[c]; ++s) {
            const std::int64_t e = lower_start[c] + s * rows + k;
            const std::int32_t j = lower_column[e];
            v += lower_value[e] * (z[j] + beta * p_old[j]);
          }
          for (int s = 0; s < upper_width[c]; ++s) {
            const std::int64_t e = upper_start[c] + s * rows + k;
            const std::int32_t j = upper_column[e];
            v += upper_value[e] * (z[j] + beta * p_old[j]);
          }
          p_new[i] = pi;
          q[i] = v;
          sum += pi * v;
        }
      }
      part[g] = sum;
    }
    add_up(row_gangs, 2);
    // x += alpha p, r -= alpha q, each gang leaving its rows' share of r.r.
#pragma acc parallel loop gang num_gangs(row_gangs) vector_length(32) async(queue) \
    deviceptr(x, r, p_new, q, scalar, rr_part)
    for (std::int64_t g = 0; g < row_gangs; ++g) {
      const double alpha = scalar[parity] / scalar[2];
      double sum = 0;
#pragma acc loop vector reduction(+ : sum)
      for (int l = 0; l < rows_per_gang; ++l) {
        const std::int64_t i = g * rows_per_gang + l;
        if (i < n) {
          x[i] += alpha * p_new[i];
          const double ri = r[i] - alpha * q[i];
          r[i] = ri;
          sum += ri * ri;
        }
      }
      rr_part[g] = sum;
    }
    s.relative_residual = std::sqrt(residual_sum()) / norm_b;
    if (s.relative_residual < p_.eps) {
      s.converged = true;
      break;
    }
  }
  s.iterations = std::min(s.iterations, p_.max_iterations);
  return s;
}

// The whole solve in one compute construct (resident=1). Every phase splits its rows over
// `threads` = gangs x workers x 32 lanes, thread t taking rows t, t + threads, ... (their
// couplings `slot_chunk` at a time); phases are separated by timed_barrier: one after each
// colour of the factor, one after the start (x, r, z, p and b.b), one after each colour of both
// sweeps, one after the product and one after the update (42 an iteration at 20 colours), gang
// 0 timing the phases between them (the outputs setup_us and phase_us_per_iteration). A dot
// product leaves a partial sum per thread (add_thread_part), then per gang (its threads' added by a
// worker-vector reduction); after the barrier every gang adds the gangs' partial sums by the
// same reduction, so all see the same scalar, bit for bit, and take the same branch at the
// convergence test. The sums' order depends on the gang count (3 on the host fallback, one a
// multiprocessor on a GPU). Indices are 32-bit (setup checks that they fit).
Solution Optimized::solve_resident() {
  const int n = int(m_.n);
  const int colors = m_.colors;
  const int gangs = gangs_;
  const int threads = gangs * resident_workers * warp;
  const int max_iterations = p_.max_iterations;
  const double eps2 = p_.eps * p_.eps;
  const std::int64_t *color_start = d_.color_start, *lower_start = d_.lower_start,
                     *upper_start = d_.upper_start;
  const int *lower_width = d_.lower_width, *upper_width = d_.upper_width;
  const std::int32_t *lower_column = d_.lower_column, *upper_column = d_.upper_column;
  const double *lower_value = d_.lower_value, *upper_value = d_.upper_value,
               *diagonal = d_.diagonal, *b = d_.b;
  double *x = d_.x, *w = d_.w, *r = d_.r, *z = d_.z, *p0 = d_.p0, *p1 = d_.p1, *q = d_.q;
  double *thread_part = d_.thread_part, *rz_part = d_.rz_part, *pq_part = d_.pq_part,
         *rr_part = d_.rr_gang_part, *state = d_.state;
  unsigned long long* arrived = d_.arrived;
  const unsigned long long none = 0;
  acc_memcpy_to_device(arrived, const_cast<unsigned long long*>(&none), sizeof none);
  std::fill(state_.begin() + phase_slot, state_.end(), 0.0);  // the phases' times
  acc_update_device(state_.data() + phase_slot, sizeof(double) * (state_.size() - phase_slot));

#pragma acc parallel num_gangs(gangs) num_workers(resident_workers) vector_length(warp)      \
    deviceptr(color_start, lower_start, upper_start, lower_width, upper_width, lower_column, \
              upper_column, lower_value, upper_value, diagonal, b, x, w, r, z, p0, p1, q,    \
              thread_part, rz_part, pq_part, rr_part, arrived, state)
  {
    // The gangs actually running: `gangs` on the device, one on the host fallback.
    const unsigned long long running = __builtin_goacc_parlevel_size(gang_dimension);
    // The threads of a gang actually running (1 on the host fallback), and of all gangs.
    const int gang_threads = __builtin_goacc_parlevel_size(worker_dimension) *
                             __builtin_goacc_parlevel_size(vector_dimension);
    const int running_threads = int(running) * gang_threads;
    unsigned long long expected = 0;  // arrivals at the barrier so far, this gang's included
    bool together = true;             // false once a gang gave up waiting at a barrier
    if (__builtin_goacc_parlevel_id(gang_dimension) == 0) arrived[2] = device_clock_ns();

    // IC(0), colour by colour: W = 1 / (diagonal - sum of a^2 W over the earlier colours).
    for (int c = 0; c < colors && together; ++c) {
      const int first = int(color_start[c]), rows = int(color_start[c + 1]) - first;
      const int width = lower_width[c];
      const std::int32_t* column = lower_column + lower_start[c];
      const double* value = lower_value + lower_start[c];
#pragma acc loop gang worker vector
      for (int t = 0; t < threads; ++t) {
        for (int k = t; k < rows; k += threads) {
          double v = diagonal[first + k];
          for (int s = 0; s < width; ++s) {
            const double a = value[s * rows + k];
            v -= a * a * w[column[s * rows + k]];
          }
          w[first + k] = 1.0 / v;
        }
      }
      together = timed_barrier(arrived, expected += running, state, setup_phase);
    }

    // x = 0, r = b, z = p = 0, and b.b.
#pragma acc loop gang worker vector
    for (int t = 0; t < threads; ++t) {
      double sum = 0;
      for (int i = t; i < n; i += threads) {
        x[i] = 0.0;
        r[i] = b[i];
        z[i] = 0.0;
        p1[i] = 0.0;
        sum += b[i] * b[i];
      }
      add_thread_part(thread_part, gang_threads, t < running_threads, sum);
    }
    {  // this gang's threads' partial sums, added in the same order in every gang
      const int gang = __builtin_goacc_parlevel_id(gang_dimension);
      double sum = 0;
#pragma acc loop worker vector reduction(+ : sum)
      for (int u = 0; u < gang_threads; ++u) sum += thread_part[gang * gang_threads + u];
      rr_part[gang] = sum;
    }
    together = timed_barrier(arrived, expected += running, state, setup_phase);
    double bb = 0;
#pragma acc loop vector reduction(+ : bb)
    for (int h = 0; h < gangs; ++h) bb += rr_part[h];

    int iteration = 1;
    double rr = bb, rz_old = 1;
    for (; iteration <= max_iterations && together; ++iteration) {
      double* p_new = iteration % 2 ? p0 : p1;
      const double* p_old = iteration % 2 ? p1 : p0;
      // Forward sweep: z = (W^-1 + L)^-1 r.
      for (int c = 0; c < colors && together; ++c) {
        const int first = int(color_start[c]), rows = int(color_start[c + 1]) - first;
        const int width = lower_width[c];
        const std::int32_t* column = lower_column + lower_start[c];
        const double* value = lower_value + lower_start[c];
#pragma acc loop gang worker vector
        for (int t = 0; t < threads; ++t) {
          for (int k0 = t; k0 < rows; k0 += batch * threads) {
            int kk[batch];  // the batch's rows, past the colour's end clamped to k0
            double v[batch], wk[batch];
#pragma GCC unroll 4
            for (int j = 0; j < batch; ++j) {
              const int k = k0 + j * threads;
              kk[j] = k < rows ? k : k0;
              v[j] = r[first + kk[j]];
              wk[j] = w[first + kk[j]];
            }
            for (int s0 = 0; s0 < width; s0 += slot_chunk) {
              int col[batch][slot_chunk];
              double a[batch][slot_chunk];
#pragma GCC unroll 4
              for (int j = 0; j < batch; ++j) {
                load_slots(column, value, rows, width, kk[j], s0, col[j], a[j]);
              }
#pragma GCC unroll 4
              for (int j = 0; j < batch; ++j) {
#pragma GCC unroll 4
                for (int u = 0; u < slot_chunk; ++u) v[j] -= a[j][u] * z[col[j][u]];
              }
            }
#pragma GCC unroll 4
            for (int j = 0; j < batch; ++j) {
              if (k0 + j * threads < rows) z[first + kk[j]] = v[j] * wk[j];
            }
          }
        }
        together = timed_barrier(arrived, expected += running, state, forward_phase);
      }
      // Backward sweep z -= W U z from the last colour; each thread adds up its rows' r.z over
      // the colours, and at colour 0 (the last) each gang its threads'.
      for (int c = colors - 1; c >= 0 && together; --c) {
        const int first = int(color_start[c]), rows = int(color_start[c + 1]) - first;
        const int width = upper_width[c];
        const std::int32_t* column = upper_column + upper_start[c];
        const double* value = upper_value + upper_start[c];
#pragma acc loop gang worker vector
        for (int t = 0; t < threads; ++t) {
          double sum = 0;
          for (int k0 = t; k0 < rows; k0 += batch * threads) {
            int kk[batch];  // the batch's rows, past the colour's end clamped to k0
            double v[batch], zk[batch], wk[batch], rk[batch];
#pragma GCC unroll 4
            for (int j = 0; j < batch; ++j) {
              const int k = k0 + j * threads;
              kk[j] = k < rows ? k : k0;
              v[j] = 0.0;
              zk[j] = z[first + kk[j]];
              wk[j] = w[first + kk[j]];
              rk[j] = r[first + kk[j]];
            }
            for (int s0 = 0; s0 < width; s0 += slot_chunk) {
              int col[batch][slot_chunk];
              double a[batch][slot_chunk];
#pragma GCC unroll 4
              for (int j = 0; j < batch; ++j) {
                load_slots(column, value, rows, width, kk[j], s0, col[j], a[j]);
              }
#pragma GCC unroll 4
              for (int j = 0; j < batch; ++j) {
#pragma GCC unroll 4
                for (int u = 0; u < slot_chunk; ++u) v[j] += a[j][u] * z[col[j][u]];
              }
            }
#pragma GCC unroll 4
            for (int j = 0; j < batch; ++j) {
              if (k0 + j * threads < rows) {
                const double zi = zk[j] - wk[j] * v[j];
                z[first + kk[j]] = zi;
                sum += rk[j] * zi;
              }
            }
          }
          add_thread_part(thread_part, gang_threads, t < running_threads && c == colors - 1, sum);
        }
        if (c == 0) {  // this gang's threads' partial sums, in the same order in every gang
          const int gang = __builtin_goacc_parlevel_id(gang_dimension);
          double sum = 0;
#pragma acc loop worker vector reduction(+ : sum)
          for (int u = 0; u < gang_threads; ++u) sum += thread_part[gang * gang_threads + u];
          rz_part[gang] = sum;
        }
        together = timed_barrier(arrived, expected += running, state, backward_phase);
      }
      double rz = 0;
#pragma acc loop vector reduction(+ : rz)
      for (int h = 0; h < gangs; ++h) rz += rz_part[h];
      const double beta = iteration == 1 ? 0.0 : rz / rz_old;
      rz_old = rz;

      // p = z + beta p and q = A p in one pass (a neighbour's new p computed from z and its
      // old p), and p.q. Thread t takes the rows i = t (mod threads) of every colour.
#pragma acc loop gang worker vector
      for (int t = 0; t < threads; ++t) {
        double sum = 0;
        for (int c = 0; c < colors; ++c) {
          const int first = int(color_start[c]), rows = int(color_start[c + 1]) - first;
          const int lower_slots = lower_width[c], upper_slots = upper_width[c];
          const std::int32_t* lower_col = lower_column + lower_start[c];
          const double* lower_val = lower_value + lower_start[c];
          const std::int32_t* upper_col = upper_column + upper_start[c];
          const double* upper_val = upper_value + upper_start[c];
          for (int k = ((t - first) % threads + threads) % threads; k < rows; k += threads) {
            const int i = first + k;
            const double pi = z[i] + beta * p_old[i];
            double v = diagonal[i] * pi;
            for (int s0 = 0; s0 < lower_slots; s0 += slot_chunk) {
              int col[slot_chunk];
              double a[slot_chunk];
              load_slots(lower_col, lower_val, rows, lower_slots, k, s0, col, a);
#pragma GCC unroll 8
              for (int u = 0; u < slot_chunk; ++u) v += a[u] * (z[col[u]] + beta * p_old[col[u]]);
            }
            for (int s0 = 0; s0 < upper_slots; s0 += slot_chunk) {
              int col[slot_chunk];
              double a[slot_chunk];
              load_slots(upper_col, upper_val, rows, upper_slots, k, s0, col, a);
#pragma GCC unroll 8
              for (int u = 0; u < slot_chunk; ++u) v += a[u] * (z[col[u]] + beta * p_old[col[u]]);
            }
            p_new[i] = pi;
            q[i] = v;
            sum += pi * v;
          }
        }
        add_thread_part(thread_part, gang_threads, t < running_threads, sum);
      }
      {  // this gang's threads' partial sums, added in the same order in every gang
        const int gang = __builtin_goacc_parlevel_id(gang_dimension);
        double sum = 0;
#pragma acc loop worker vector reduction(+ : sum)
        for (int u = 0; u < gang_threads; ++u) sum += thread_part[gang * gang_threads + u];
        pq_part[gang] = sum;
      }
      together = timed_barrier(arrived, expected += running, state, product_phase);
      double pq = 0;
#pragma acc loop vector reduction(+ : pq)
      for (int h = 0; h < gangs; ++h) pq += pq_part[h];
      const double alpha = rz / pq;

      // x += alpha p, r -= alpha q, and r.r.
#pragma acc loop gang worker vector
      for (int t = 0; t < threads; ++t) {
        double sum = 0;
        for (int i = t; i < n; i += threads) {
          x[i] += alpha * p_new[i];
          const double ri = r[i] - alpha * q[i];
          r[i] = ri;
          sum += ri * ri;
        }
        add_thread_part(thread_part, gang_threads, t < running_threads, sum);
      }
      {  // this gang's threads' partial sums, added in the same order in every gang
        const int gang = __builtin_goacc_parlevel_id(gang_dimension);
        double sum = 0;
#pragma acc loop worker vector reduction(+ : sum)
        for (int u = 0; u < gang_threads; ++u) sum += thread_part[gang * gang_threads + u];
        rr_part[gang] = sum;
      }
      together = timed_barrier(arrived, expected += running, state, update_phase);
      rr = 0;
#pragma acc loop vector reduction(+ : rr)
      for (int h = 0; h < gangs; ++h) rr += rr_part[h];
      if (rr < eps2 * bb) break;
    }
    if (__builtin_goacc_parlevel_id(gang_dimension) == 0) {  // every gang holds the same
      state[0] = iteration;
      state[1] = rr;
      state[2] = bb;
      state[3] = double(expected);
    }
  }

  acc_update_self(state_.data(), sizeof(double) * state_.size());
  acc_update_self(arrived_.data(), sizeof(arrived_[0]) * arrived_.size());
  if (arrived_[0] & grid_barrier_stalled) {
    throw std::runtime_error(fmt::format(
        "iccg optimized: a gang waited {} polls at a barrier across gangs and gave up: were all "
        "{} gangs running at once (another process on the device?); --set resident=0 launches "
        "a construct per colour instead",
        grid_barrier_max_polls, gangs));
  }
  if (double(arrived_[0]) != state_[3]) {
    throw std::runtime_error(
        fmt::format("iccg optimized: the grid barrier counted {} arrivals where {} were expected",
                    arrived_[0], state_[3]));
  }
  Solution s;
  s.iterations = std::min(int(state_[0]), p_.max_iterations);
  if (arrived_[2] != 0) {  // timed on a GPU: the setup in us, the iteration's phases in us each
    const auto us = [&](int phase, int iterations) {
      return (state_[phase_slot + 2 * phase] + state_[phase_slot + 2 * phase + 1]) * 1e-3 /
             iterations;
    };
    const int iterations = std::max(1, int(state_[0]));
    double wait = 0;
    for (int phase = forward_phase; phase < phases; ++phase) {
      wait += state_[phase_slot + 2 * phase + 1];
    }
    extra_outputs_["setup_us"] = us(setup_phase, 1);
    extra_outputs_["phase_us_per_iteration"] = {{"forward", us(forward_phase, iterations)},
                                                {"backward", us(backward_phase, iterations)},
                                                {"product", us(product_phase, iterations)},
                                                {"update", us(update_phase, iterations)}};
    // Of which gang 0 waited at the barriers (for the slowest gang, and the barriers' latency).
    extra_outputs_["barrier_wait_us_per_iteration"] = wait * 1e-3 / iterations;
  }
  s.relative_residual = std::sqrt(state_[1]) / std::sqrt(state_[2]);
  s.converged = state_[1] < p_.eps * p_.eps * state_[2];
  return s;
}

}  // namespace

std::unique_ptr<Instance> make_optimized(const Params& params) {
  return std::make_unique<Optimized>(params);
}

}  // namespace acclab::iccg
