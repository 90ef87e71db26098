// Does an async OpenACC construct on one queue run beside a long one on another queue with
// GCC 12's libgomp, and does queuing it make the host wait? One long kernel on queue 1, then a
// short construct on queue 2, in three forms: with firstprivate scalars (libgomp maps them with
// a device allocation each launch, which first frees the blocks earlier launches left), without
// scalars (its bounds and values from device memory), and with scalars but no earlier launch
// left to free. Prints, for each, the host time to queue it, when queue 2 finished and when
// queue 1 finished (ms after the long kernel was queued).
// Build and run: README.md beside it.
#include <openacc.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
double ms(Clock::time_point from) {
  return std::chrono::duration<double, std::milli>(Clock::now() - from).count();
}

constexpr int n = 1 << 24, m = 1 << 16;
float* b_ = nullptr;  // the short constructs' array

void long_kernel(float* a, int repeats) {
#pragma acc parallel loop gang vector present(a[0:n]) async(1)
  for (int i = 0; i < n; ++i) {
    float x = a[i];
    for (int r = 0; r < repeats; ++r) x = x * 0.999f + 0.001f;
    a[i] = x;
  }
}

void short_with_scalars(float* b, float scale, int count) {
#pragma acc parallel loop gang vector present(b[0:m]) async(2)
  for (int i = 0; i < count; ++i) b[i] = b[i] * scale + 1.0f;
}

// The same, synchronous: its own argument block is freed at once, and its allocation first
// frees every block left by earlier async launches.
void short_sync(float* b, float scale, int count) {
#pragma acc parallel loop gang vector present(b[0:m])
  for (int i = 0; i < count; ++i) b[i] = b[i] * scale + 1.0f;
}

// The same, its count and scale read from params (device memory): no firstprivate scalar.
void short_without_scalars(float* b, const float* params) {
#pragma acc parallel loop gang vector present(b[0:m], params[0:2]) async(2)
  for (int i = 0; i < m; ++i) b[i] = b[i] * params[0] + params[1];
}

template <typename Short>
void probe(const char* name, float* a, int repeats, bool leave_blocks, Short&& queue_short) {
  if (leave_blocks) {  // launches whose argument blocks the runtime frees later
    for (int k = 0; k < 4; ++k) queue_short();
    acc_wait(2);
  } else {
    short_sync(b_, 1.0f, m);
  }
  const auto start = Clock::now();
  long_kernel(a, repeats);
  const double long_queued = ms(start);
  queue_short();
  const double short_queued = ms(start);
  acc_wait(2);
  const double short_done = ms(start);
  const bool long_running = !acc_async_test(1);
  acc_wait(1);
  const double long_done = ms(start);
  std::printf("%-34s long queued %7.3f ms, short queued %7.3f ms, short done %7.3f ms "
              "(long still running: %s), long done %7.3f ms\n",
              name, long_queued, short_queued, short_done, long_running ? "yes" : "no",
              long_done);
}

}  // namespace

int main(int argc, char** argv) {
  // The long kernel's work a cell (argv[1]): 4000 takes some ms on an H200.
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 4000;
  std::vector<float> a(n, 1.0f), b(m, 1.0f);
  float params[2] = {0.5f, 1.0f};
  float* pa = a.data();
  float* pb = b.data();
  b_ = pb;
#pragma acc enter data copyin(pa[0:n], pb[0:m], params[0:2])
  long_kernel(pa, 10);  // warm-up: module load, first launches
  acc_wait(1);
  for (int round = 0; round < 2; ++round) {
    probe("with scalars, blocks left to free", pa, repeats, true,
          [&] { short_with_scalars(pb, 0.5f, m); });
    probe("with scalars, none left", pa, repeats, false,
          [&] { short_with_scalars(pb, 0.5f, m); });
    probe("without scalars, blocks left", pa, repeats, true,
          [&] { short_without_scalars(pb, params); });
  }
#pragma acc exit data delete(pa[0:n], pb[0:m], params[0:2])
  return 0;
}
