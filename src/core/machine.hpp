// What this machine is and what its memories can do, measured in this process.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace acclab {

// The most GPUs one command spreads a problem over (--devices, --set devices=).
inline constexpr int max_gpu_count = 64;

struct HostInfo {
  std::string hostname;
  std::string cpu;
  int cores = 0;
  double memory_bytes = 0;
  double available_bytes = 0;  // MemAvailable at the time of asking
};

struct DeviceInfo {
  int index = 0;
  std::string name;
  std::string api;  // "cuda" or "openacc": who reported it
  double memory_bytes = 0;
  double free_bytes = 0;
  std::string compute_capability;
  // Where the API reports them (CUDA's attributes): what the peak rates are worked out from.
  int multiprocessors = 0;
  double clock_khz = 0;  // the peak (boost) clock, cudaDevAttrClockRate
};

// Backend queries. Each is defined in the source of its programming model; where that model
// was not built, machine.cpp defines it as "no device".
int openacc_gpu_count();  // acc_get_num_devices(acc_device_nvidia)
std::vector<DeviceInfo> openacc_gpus();
double openacc_device_copy_gbps();  // device-to-device copy kernel, bytes read+written
// Makes the OpenACC runtime initialize its device now (no-op once it has, or without one).
void openacc_initialize_device();
// OpenMP target offload (omptarget_device.cpp, in the acclab_omptarget_kit library).
int omptarget_device_count();       // omp_get_num_devices(): 0 without an offload device
bool omptarget_region_on_device();  // a target region ran off the initial device (the GPU)
int cuda_gpu_count();               // 0 without a driver or a GPU; never throws
std::vector<DeviceInfo> cuda_gpus();
double cuda_device_copy_gbps();        // cudaMemcpy device-to-device, bytes read+written
int cuda_multiprocessors(int device);  // 0 without CUDA, a driver or that device
// Makes device 0's primary context (the CUDA runtime's) current on this thread.
void cuda_make_primary_context_current();
double host_copy_gbps();               // OpenMP copy over all cores, bytes read+written

// Where the host bandwidth probe's figure is kept: $ACCLAB_CACHE_DIR/host-copy.json, else
// $XDG_CACHE_HOME/acclab/ or ~/.cache/acclab/; empty when none of them is set.
std::filesystem::path host_probe_cache_file();

// Facts about the machine, gathered once and cached. Probes run only when first asked for.
class Machine {
 public:
  const HostInfo& host();
  // GPUs as the CUDA runtime reports them, or as the OpenACC runtime does without CUDA.
  const std::vector<DeviceInfo>& gpus();
  bool openacc_runs_on_gpu();
  // Where OpenMP target regions run: on a device when libgomp has one and a probe region ran
  // off the initial device.
  bool omptarget_runs_on_gpu();
  bool cuda_available();

  // Measured once per machine and kept in the user's cache (host_probe_cache_file());
  // `remeasure` measures again and replaces the cached figure (acclab info --probe).
  double host_copy_gbytes_per_s(bool remeasure = false);
  // Whether the figure above came from the cache (a re-probe may correct it), and whether it
  // was measured while other processes kept cores busy (it reads low; the cache marks it, and
  // a run that finds the machine idle measures it again).
  bool host_copy_cached() const { return host_copy_cached_; }
  bool host_copy_measured_busy() const { return host_copy_measured_busy_; }
  // nullopt when no GPU is present.
  std::optional<double> device_copy_gbytes_per_s();

  // Each carries its peak FP64 and FP32 rates (peak_gflops, core/peak_rates.hpp): worked out
  // from the device's attributes, and nominally from the host's cores, clock and vector width.
  nlohmann::json host_json();
  nlohmann::json devices_json();
  nlohmann::json compiler_json() const;
  // The commit the sources came from, whether they differed from it (and where), and the
  // compilers and flags: compiler_json() with the commit added.
  nlohmann::json build_json() const;
  // Where this process's OpenACC compute constructs run: "gpu", "host" or "not built".
  std::string openacc_place();
  // The same for OpenMP target regions (the omptarget steps).
  std::string omptarget_place();
  // Only the limits measured so far.
  nlohmann::json limits_json() const;

 private:
  std::optional<HostInfo> host_;
  std::optional<std::vector<DeviceInfo>> gpus_;
  std::optional<int> openacc_gpus_;
  std::optional<int> cuda_gpus_;
  std::optional<bool> omptarget_on_gpu_;
  // Called before libgomp can open a device; see machine.cpp.
  void share_one_gpu_context();
  bool context_shared_ = false;
  std::optional<double> host_copy_;
  std::string host_copy_origin_;  // "measured now (...)" or "cached in FILE (...)"
  bool host_copy_cached_ = false;         // host_copy_ came from the cache
  bool host_copy_measured_busy_ = false;  // host_copy_ was measured beside other processes
  std::optional<std::optional<double>> device_copy_;
};

}  // namespace acclab
