// Host memory bandwidth: a copy over all cores, as STREAM's Copy counts it (bytes read plus
// bytes written). Arrays of 256 MiB each are far larger than any last-level cache.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <memory>

#include "core/machine.hpp"

namespace acclab {

double host_copy_gbps() {
  const std::size_t n = std::size_t(32) << 20;  // doubles per array: 256 MiB
  std::unique_ptr<double[]> source(new double[n]);
  std::unique_ptr<double[]> target(new double[n]);
  double* src = source.get();
  double* dst = target.get();
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    src[i] = static_cast<double>(i & 1023);
    dst[i] = 0;
  }
  double best = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    auto start = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) dst[i] = src[i];
    std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    best = std::min(best, elapsed.count());
  }
  // Each element is read once and written once.
  return 2.0 * n * sizeof(double) / best / 1e9;
}

}  // namespace acclab
