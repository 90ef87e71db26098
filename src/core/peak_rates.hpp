// The compute roofs of a roofline: a processor's peak FP64 and FP32 rates, worked out from what
// the processor says about itself (a GPU's attributes, the host's /proc/cpuinfo) rather than
// measured. Plain arithmetic, so that it is tested without a GPU.
#pragma once

#include <istream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace acclab {

// Fused multiply-adds one multiprocessor completes a clock cycle, by kind (each counts 2 flops).
struct FmaPerCycle {
  int fp64 = 0;
  int fp32 = 0;
  int fp64_tensor = 0;  // FP64 matrix (DMMA) units; 0 where the architecture has none
};

// The FMA rates of a compute capability, or nullopt for one acclab's table does not hold.
std::optional<FmaPerCycle> cuda_fma_per_cycle(int major, int minor);

// Peak rates in GFLOP/s (an FMA counted as 2 flops) and how they were obtained.
struct PeakRates {
  std::optional<double> fp64_gflops;
  std::optional<double> fp32_gflops;
  std::optional<double> fp64_tensor_gflops;
  std::string origin;   // how the figures were worked out, one line
  std::string missing;  // non-empty: why there are none
  nlohmann::json json() const;
};

// multiprocessors × clock × FMAs a multiprocessor a cycle × 2. `clock_khz` is the device's peak
// (boost) clock as the CUDA attribute cudaDevAttrClockRate gives it.
PeakRates gpu_peak_rates(int multiprocessors, double clock_khz, int major, int minor);

// The peaks of a card named in a file written before results recorded peaks (its devices[].name):
// NVIDIA's published SM count and boost clock of the cards acclab has run on, through
// gpu_peak_rates, with an origin saying so; nullopt for a card not in that list.
std::optional<PeakRates> published_gpu_peak_rates(const std::string& name);

// What the host's peak depends on, as Linux tells it.
struct HostCpu {
  int physical_cores = 0;
  double mhz = 0;
  std::string mhz_from;  // "model name", "cpu MHz" or "" when unknown
  int vector_bits = 0;   // widest FP vector the flags name: 512 (avx512f), 256 (avx), 128 (sse2)
  bool fma = false;      // the fma (or avx512f) flag
};

// Reads /proc/cpuinfo's text: physical cores are the distinct (physical id, core id) pairs
// (hyperthreads share their core's FMA units); the clock is the nominal one in the model name
// ("@ 2.10GHz") where it says one, else the highest "cpu MHz" seen (the current clock).
HostCpu parse_cpuinfo(std::istream& cpuinfo, int logical_cpus);

// physical cores × clock × doubles a vector × 2 FMA pipes a core × 2: a nominal figure, since
// neither the pipes (one or two) nor the clock under a full vector load are in /proc/cpuinfo.
PeakRates host_peak_rates(const HostCpu& cpu);

}  // namespace acclab
