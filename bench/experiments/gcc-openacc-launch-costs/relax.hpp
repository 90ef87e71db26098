// What launch_costs.cpp and launch_costs_by_mapping.cpp share: apsp's relaxation step as
// acclab's `optimize` ran it (U columns a lane, the matrix present, n, d and k passed as the
// construct's scalars), and the loop that times a step.
#pragma once
#include <openacc.h>
#include <chrono>
#include <cstdint>

constexpr int lanes = 256;
template <int U>
__attribute__((noinline)) void relax(int n, float* d, int k) {
  const std::int64_t nn = std::int64_t(n) * n;
  constexpr int chunk = U * lanes;
  const int chunked = n / chunk * lanes;
#pragma acc parallel loop gang vector_length(256) present(d[0:nn])
  for (int i = 0; i < n; ++i) {
    float* row = d + std::int64_t(i) * n;
    const float* pivot = d + std::int64_t(k) * n;
    const float dik = row[k];
#pragma acc loop vector
    for (int t = 0; t < chunked; ++t) {
      const int j = t / lanes * chunk + t % lanes;
      float now[U], through[U];
#pragma GCC unroll 16
      for (int u = 0; u < U; ++u) { now[u] = row[j + u * lanes]; through[u] = dik + pivot[j + u * lanes]; }
#pragma GCC unroll 16
      for (int u = 0; u < U; ++u) if (now[u] < through[u]) row[j + u * lanes] = through[u];
    }
  }
}

// Microseconds a step: `steps` calls f(0) .. f(steps - 1) after 20 untimed ones, each batch
// waited for to its end (acc_wait_all, so that a step on an async queue counts whole).
template <class F> double us_per_step(int steps, F f) {
  for (int r = 0; r < 20; ++r) f(r);
  acc_wait_all();
  auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < steps; ++r) f(r);
  acc_wait_all();
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / steps;
}
