// iccg's CUDA kernels, as plain functions on device pointers: every launch goes to `stream` and
// is checked; nothing here waits for the device.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

namespace acclab::iccg::cuda {

// The colour slabs (color_ell.hpp) on the device, with the per-colour offsets kept on the host
// too (launch arguments), and the solver's vectors.
struct Slabs {
  std::int64_t n = 0;
  int colors = 0;
  std::vector<std::int64_t> color_start, lower_start, upper_start;  // host copies
  std::vector<int> lower_width, upper_width;
  const std::int64_t *color_start_d, *lower_start_d, *upper_start_d;
  const int *lower_width_d, *upper_width_d;
  const std::int32_t *lower_column, *upper_column;
  const double *lower_value, *upper_value, *diagonal, *b;
  double *x, *w, *r, *z, *p[2], *q;
  double factor_scale = 1;  // the factor takes factor_scale times the diagonal (1 + shift)
};

// r.r's value where p.q <= 0 stopped the solve: no sum of squares gives it.
inline constexpr double indefinite_rr = -1;

// The solve's scalars on the device, one of each per iteration (index 0: before the first):
// rho[it] = r.z, pq[it] = p.q, rr[it] = r.r after iteration it, or indefinite_rr where p.q <= 0
// stopped the solve at it (A is not positive definite). Iteration `it` of a queued batch
// is *iteration + its offset in the batch. A kernel of iteration it does nothing when it >
// max_iterations or rr[it - 1] < tol2 (the solve converged, or stopped, before it): batches
// may be queued past convergence at the cost of empty launches.
struct Scalars {
  double *rho, *pq, *rr;
  int* iteration;
  double tol2;  // eps^2 ||b||^2
  int max_iterations;
};

// W, the IC(0) diagonal, colour by colour.
void factor(const Slabs& s, cudaStream_t stream);
// x = 0, r = b, z = 0, p = 0 (both).
void start(const Slabs& s, cudaStream_t stream);
// Iterations *iteration + 1 .. *iteration + count (count even: p's two arrays alternate with
// the iteration's parity), then *iteration += count. With `overlap`, each kernel is a
// programmatic dependent launch of the one before (sm_90): it loads its rows' couplings while
// that one finishes.
// Threads a block of the iteration's kernels: the sweeps' (forward and backward, a thread a row
// of a colour) and the vector kernels' (the product and the update, a thread a row): 64, 128,
// 256, 512 or 1024 each.
struct Blocks {
  int sweep = 256;
  int vector = 256;
};
void iterate(const Slabs& s, const Scalars& k, int count, bool overlap, const Blocks& blocks,
             cudaStream_t stream);
// Whether the kernels were built with the wait that `overlap` needs (sm_90 or later).
bool overlap_supported();

// Partial sums of x.y added into *result (zeroed by the caller), and y += alpha x style updates
// for the cusparse variant, whose scalars live on the host.
void dot(std::int64_t n, const double* x, const double* y, double* result, cudaStream_t stream);
// p = z + beta p
void xpay(std::int64_t n, const double* z, double beta, double* p, cudaStream_t stream);
// x += alpha p, r -= alpha q
void update(std::int64_t n, double alpha, const double* p, const double* q, double* x, double* r,
            cudaStream_t stream);

}  // namespace acclab::iccg::cuda
