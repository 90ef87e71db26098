// Per-step cost of the optimize kernel under GCC 12's runtime, by what the construct maps.
#include <openacc.h>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "relax.hpp"  // lanes, relax<U>, us_per_step

// relax<U> on async queue 1: the clause written out rather than a parameter, so that relax<U>
// stays the construct the synchronous figures measured.
template <int U>
__attribute__((noinline)) void relax_async(int n, float* d, int k) {
  const std::int64_t nn = std::int64_t(n) * n;
  constexpr int chunk = U * lanes;
  const int chunked = n / chunk * lanes;
#pragma acc parallel loop gang vector_length(256) present(d[0:nn]) async(1)
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
__attribute__((noinline)) void tiny(int n, float* d, int k) {
  const std::int64_t nn = std::int64_t(n) * n;
#pragma acc parallel loop gang vector_length(32) num_gangs(1) present(d[0:nn])
  for (int i = 0; i < 1; ++i) {
#pragma acc loop vector
    for (int j = 0; j < 32; ++j) if (d[j] < -1e30f) d[j] = float(k);
  }
}
__attribute__((noinline)) void tiny_noscalar(float* d) {
#pragma acc parallel loop gang vector_length(32) num_gangs(1) present(d[0:1024])
  for (int i = 0; i < 1; ++i) {
#pragma acc loop vector
    for (int j = 0; j < 32; ++j) if (d[j] < -1e30f) d[j] = 1.0f;
  }
}
__attribute__((noinline)) void tiny_deviceptr(float* dd, int k) {
#pragma acc parallel loop gang vector_length(32) num_gangs(1) deviceptr(dd)
  for (int i = 0; i < 1; ++i) {
#pragma acc loop vector
    for (int j = 0; j < 32; ++j) if (dd[j] < -1e30f) dd[j] = float(k);
  }
}

template <class F> void time(const char* name, int steps, F f) {
  std::printf("%-50s %8.1f us per step\n", name, us_per_step(steps, f));
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 8192;
  std::vector<float> h(std::size_t(n) * n, -1.0f);
  for (int i = 0; i < n; ++i) h[std::size_t(i) * n + i] = 0;
  float* d = h.data();
  const std::int64_t nn = std::int64_t(n) * n;
#pragma acc enter data copyin(d[0:nn])
  float* dd = (float*)acc_deviceptr(d);
  std::printf("n = %d, devices: %d\n", n, acc_get_num_devices(acc_device_nvidia));
  const int steps = 1000;
  time("tiny, present(d[0:nn]) big, 1 int", steps, [&](int r) { tiny(n, d, r); });
  time("tiny, present(d[0:1024]), no scalar", steps, [&](int) { tiny_noscalar(d); });
  time("tiny, deviceptr, 1 int", steps, [&](int r) { tiny_deviceptr(dd, r); });
  time("relax U=8, sync", steps, [&](int r) { relax<8>(n, d, r % n); });
  time("relax U=16, sync", steps, [&](int r) { relax<16>(n, d, r % n); });
  time("relax U=8, async(1), one wait", steps, [&](int r) { relax_async<8>(n, d, r % n); });
  time("tiny, sync (again)", steps, [&](int r) { tiny(n, d, r); });
#pragma acc exit data delete(d[0:nn])
}
