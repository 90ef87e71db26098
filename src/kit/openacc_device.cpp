// OpenACC runtime queries. Never calls acc_init(acc_device_nvidia): without a GPU that aborts
// the program; acc_get_num_devices answers 0 instead.
#include <openacc.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "core/machine.hpp"

namespace acclab {

int openacc_gpu_count() { return acc_get_num_devices(acc_device_nvidia); }

std::vector<DeviceInfo> openacc_gpus() {
  std::vector<DeviceInfo> devices;
  for (int i = 0; i < openacc_gpu_count(); ++i) {
    DeviceInfo info;
    info.index = i;
    info.api = "openacc";
    const char* name = acc_get_property_string(i, acc_device_nvidia, acc_property_name);
    info.name = name ? name : "unknown";
    info.memory_bytes =
        static_cast<double>(acc_get_property(i, acc_device_nvidia, acc_property_memory));
    info.free_bytes =
        static_cast<double>(acc_get_property(i, acc_device_nvidia, acc_property_free_memory));
    devices.push_back(info);
  }
  return devices;
}

void openacc_initialize_device() {
  // acc_init would abort where the device is already initialized; acc_malloc initializes it
  // lazily, only when nothing has yet.
  if (acc_get_num_devices(acc_device_nvidia) > 0) acc_free(acc_malloc(1));
}

double openacc_device_copy_gbps() {
  const long n = 128L << 20;  // floats per array: 512 MiB
  std::vector<float> host(n, 1.0f);
  float* source = host.data();
  float* target = static_cast<float*>(acc_malloc(n * sizeof(float)));
  if (!target) return 0;  // no room for the probe: no limit to report
  double best = 1e30;
#pragma acc data copyin(source[0:n]) deviceptr(target)
  {
    for (int rep = 0; rep < 6; ++rep) {
      auto start = std::chrono::steady_clock::now();
#pragma acc parallel loop present(source[0:n]) deviceptr(target)
      for (long i = 0; i < n; ++i) target[i] = source[i];
      std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
      if (rep > 0) best = std::min(best, elapsed.count());  // rep 0 loads the module
    }
  }
  acc_free(target);
  return 2.0 * n * sizeof(float) / best / 1e9;
}

}  // namespace acclab
