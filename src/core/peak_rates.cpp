#include "core/peak_rates.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>
#include <utility>

namespace acclab {

std::optional<FmaPerCycle> cuda_fma_per_cycle(int major, int minor) {
  // FP64 and FP32: the CUDA C++ Programming Guide's "Throughput of Native Arithmetic
  // Instructions" table (results per clock cycle per multiprocessor, 64- and 32-bit
  // floating-point add, multiply, multiply-add). FP64 tensor: NVIDIA's published FP64 Tensor
  // Core rates over SMs × boost clock: A100 SXM 19.5 TFLOP/s = 108 × 1.41 GHz × 64 FMA × 2;
  // H100 SXM 67 TFLOP/s = 132 × 1.98 GHz × 128 FMA × 2 (datasheet; its vector FP64 is 34, its
  // FP32 67: 33.5 and 66.9 here). The cards of one capability share these rates per SM.
  struct Row {
    int major, minor;
    FmaPerCycle fma;
  };
  static constexpr Row table[] = {
      {6, 0, {32, 64, 0}},     // P100
      {6, 1, {4, 128, 0}},     // GP10x
      {7, 0, {32, 64, 0}},     // V100
      {7, 5, {2, 64, 0}},      // T4, Turing
      {8, 0, {32, 64, 64}},    // A100, A30
      {8, 6, {2, 128, 0}},     // A10, A40, GA10x
      {8, 9, {2, 128, 0}},     // L4, L40, Ada
      {9, 0, {64, 128, 128}},  // H100, H200, GH200
  };
  for (const Row& row : table) {
    if (row.major == major && row.minor == minor) return row.fma;
  }
  return std::nullopt;
}

nlohmann::json PeakRates::json() const {
  auto optional = [](const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  if (!missing.empty()) return {{"fp64", nullptr}, {"fp32", nullptr}, {"missing", missing}};
  nlohmann::json j = {
      {"fp64", optional(fp64_gflops)}, {"fp32", optional(fp32_gflops)}, {"origin", origin}};
  if (fp64_tensor_gflops) j["fp64_tensor"] = *fp64_tensor_gflops;
  return j;
}

PeakRates gpu_peak_rates(int multiprocessors, double clock_khz, int major, int minor) {
  PeakRates peaks;
  if (multiprocessors <= 0 || !(clock_khz > 0)) {
    peaks.missing = "the device did not report its multiprocessors and clock";
    return peaks;
  }
  const auto fma = cuda_fma_per_cycle(major, minor);
  if (!fma) {
    peaks.missing = fmt::format(
        "compute capability {}.{} is not in acclab's table of FMA rates (core/peak_rates.cpp)",
        major, minor);
    return peaks;
  }
  // GFLOP/s = SMs × cycles a second (kHz × 1e3) × FMAs a cycle × 2 flops / 1e9.
  const double fma_gflops = 2.0 * multiprocessors * clock_khz * 1e-6;
  peaks.fp64_gflops = fma_gflops * fma->fp64;
  peaks.fp32_gflops = fma_gflops * fma->fp32;
  if (fma->fp64_tensor > 0) peaks.fp64_tensor_gflops = fma_gflops * fma->fp64_tensor;
  peaks.origin = fmt::format(
      "attributes: {} multiprocessors × {:.0f} MHz × FMA a cycle for compute capability {}.{} "
      "(FP64 {}, FP32 {}{}) × 2 flops",
      multiprocessors, clock_khz / 1e3, major, minor, fma->fp64, fma->fp32,
      fma->fp64_tensor > 0 ? fmt::format(", FP64 tensor {}", fma->fp64_tensor) : "");
  return peaks;
}

std::optional<PeakRates> published_gpu_peak_rates(const std::string& name) {
  // The cards' names as the CUDA runtime gives them; SMs and boost clock from NVIDIA's datasheets.
  struct Card {
    const char* name;
    int multiprocessors, boost_mhz, major, minor;
  };
  static constexpr Card cards[] = {
      {"NVIDIA H100 80GB HBM3", 132, 1980, 9, 0},  // H100 SXM5
      {"NVIDIA H200", 132, 1980, 9, 0},            // H200 SXM
      {"NVIDIA H100 PCIe", 114, 1755, 9, 0},       // H100 PCIe
      {"NVIDIA A100-SXM4-40GB", 108, 1410, 8, 0},  // A100 SXM4 40 GB
      {"NVIDIA A100-SXM4-80GB", 108, 1410, 8, 0},  // A100 SXM4 80 GB
  };
  for (const Card& card : cards) {
    if (name != card.name) continue;
    PeakRates peaks =
        gpu_peak_rates(card.multiprocessors, card.boost_mhz * 1e3, card.major, card.minor);
    peaks.origin = fmt::format(
        "worked out by the report, the file records none: {} SMs × {} MHz, NVIDIA's published "
        "configuration of the {}, × FMA a cycle for compute capability {}.{} × 2 flops",
        card.multiprocessors, card.boost_mhz, card.name, card.major, card.minor);
    return peaks;
  }
  return std::nullopt;
}

HostCpu parse_cpuinfo(std::istream& cpuinfo, int logical_cpus) {
  HostCpu cpu;
  std::set<std::pair<std::string, std::string>> cores;
  std::string physical_id, line, model;
  std::set<std::string> flags;
  double highest_mhz = 0;
  auto value_of = [](const std::string& text) {
    const auto colon = text.find(':');
    if (colon == std::string::npos) return std::string();
    const auto start = text.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? std::string() : text.substr(start);
  };
  auto key_is = [](const std::string& text, const char* key) {
    return text.rfind(key, 0) == 0 && text.find(':') != std::string::npos &&
           text.substr(0, text.find_first_of("\t:")) == key;
  };
  while (std::getline(cpuinfo, line)) {
    if (key_is(line, "physical id")) {
      physical_id = value_of(line);
    } else if (key_is(line, "core id")) {
      cores.insert({physical_id, value_of(line)});
    } else if (key_is(line, "model name") && model.empty()) {
      model = value_of(line);
    } else if (key_is(line, "cpu MHz")) {
      try {
        highest_mhz = std::max(highest_mhz, std::stod(value_of(line)));
      } catch (const std::exception&) {
      }
    } else if (key_is(line, "flags") && flags.empty()) {
      std::istringstream words(value_of(line));
      for (std::string word; words >> word;) flags.insert(word);
    }
  }
  cpu.physical_cores = cores.empty() ? logical_cpus : static_cast<int>(cores.size());
  std::smatch ghz;
  if (std::regex_search(model, ghz, std::regex(R"(@\s*([0-9]+(\.[0-9]+)?)\s*GHz)"))) {
    cpu.mhz = std::stod(ghz[1].str()) * 1e3;
    cpu.mhz_from = "model name";
  } else if (highest_mhz > 0) {
    cpu.mhz = highest_mhz;
    cpu.mhz_from = "cpu MHz";
  }
  cpu.vector_bits = flags.count("avx512f") ? 512
                    : flags.count("avx")   ? 256
                    : flags.count("sse2")  ? 128
                                           : 0;
  cpu.fma = flags.count("fma") > 0 || flags.count("avx512f") > 0;
  return cpu;
}

PeakRates host_peak_rates(const HostCpu& cpu) {
  PeakRates peaks;
  if (cpu.physical_cores <= 0 || cpu.mhz <= 0 || cpu.vector_bits <= 0) {
    peaks.missing = "/proc/cpuinfo gave no core count, clock or vector flags";
    return peaks;
  }
  // Two vector pipes a core: each an FMA (2 flops a lane), or without FMA an add beside a
  // multiply (1 flop a lane each).
  const int doubles = cpu.vector_bits / 64;
  const int flops_a_pipe = cpu.fma ? 2 : 1;
  const double fp64 = cpu.physical_cores * cpu.mhz * 1e-3 * doubles * 2 * flops_a_pipe;
  peaks.fp64_gflops = fp64;
  peaks.fp32_gflops = 2 * fp64;
  peaks.origin = fmt::format(
      "nominal: {} cores × {:.0f} MHz ({}) × {} doubles a {}-bit vector × 2 pipes × {} flop{} "
      "({}); the pipes a core has and the clock under vector load are not in /proc/cpuinfo",
      cpu.physical_cores, cpu.mhz,
      cpu.mhz_from == "model name" ? "the model name's" : "the current clock, /proc/cpuinfo",
      doubles, cpu.vector_bits, flops_a_pipe, flops_a_pipe > 1 ? "s" : "",
      cpu.fma ? "FMA" : "an add beside a multiply");
  return peaks;
}

}  // namespace acclab
