#include "core/machine.hpp"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "core/build_config.hpp"

namespace acclab {

#ifndef ACCLAB_HAVE_OPENACC
int openacc_gpu_count() { return 0; }
std::vector<DeviceInfo> openacc_gpus() { return {}; }
double openacc_device_copy_gbps() { return 0; }
#endif
#ifndef ACCLAB_HAVE_CUDA
int cuda_gpu_count() { return 0; }
std::vector<DeviceInfo> cuda_gpus() { return {}; }
double cuda_device_copy_gbps() { return 0; }
int cuda_multiprocessors(int) { return 0; }
#endif

namespace {

double meminfo_bytes(const std::string& field) {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    if (line.rfind(field + ":", 0) == 0) {
      std::istringstream fields(line.substr(field.size() + 1));
      double kib = 0;
      fields >> kib;
      return kib * 1024.0;
    }
  }
  return 0;
}

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown";
}

}  // namespace

const HostInfo& Machine::host() {
  if (!host_) {
    HostInfo info;
    char name[256] = {};
    gethostname(name, sizeof name - 1);
    info.hostname = name;
    info.cpu = cpu_model();
    info.cores = static_cast<int>(std::thread::hardware_concurrency());
    info.memory_bytes = meminfo_bytes("MemTotal");
    info.available_bytes = meminfo_bytes("MemAvailable");
    host_ = info;
  }
  return *host_;
}

bool Machine::openacc_runs_on_gpu() {
  if (!openacc_gpus_) openacc_gpus_ = openacc_gpu_count();
  return *openacc_gpus_ > 0;
}

bool Machine::cuda_available() {
  if (!cuda_gpus_) cuda_gpus_ = cuda_gpu_count();
  return *cuda_gpus_ > 0;
}

const std::vector<DeviceInfo>& Machine::gpus() {
  if (!gpus_) gpus_ = cuda_available() ? cuda_gpus() : openacc_gpus();
  return *gpus_;
}

double Machine::host_copy_gbytes_per_s() {
  if (!host_copy_) host_copy_ = host_copy_gbps();
  return *host_copy_;
}

std::optional<double> Machine::device_copy_gbytes_per_s() {
  if (!device_copy_) {
    if (cuda_available()) {
      device_copy_ = cuda_device_copy_gbps();
    } else if (openacc_runs_on_gpu()) {
      device_copy_ = openacc_device_copy_gbps();
    } else {
      device_copy_ = std::optional<double>();
    }
  }
  return *device_copy_;
}

nlohmann::json Machine::host_json() {
  const auto& h = host();
  return {{"hostname", h.hostname},
          {"cpu", h.cpu},
          {"cores", h.cores},
          {"memory_bytes", h.memory_bytes},
          {"available_bytes", h.available_bytes}};
}

nlohmann::json Machine::devices_json() {
  auto list = nlohmann::json::array();
  for (const auto& d : gpus()) {
    list.push_back({{"index", d.index},
                    {"name", d.name},
                    {"api", d.api},
                    {"memory_bytes", d.memory_bytes},
                    {"free_bytes", d.free_bytes},
                    {"compute_capability", d.compute_capability}});
  }
  return list;
}

nlohmann::json Machine::compiler_json() const {
  nlohmann::json compiler = {
      {"cxx", ACCLAB_CXX_COMPILER},
      {"cxx_flags", ACCLAB_CXX_FLAGS},
      {"acclab_version", ACCLAB_VERSION},
  };
#ifdef ACCLAB_HAVE_OPENACC
  compiler["openacc_flags"] = ACCLAB_OPENACC_FLAGS_STRING;
#ifdef ACCLAB_OPENACC_OFFLOAD
  compiler["openacc_offload"] = "nvptx-none";
#else
  compiler["openacc_offload"] = "host only";
#endif
#else
  compiler["openacc_flags"] = nullptr;
#endif
#ifdef ACCLAB_HAVE_CUDA
  compiler["cuda"] = ACCLAB_CUDA_VERSION;
  compiler["cuda_architectures"] = ACCLAB_CUDA_ARCHITECTURES;
#else
  compiler["cuda"] = nullptr;
#endif
  return compiler;
}

nlohmann::json Machine::limits_json() const {
  nlohmann::json limits = nlohmann::json::object();
  if (host_copy_) limits["host_copy_gbytes_per_s"] = *host_copy_;
  if (device_copy_ && *device_copy_) limits["device_copy_gbytes_per_s"] = **device_copy_;
  return limits;
}

}  // namespace acclab
