// Host memory bandwidth: a copy over all cores, counted as STREAM counts it (bytes read plus
// bytes written). Half the copies use streaming stores (SSE2), which skip the read of each
// target line that a plain store makes, traffic the count would not see. Arrays of 256 MiB
// each are far larger than any last-level cache; the best of 10 copies is reported.
#include <omp.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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
  // The best of plain copies and streaming-store copies: whichever moves bytes faster on
  // this machine is its limit.
  double best = 1e30;
  for (int rep = 0; rep < 10; ++rep) {
#if defined(__SSE2__)
    const bool streaming = rep % 2 == 1;
#else
    const bool streaming = false;
#endif
    auto start = std::chrono::steady_clock::now();
#if defined(__SSE2__)
    if (streaming) {
      // new[] of doubles is 16-byte aligned, as _mm_stream_pd requires.
#pragma omp parallel
      {
#pragma omp for schedule(static)
        for (std::size_t i = 0; i < n; i += 2) _mm_stream_pd(dst + i, _mm_load_pd(src + i));
        _mm_sfence();
      }
    }
#endif
    if (!streaming) {
#pragma omp parallel for schedule(static)
      for (std::size_t i = 0; i < n; ++i) dst[i] = src[i];
    }
    std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    best = std::min(best, elapsed.count());
  }
  return 2.0 * n * sizeof(double) / best / 1e9;
}

}  // namespace acclab
