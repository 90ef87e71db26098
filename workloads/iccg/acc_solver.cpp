// The course's OpenACC steps of the ICCG solve: every loop of the multicolour solve as a
// `parallel loop` on arrays present on the device, one launch per colour for the IC(0) factor
// and each triangular sweep (rows of one colour are independent; the colours must follow one
// another, which on a GPU means one kernel each), dot products as `reduction(+)`.
//   data_present (04): the matrix and vectors entered on the device inside each solve and the
//                      solution copied out: the transfers are part of the time;
//   exclude_datacpy_time (05): the same kernels with the data entered at setup and the
//                      solution brought back in finish: the time is the solve alone.
// The kernels take device addresses (`deviceptr`), so that 03_unified (unified.cpp) runs them
// on CUDA managed memory too. Without a GPU the same loops run on the host.
#include <openacc.h>

#include <cmath>

#include "workloads/iccg/iccg.hpp"

namespace acclab::iccg {

Solution acc::solve_device(const DeviceSystem& d, const Ordering& o, double eps,
                           int max_iterations) {
  const std::int64_t n = d.n;
  const double* diagonal = d.diagonal;
  const std::int64_t* start = d.start;
  const std::int64_t* column = d.column;
  const double* value = d.value;
  const double* b = d.b;
  double *x = d.x, *w = d.w, *r = d.r, *z = d.z, *p = d.p, *q = d.q;
  Solution s;
  for (int c = 0; c < o.colors; ++c) {
    const std::int64_t first = o.color_start[c], last = o.color_start[c + 1];
#pragma acc parallel loop deviceptr(diagonal, start, column, value, w)
    for (std::int64_t i = first; i < last; ++i) {
      double v = diagonal[i];
      for (std::int64_t e = start[i]; e < start[i + 1]; ++e) {
        if (column[e] < i) v -= value[e] * value[e] * w[column[e]];
      }
      w[i] = 1.0 / v;
    }
  }
  double bb = 0;
#pragma acc parallel loop reduction(+:bb) deviceptr(b, x, r, p)
  for (std::int64_t i = 0; i < n; ++i) {
    x[i] = 0.0;
    r[i] = b[i];
    p[i] = 0.0;
    bb += b[i] * b[i];
  }
  const double norm_b = std::sqrt(bb);
  double rho_old = 1;
  for (s.iterations = 1; s.iterations <= max_iterations; ++s.iterations) {
    for (int c = 0; c < o.colors; ++c) {
      const std::int64_t first = o.color_start[c], last = o.color_start[c + 1];
#pragma acc parallel loop deviceptr(start, column, value, w, r, z)
      for (std::int64_t i = first; i < last; ++i) {
        double v = r[i];
        for (std::int64_t e = start[i]; e < start[i + 1]; ++e) {
          if (column[e] < i) v -= value[e] * z[column[e]];
        }
        z[i] = v * w[i];
      }
    }
    for (int c = o.colors - 1; c >= 0; --c) {
      const std::int64_t first = o.color_start[c], last = o.color_start[c + 1];
#pragma acc parallel loop deviceptr(start, column, value, w, z)
      for (std::int64_t i = first; i < last; ++i) {
        double v = 0;
        for (std::int64_t e = start[i]; e < start[i + 1]; ++e) {
          if (column[e] > i) v += value[e] * z[column[e]];
        }
        z[i] -= w[i] * v;
      }
    }
    double rho = 0;
#pragma acc parallel loop reduction(+:rho) deviceptr(r, z)
    for (std::int64_t i = 0; i < n; ++i) rho += r[i] * z[i];
    const double beta = s.iterations == 1 ? 0.0 : rho / rho_old;
    double pq = 0;
#pragma acc parallel loop deviceptr(z, p)
    for (std::int64_t i = 0; i < n; ++i) p[i] = z[i] + beta * p[i];
#pragma acc parallel loop reduction(+:pq) deviceptr(diagonal, start, column, value, p, q)
    for (std::int64_t i = 0; i < n; ++i) {
      double v = diagonal[i] * p[i];
      for (std::int64_t e = start[i]; e < start[i + 1]; ++e) v += value[e] * p[column[e]];
      q[i] = v;
      pq += p[i] * v;
    }
    const double alpha = rho / pq;
    double rr = 0;
#pragma acc parallel loop reduction(+:rr) deviceptr(x, r, p, q)
    for (std::int64_t i = 0; i < n; ++i) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
      rr += r[i] * r[i];
    }
    rho_old = rho;
    s.relative_residual = std::sqrt(rr) / norm_b;
    if (s.relative_residual < eps) {
      s.converged = true;
      break;
    }
  }
  s.iterations = std::min(s.iterations, max_iterations);
  return s;
}

namespace {

class AccSolver : public IccgInstance {
 public:
  AccSolver(const Params& params, bool resident) : IccgInstance(params), resident_(resident) {}
  ~AccSolver() override { release(); }
  void setup() override {
    IccgInstance::setup();
    const std::size_t n = std::size_t(a_.n);
    x_.assign(n, 0.0);
    w_.assign(n, 0.0);
    r_.assign(n, 0.0);
    z_.assign(n, 0.0);
    p_vec_.assign(n, 0.0);
    q_.assign(n, 0.0);
    if (resident_) enter();
  }
  void run() override {
    if (!resident_) enter();
    solution_ = acc::solve_device(device_system(), ordering_, p_.eps, p_.max_iterations);
    if (!resident_) {
      fetch_x();
      release();
    }
    solution_.x = x_;
  }
  // data_present: the copies in and out of one solve, alone.
  bool transfers_only() override {
    if (resident_) return false;
    enter();
    fetch_x();
    release();
    return true;
  }
  void finish() override {
    if (!resident_) return;
    fetch_x();
    solution_.x = x_;
    release();
  }

 private:
  void enter() {
    const std::int64_t n = a_.n, nnz = std::int64_t(a_.column.size());
    const double* diagonal = a_.diagonal.data();
    const std::int64_t* start = a_.start.data();
    const std::int64_t* column = a_.column.data();
    const double* value = a_.value.data();
    const double* b = b_.data();
    double *x = x_.data(), *w = w_.data(), *r = r_.data(), *z = z_.data(), *p = p_vec_.data(),
           *q = q_.data();
#pragma acc enter data copyin(diagonal[0:n], start[0:n+1], column[0:nnz], value[0:nnz], b[0:n]) \
                       create(x[0:n], w[0:n], r[0:n], z[0:n], p[0:n], q[0:n])
    entered_ = true;
  }
  // The device copies' addresses (the host arrays themselves where OpenACC runs on the host).
  DeviceSystem device_system() {
    const auto on_device = [](auto* host) {
      return static_cast<decltype(host)>(acc_deviceptr(const_cast<void*>(
          static_cast<const void*>(host))));
    };
    DeviceSystem d;
    d.n = a_.n;
    d.diagonal = on_device(a_.diagonal.data());
    d.start = on_device(a_.start.data());
    d.column = on_device(a_.column.data());
    d.value = on_device(a_.value.data());
    d.b = on_device(b_.data());
    d.x = on_device(x_.data());
    d.w = on_device(w_.data());
    d.r = on_device(r_.data());
    d.z = on_device(z_.data());
    d.p = on_device(p_vec_.data());
    d.q = on_device(q_.data());
    return d;
  }
  void fetch_x() {
    double* x = x_.data();
    const std::int64_t n = a_.n;
#pragma acc update self(x[0:n])
  }
  void release() {
    if (!entered_) return;
    const std::int64_t n = a_.n, nnz = std::int64_t(a_.column.size());
    const double* diagonal = a_.diagonal.data();
    const std::int64_t* start = a_.start.data();
    const std::int64_t* column = a_.column.data();
    const double* value = a_.value.data();
    const double* b = b_.data();
    double *x = x_.data(), *w = w_.data(), *r = r_.data(), *z = z_.data(), *p = p_vec_.data(),
           *q = q_.data();
#pragma acc exit data delete(diagonal[0:n], start[0:n+1], column[0:nnz], value[0:nnz], b[0:n], \
                             x[0:n], w[0:n], r[0:n], z[0:n], p[0:n], q[0:n])
    entered_ = false;
  }

  bool resident_;
  bool entered_ = false;
  std::vector<double> x_, w_, r_, z_, p_vec_, q_;
};

}  // namespace

std::unique_ptr<Instance> make_data_present(const Params& params) {
  return std::make_unique<AccSolver>(params, false);
}

std::unique_ptr<Instance> make_exclude_datacpy_time(const Params& params) {
  return std::make_unique<AccSolver>(params, true);
}

}  // namespace acclab::iccg
