// data_present's solve (acc::solve_device, acc_solver.cpp) in OpenMP target form, for
// omp_target_map and omp_target_data: every loop a `target teams distribute parallel for simd`
// whose maps find the system present (the caller maps or enters it), one region a colour for the
// IC(0) factor and each triangular sweep (the colours follow one another; a colour's rows are
// independent), the dot products `reduction(+:)`, their sums brought back to the host as
// OpenACC's `reduction` brings them. Include it only from OpenMP target sources.
//
// In an anonymous namespace: each step's file compiles its own regions, so that `acclab explain`
// shows them for either step, and no target region is a function two objects share.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kit/omp_data.hpp"
#include "workloads/iccg/iccg.hpp"

namespace acclab::iccg {
namespace {

// Host addresses of the permuted system and the solver's vectors, each mapped or entered whole.
struct OmpCsr {
  std::int64_t n = 0;    // >= 1 (every mesh and matrix has a row)
  std::int64_t nnz = 0;  // >= 1: see OmpCsrVectors::arrays
  const double* diagonal = nullptr;
  const std::int64_t* start = nullptr;  // n + 1
  const std::int64_t* column = nullptr;
  const double* value = nullptr;
  const double* b = nullptr;
  double *x = nullptr, *w = nullptr, *r = nullptr, *z = nullptr, *p = nullptr, *q = nullptr;
};

// The solver's vectors beside a permuted system, and both as OmpCsr.
struct OmpCsrVectors {
  std::vector<double> x, w, r, z, p, q;
  // A matrix without couplings (one cell, a diagonal matrix) has empty column and value arrays,
  // and a zero-length section must never be mapped (kit/omp_data.hpp): such a system maps this
  // one element instead, which no row reads (its start[] offsets are all 0).
  std::int64_t no_column = 0;
  double no_value = 0;

  void assign(std::int64_t n) {
    for (auto* v : {&x, &w, &r, &z, &p, &q}) v->assign(std::size_t(n), 0.0);
  }
  OmpCsr arrays(const Csr& a, const std::vector<double>& b) {
    const bool coupled = !a.column.empty();
    OmpCsr d;
    d.n = a.n;
    d.nnz = coupled ? std::int64_t(a.column.size()) : 1;
    d.diagonal = a.diagonal.data();
    d.start = a.start.data();
    d.column = coupled ? a.column.data() : &no_column;
    d.value = coupled ? a.value.data() : &no_value;
    d.b = b.data();
    d.x = x.data();
    d.w = w.data();
    d.r = r.data();
    d.z = z.data();
    d.p = p.data();
    d.q = q.data();
    return d;
  }
};

// `target enter data` of the system (copied) and the vectors (allocated), and its undoing.
inline void omp_enter_csr(const OmpCsr& d) {
  omp_enter_to(d.diagonal, d.n);
  omp_enter_to(d.start, d.n + 1);
  omp_enter_to(d.column, d.nnz);
  omp_enter_to(d.value, d.nnz);
  omp_enter_to(d.b, d.n);
  for (double* v : {d.x, d.w, d.r, d.z, d.p, d.q}) omp_enter_alloc(v, d.n);
}
inline void omp_exit_csr(const OmpCsr& d) {
  omp_exit_delete(d.diagonal, d.n);
  omp_exit_delete(d.start, d.n + 1);
  omp_exit_delete(d.column, d.nnz);
  omp_exit_delete(d.value, d.nnz);
  omp_exit_delete(d.b, d.n);
  for (double* v : {d.x, d.w, d.r, d.z, d.p, d.q}) omp_exit_delete(v, d.n);
}

// The solve on `d`, present on the device; x stays there. `factor_scale` times the diagonal is
// factored (1 + shift; 1 for the course's mesh).
inline Solution omp_solve_csr(const OmpCsr& d, const Ordering& o, double factor_scale, double eps,
                              int max_iterations) {
  const std::int64_t n = d.n, nnz = d.nnz;
  const double* diagonal = d.diagonal;
  const std::int64_t* start = d.start;
  const std::int64_t* column = d.column;
  const double* value = d.value;
  const double* b = d.b;
  double *x = d.x, *w = d.w, *r = d.r, *z = d.z, *p = d.p, *q = d.q;
  Solution s;
  // The maps below are clauses of directives: left as written.
  // clang-format off
  for (int c = 0; c < o.colors; ++c) {
    const std::int64_t first = o.color_start[c], last = o.color_start[c + 1];
#pragma omp target teams distribute parallel for simd \
    map(alloc: diagonal[0:n], start[0:n+1], column[0:nnz], value[0:nnz], w[0:n])
    for (std::int64_t i = first; i < last; ++i) {
      double v = factor_scale * diagonal[i];
      for (std::int64_t e = start[i]; e < start[i + 1]; ++e) {
        if (column[e] < i) v -= value[e] * value[e] * w[column[e]];
      }
      w[i] = 1.0 / v;
    }
  }
  double bb = 0;
#pragma omp target teams distribute parallel for simd \
    map(alloc: b[0:n], x[0:n], r[0:n], p[0:n]) map(tofrom: bb) reduction(+: bb)
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
#pragma omp target teams distribute parallel for simd \
    map(alloc: start[0:n+1], column[0:nnz], value[0:nnz], w[0:n], r[0:n], z[0:n])
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
#pragma omp target teams distribute parallel for simd \
    map(alloc: start[0:n+1], column[0:nnz], value[0:nnz], w[0:n], z[0:n])
      for (std::int64_t i = first; i < last; ++i) {
        double v = 0;
        for (std::int64_t e = start[i]; e < start[i + 1]; ++e) {
          if (column[e] > i) v += value[e] * z[column[e]];
        }
        z[i] -= w[i] * v;
      }
    }
    double rho = 0;
#pragma omp target teams distribute parallel for simd \
    map(alloc: r[0:n], z[0:n]) map(tofrom: rho) reduction(+: rho)
    for (std::int64_t i = 0; i < n; ++i) rho += r[i] * z[i];
    const double beta = s.iterations == 1 ? 0.0 : rho / rho_old;
#pragma omp target teams distribute parallel for simd map(alloc: z[0:n], p[0:n])
    for (std::int64_t i = 0; i < n; ++i) p[i] = z[i] + beta * p[i];
    double pq = 0;
#pragma omp target teams distribute parallel for simd \
    map(alloc: diagonal[0:n], start[0:n+1], column[0:nnz], value[0:nnz], p[0:n], q[0:n]) \
    map(tofrom: pq) reduction(+: pq)
    for (std::int64_t i = 0; i < n; ++i) {
      double v = diagonal[i] * p[i];
      for (std::int64_t e = start[i]; e < start[i + 1]; ++e) v += value[e] * p[column[e]];
      q[i] = v;
      pq += p[i] * v;
    }
    const double alpha = rho / pq;
    double rr = 0;
#pragma omp target teams distribute parallel for simd \
    map(alloc: x[0:n], r[0:n], p[0:n], q[0:n]) map(tofrom: rr) reduction(+: rr)
    for (std::int64_t i = 0; i < n; ++i) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
      rr += r[i] * r[i];
    }
    // clang-format on
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

}  // namespace
}  // namespace acclab::iccg
