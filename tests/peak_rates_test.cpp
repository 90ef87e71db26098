// The compute roofs worked out from a device's attributes and the host's /proc/cpuinfo,
// checked against the rates NVIDIA publishes for its cards (vector FMA, not tensor, unless
// named) and against hand-worked host figures.
#include "core/peak_rates.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace acclab {
namespace {

TEST(PeakRatesTest, H100SxmMatchesNvidiasPublishedRates) {
  // 132 SMs, 1980 MHz boost, sm_90. NVIDIA's datasheet: FP64 34, FP64 Tensor Core 67, FP32 67
  // TFLOP/s (33.5, 66.9 and 66.9 before rounding).
  const PeakRates peaks = gpu_peak_rates(132, 1980000, 9, 0);
  ASSERT_TRUE(peaks.missing.empty()) << peaks.missing;
  EXPECT_NEAR(*peaks.fp64_gflops, 33454.08, 0.01);
  EXPECT_NEAR(*peaks.fp32_gflops, 66908.16, 0.01);
  EXPECT_NEAR(*peaks.fp64_tensor_gflops, 66908.16, 0.01);
  EXPECT_NE(peaks.origin.find("attributes: 132 multiprocessors × 1980 MHz"), std::string::npos)
      << peaks.origin;
}

TEST(PeakRatesTest, AFileWithoutPeaksGetsThoseOfACardKnownByName) {
  // An H200's file written before results recorded peaks: its SMs and clock from the datasheet.
  const auto h200 = published_gpu_peak_rates("NVIDIA H200");
  ASSERT_TRUE(h200.has_value());
  EXPECT_NEAR(*h200->fp64_gflops, 33454.08, 0.01);
  EXPECT_NEAR(*h200->fp64_tensor_gflops, 66908.16, 0.01);
  EXPECT_NE(h200->origin.find("the file records none: 132 SMs × 1980 MHz"), std::string::npos)
      << h200->origin;
  const auto a100 = published_gpu_peak_rates("NVIDIA A100-SXM4-80GB");
  ASSERT_TRUE(a100.has_value());
  EXPECT_NEAR(*a100->fp64_gflops / 1e3, 9.7, 0.05);
  EXPECT_FALSE(published_gpu_peak_rates("NVIDIA GeForce RTX 4090").has_value());
}

TEST(PeakRatesTest, H100PcieAndA100MatchTheirDatasheets) {
  // H100 PCIe: 114 SMs at 1755 MHz: FP64 26, FP32 51 TFLOP/s.
  const PeakRates pcie = gpu_peak_rates(114, 1755000, 9, 0);
  EXPECT_NEAR(*pcie.fp64_gflops / 1e3, 25.6, 0.05);
  EXPECT_NEAR(*pcie.fp32_gflops / 1e3, 51.2, 0.05);
  // A100 SXM: 108 SMs at 1410 MHz: FP64 9.7, FP64 Tensor Core 19.5, FP32 19.5 TFLOP/s.
  const PeakRates a100 = gpu_peak_rates(108, 1410000, 8, 0);
  EXPECT_NEAR(*a100.fp64_gflops / 1e3, 9.7, 0.05);
  EXPECT_NEAR(*a100.fp64_tensor_gflops / 1e3, 19.5, 0.05);
  EXPECT_NEAR(*a100.fp32_gflops / 1e3, 19.5, 0.05);
}

TEST(PeakRatesTest, AdaHasOneSixtyFourthOfItsFp32InFp64AndNoFp64TensorCores) {
  // L4: 58 SMs at 2040 MHz, FP32 30.3 TFLOP/s.
  const PeakRates l4 = gpu_peak_rates(58, 2040000, 8, 9);
  EXPECT_NEAR(*l4.fp32_gflops / 1e3, 30.3, 0.05);
  EXPECT_DOUBLE_EQ(*l4.fp64_gflops * 64, *l4.fp32_gflops);
  EXPECT_FALSE(l4.fp64_tensor_gflops.has_value());
  EXPECT_FALSE(l4.json().contains("fp64_tensor"));
}

TEST(PeakRatesTest, AnUnknownCapabilityOrNoAttributesGiveNoneAndSayWhy) {
  const PeakRates unknown = gpu_peak_rates(100, 2000000, 12, 0);
  EXPECT_FALSE(unknown.fp64_gflops.has_value());
  EXPECT_NE(unknown.missing.find("compute capability 12.0 is not in acclab's table"),
            std::string::npos);
  const nlohmann::json j = unknown.json();
  EXPECT_TRUE(j["fp64"].is_null());
  EXPECT_TRUE(j["fp32"].is_null());
  EXPECT_FALSE(j["missing"].get<std::string>().empty());
  EXPECT_FALSE(gpu_peak_rates(0, 0, 9, 0).missing.empty());
}

TEST(PeakRatesTest, HostPeakFromCpuinfoCountsPhysicalCoresAtTheNominalClock) {
  // Two sockets of two cores, each with two hyperthreads: 4 cores, not 8.
  std::ostringstream text;
  int processor = 0;
  for (int socket = 0; socket < 2; ++socket) {
    for (int thread = 0; thread < 2; ++thread) {
      for (int core = 0; core < 2; ++core) {
        text << "processor\t: " << processor++ << "\n"
             << "model name\t: Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz\n"
             << "cpu MHz\t\t: 3700.000\n"
             << "physical id\t: " << socket << "\n"
             << "core id\t\t: " << core << "\n"
             << "flags\t\t: fpu sse2 avx fma avx2 avx512f\n\n";
      }
    }
  }
  std::istringstream cpuinfo(text.str());
  const HostCpu cpu = parse_cpuinfo(cpuinfo, 8);
  EXPECT_EQ(cpu.physical_cores, 4);
  EXPECT_DOUBLE_EQ(cpu.mhz, 2100);
  EXPECT_EQ(cpu.mhz_from, "model name");
  EXPECT_EQ(cpu.vector_bits, 512);
  EXPECT_TRUE(cpu.fma);
  // 4 cores × 2.1 GHz × 8 doubles × 2 pipes × 2 flops.
  const PeakRates peaks = host_peak_rates(cpu);
  EXPECT_NEAR(*peaks.fp64_gflops, 268.8, 1e-9);
  EXPECT_NEAR(*peaks.fp32_gflops, 537.6, 1e-9);
  EXPECT_EQ(peaks.origin.rfind("nominal: 4 cores × 2100 MHz", 0), 0u) << peaks.origin;
}

// Without FMA a pipe does one flop a lane (an add beside a multiply): half an FMA host's peak.
TEST(PeakRatesTest, HostWithoutFmaCountsOneFlopAPipe) {
  std::istringstream cpuinfo(
      "processor\t: 0\nmodel name\t: Intel(R) Xeon(R) CPU E5-2670 0 @ 2.60GHz\n"
      "flags\t\t: fpu sse2 avx\n\nprocessor\t: 1\nmodel name\t: Intel(R) Xeon(R) CPU E5-2670 "
      "0 @ 2.60GHz\nflags\t\t: fpu sse2 avx\n");
  const HostCpu cpu = parse_cpuinfo(cpuinfo, 2);
  EXPECT_FALSE(cpu.fma);
  EXPECT_EQ(cpu.vector_bits, 256);
  // 2 cores × 2.6 GHz × 4 doubles × 2 pipes × 1 flop.
  const PeakRates peaks = host_peak_rates(cpu);
  EXPECT_NEAR(*peaks.fp64_gflops, 41.6, 1e-9);
  EXPECT_NE(peaks.origin.find("× 2 pipes × 1 flop (an add beside a multiply)"), std::string::npos)
      << peaks.origin;
}

TEST(PeakRatesTest, HostWithoutTopologyOrNominalClockUsesLogicalCpusAndCurrentClock) {
  std::istringstream cpuinfo(
      "processor\t: 0\nmodel name\t: AMD EPYC\ncpu MHz\t\t: 2596.138\nflags\t\t: sse2 avx avx2 "
      "fma\n");
  const HostCpu cpu = parse_cpuinfo(cpuinfo, 2);
  EXPECT_EQ(cpu.physical_cores, 2);
  EXPECT_EQ(cpu.mhz_from, "cpu MHz");
  EXPECT_EQ(cpu.vector_bits, 256);
  std::istringstream empty("");
  EXPECT_FALSE(host_peak_rates(parse_cpuinfo(empty, 0)).missing.empty());
}

}  // namespace
}  // namespace acclab
