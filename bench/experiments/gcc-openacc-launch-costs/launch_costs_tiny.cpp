// Per-launch cost of GCC 12 OpenACC compute constructs by the scalars they take.
#include <openacc.h>
#include <chrono>
#include <cstdio>
#include <cstring>

static float* a;
struct P { int n, k, q; };

__attribute__((noinline)) void k0() {
#pragma acc parallel loop present(a[0:1024]) num_gangs(1) vector_length(32)
  for (int j = 0; j < 32; ++j) a[j] += 1;
}
__attribute__((noinline)) void k1(int k) {
#pragma acc parallel loop present(a[0:1024]) num_gangs(1) vector_length(32)
  for (int j = 0; j < 32; ++j) a[j] += k;
}
__attribute__((noinline)) void k3(int n, int k, int q) {
#pragma acc parallel loop present(a[0:1024]) num_gangs(1) vector_length(32)
  for (int j = 0; j < 32; ++j) a[j] += n + k * q;
}
__attribute__((noinline)) void kdev(float* d, int n, int k, int q) {
#pragma acc parallel loop deviceptr(d) num_gangs(1) vector_length(32)
  for (int j = 0; j < 32; ++j) d[j] += n + k * q;
}
__attribute__((noinline)) void kstruct(P p) {
#pragma acc parallel loop present(a[0:1024]) num_gangs(1) vector_length(32) firstprivate(p)
  for (int j = 0; j < 32; ++j) a[j] += p.n + p.k * p.q;
}
__attribute__((noinline)) void kbig(int n, int k, int q) {
  // a row-sized kernel: 16384 gangs
#pragma acc parallel loop gang vector_length(256) present(a[0:1024])
  for (int i = 0; i < n; ++i) {
#pragma acc loop vector
    for (int j = 0; j < 256; ++j) if (i == 0) a[j] += k * q;
  }
}

template <class F> void time(const char* name, F f) {
  for (int r = 0; r < 50; ++r) f(r);
  auto t0 = std::chrono::steady_clock::now();
  const int reps = 2000;
  for (int r = 0; r < reps; ++r) f(r);
  double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / reps;
  std::printf("%-40s %8.1f us per launch\n", name, us);
}

int main() {
  a = new float[1024]();
#pragma acc enter data copyin(a[0:1024])
  float* d = (float*)acc_deviceptr(a);
  std::printf("devices: %d\n", acc_get_num_devices(acc_device_nvidia));
  time("present, no scalar", [](int) { k0(); });
  time("present, 1 int", [](int r) { k1(r); });
  time("present, 3 ints", [](int r) { k3(r, r, r); });
  time("deviceptr, 3 ints", [d](int r) { kdev(d, r, r, r); });
  time("present, struct of 3 ints", [](int r) { kstruct(P{r, r, r}); });
  time("16384 gangs x 256, 3 ints", [](int r) { kbig(16384, r, r); });
#pragma acc exit data copyout(a[0:1024])
  std::printf("a[0] = %g\n", a[0]);
}
