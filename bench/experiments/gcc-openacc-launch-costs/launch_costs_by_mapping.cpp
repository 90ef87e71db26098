// What a GCC 12 OpenACC compute construct costs per launch, by what it maps: data clauses and
// scalars, or nothing at all (the kernel reads `declare create` globals), before and after a
// large array is mapped.
#include <openacc.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cstring>
#include <cuda_runtime.h>

#include "relax.hpp"  // lanes, relax<U>, us_per_step

static float* small_a;
static int g_n, g_k;
static float* g_d;
#pragma acc declare create(g_n, g_k, g_d)

__attribute__((noinline)) void tiny_present_small() {
  float* a = small_a;
#pragma acc parallel loop gang vector_length(32) num_gangs(1) present(a[0:1024])
  for (int i = 0; i < 1; ++i) {
#pragma acc loop vector
    for (int j = 0; j < 32; ++j) if (a[j] < -1e30f) a[j] = 1.0f;
  }
}
__attribute__((noinline)) void tiny_scalar(float* a, int k) {
#pragma acc parallel loop gang vector_length(32) num_gangs(1) present(a[0:1024])
  for (int i = 0; i < 1; ++i) {
#pragma acc loop vector
    for (int j = 0; j < 32; ++j) if (a[j] < -1e30f) a[j] = float(k);
  }
}
__attribute__((noinline)) void tiny_globals() {
#pragma acc parallel loop gang vector_length(32) num_gangs(1)
  for (int i = 0; i < 1; ++i) {
#pragma acc loop vector
    for (int j = 0; j < 32; ++j) if (g_d[j] < -1e30f) g_d[j] = float(g_k);
  }
}
__attribute__((noinline)) void tiny_globals_async() {
#pragma acc parallel loop gang vector_length(32) num_gangs(1) async(1)
  for (int i = 0; i < 1; ++i) {
#pragma acc loop vector
    for (int j = 0; j < 32; ++j) if (g_d[j] < -1e30f) g_d[j] = float(g_k);
  }
}
template <int U>
__attribute__((noinline)) void relax_globals() {
  constexpr int chunk = U * lanes;
#pragma acc parallel loop gang vector_length(256)
  for (int i = 0; i < g_n; ++i) {
    const int n = g_n, k = g_k;
    float* row = g_d + std::int64_t(i) * n;
    const float* pivot = g_d + std::int64_t(k) * n;
    const float dik = row[k];
#pragma acc loop vector
    for (int t = 0; t < n / chunk * lanes; ++t) {
      const int j = t / lanes * chunk + t % lanes;
      float now[U], through[U];
#pragma GCC unroll 16
      for (int u = 0; u < U; ++u) { now[u] = row[j + u * lanes]; through[u] = dik + pivot[j + u * lanes]; }
#pragma GCC unroll 16
      for (int u = 0; u < U; ++u) if (now[u] < through[u]) row[j + u * lanes] = through[u];
    }
  }
}

template <class F> void time(const char* name, int steps, F f) {
  std::printf("%-58s %8.1f us per step\n", name, us_per_step(steps, f));
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 8192;
  const bool cudart_first = argc > 2 && std::strchr(argv[2], 'c');
  const bool random_data = argc > 2 && std::strchr(argv[2], 'r');
  if (cudart_first) {  // as acclab's device probe: cudart's primary context before OpenACC's
    cudaSetDevice(0);
    cudaFree(nullptr);
  }
  std::printf("cudart first: %d, random data: %d\n", cudart_first, random_data);
  std::printf("n = %d, devices: %d\n", n, acc_get_num_devices(acc_device_nvidia));
  small_a = new float[1024]();
  float* a = small_a;
#pragma acc enter data copyin(a[0:1024])
  const int steps = 1000;
  time("before the big array: present(a[0:1024]), no scalar", steps, [](int) { tiny_present_small(); });
  time("before: present(a[0:1024]), 1 int", steps, [a](int r) { tiny_scalar(a, r); });

  {
    void* raw = acc_malloc(std::size_t(n) * n * sizeof(float));
    time("acc_malloc'd n^2 floats: present(a[0:1024]), no scalar", steps, [](int) { tiny_present_small(); });
    acc_free(raw);
  }
  std::vector<float> h(std::size_t(n) * n, -1.0f);
  time("host vector of n^2 floats: present(a[0:1024]), no scalar", steps, [](int) { tiny_present_small(); });
  if (random_data) {
    unsigned x = 1;
    for (auto& v : h) { x = x * 1664525u + 1013904223u; v = (x >> 8) % 50 == 0 ? -float((x >> 16) % 100) / 10 : -1e30f; }
  }
  for (int i = 0; i < n; ++i) h[std::size_t(i) * n + i] = 0;
  float* d = h.data();
  const std::int64_t nn = std::int64_t(n) * n;
#pragma acc enter data copyin(d[0:nn])
  time("after: present(a[0:1024]), no scalar", steps, [](int) { tiny_present_small(); });
  time("after: present(a[0:1024]), 1 int", steps, [a](int r) { tiny_scalar(a, r); });
  time("relax U=8, params (as acclab)", steps, [&](int r) { relax<8>(n, d, r % n); });
  time("relax U=16, params (as acclab)", steps, [&](int r) { relax<16>(n, d, r % n); });
  time("after: present(a[0:1024]), no scalar (again)", steps, [](int) { tiny_present_small(); });
#pragma acc exit data delete(d[0:nn])
  time("deleted: present(a[0:1024]), no scalar", steps, [](int) { tiny_present_small(); });
}
