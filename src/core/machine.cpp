#include "core/machine.hpp"

#include <unistd.h>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/atomic_file.hpp"
#include "core/host_load.hpp"
#include "core/peak_rates.hpp"
#include "core/build_config.hpp"
#include "core/provenance.hpp"

namespace acclab {

#ifndef ACCLAB_HAVE_OPENACC
int openacc_gpu_count() { return 0; }
std::vector<DeviceInfo> openacc_gpus() { return {}; }
double openacc_device_copy_gbps() { return 0; }
void openacc_initialize_device() {}
#endif
#ifndef ACCLAB_HAVE_OMPTARGET
int omptarget_device_count() { return 0; }
bool omptarget_region_on_device() { return false; }
#endif
#ifndef ACCLAB_HAVE_CUDA
int cuda_gpu_count() { return 0; }
std::vector<DeviceInfo> cuda_gpus() { return {}; }
double cuda_device_copy_gbps() { return 0; }
int cuda_multiprocessors(int) { return 0; }
void cuda_make_primary_context_current() {}
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

void Machine::share_one_gpu_context() {
  if (context_shared_) return;
  context_shared_ = true;
  // libgomp opens its device in whatever CUDA context is current then, or creates its own. Its
  // OpenACC calls make their context current, but its OpenMP launches use the thread's
  // current one: once the CUDA runtime (cudaSetDevice in gpus()) had made its primary context
  // current, every OpenMP kernel failed with "invalid resource handle". With the primary
  // context current before libgomp's first use, OpenACC, OpenMP and CUDA share one context.
  if (cuda_available()) cuda_make_primary_context_current();
}

bool Machine::omptarget_runs_on_gpu() {
  if (!omptarget_on_gpu_) {
    share_one_gpu_context();
    // libgomp shares a device between OpenACC and OpenMP, but OpenACC's first use of a device
    // that OpenMP initialized aborts ("device already active", oacc-init.c acc_init_1), while
    // OpenMP takes over a device OpenACC initialized. The probe below is an OpenMP region, and
    // the runner asks it before any omptarget step runs: OpenACC goes first.
    if (openacc_runs_on_gpu()) openacc_initialize_device();
    omptarget_on_gpu_ = omptarget_device_count() > 0 && omptarget_region_on_device();
  }
  return *omptarget_on_gpu_;
}

bool Machine::openacc_runs_on_gpu() {
  if (!openacc_gpus_) {
    share_one_gpu_context();
    openacc_gpus_ = openacc_gpu_count();
  }
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

std::filesystem::path host_probe_cache_file() {
  if (const char* dir = std::getenv("ACCLAB_CACHE_DIR"); dir && *dir) {
    return std::filesystem::path(dir) / "host-copy.json";
  }
  if (const char* dir = std::getenv("XDG_CACHE_HOME"); dir && *dir) {
    return std::filesystem::path(dir) / "acclab" / "host-copy.json";
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    return std::filesystem::path(home) / ".cache" / "acclab" / "host-copy.json";
  }
  return {};
}

namespace {

// What the host bandwidth depends on: the same name, CPU, core count and memory size mean the
// same machine (a VM resized in place gets a new key).
std::string host_probe_key(const HostInfo& host) {
  return fmt::format("{}|{}|{} cores|{:.0f} bytes", host.hostname, host.cpu, host.cores,
                     host.memory_bytes);
}

nlohmann::json read_probe_cache(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) return nlohmann::json::object();
  auto cache = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  return cache.is_object() ? cache : nlohmann::json::object();
}

}  // namespace

double Machine::host_copy_gbytes_per_s(bool remeasure) {
  if (host_copy_ && !remeasure) return *host_copy_;
  // The probe takes seconds (10 copies of 256 MiB over every core): measured once per machine
  // and kept in the user's cache, so that every run of a workload does not pay for it again.
  const std::filesystem::path file = host_probe_cache_file();
  const std::string key = host_probe_key(host());
  nlohmann::json cache = file.empty() ? nlohmann::json::object() : read_probe_cache(file);
  // A figure measured on a busy machine is kept (every run on a loaded machine would probe
  // again otherwise) but replaced by the first run that finds the machine idle; a rate above it
  // is measured again by the runner, never reported above 100 %.
  const bool cached_busy = cache.contains(key) && cache[key].is_object() &&
                           cache[key].value("measured_busy", false);
  const bool idle_now = host_load().measured && !host_load().busy;
  if (!remeasure && cache.contains(key) && cache[key].contains("gbytes_per_s") &&
      cache[key]["gbytes_per_s"].is_number() && cache[key]["gbytes_per_s"].get<double>() > 0 &&
      !(cached_busy && idle_now)) {
    host_copy_ = cache[key]["gbytes_per_s"].get<double>();
    host_copy_origin_ = fmt::format("cached in {} ({}{})", file.string(),
                                    cache[key].value("measured", std::string("?")),
                                    cached_busy ? ", on a busy machine" : "");
    host_copy_cached_ = true;
    host_copy_measured_busy_ = cached_busy;
    return *host_copy_;
  }
  host_copy_ = host_copy_gbps();
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  const std::string measured = fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", utc);
  host_copy_origin_ = fmt::format("measured now ({})", measured);
  // A probe that shared the cores with other processes reads low (12-26 GB/s for 51-61 on one
  // machine): such a figure is marked, so that an idle run replaces it.
  const double busy = busy_cores_now();
  host_copy_measured_busy_ = host_load().busy || busy >= 0.75;
  if (host_copy_measured_busy_) {
    host_copy_origin_ = fmt::format("measured now ({}) on a busy machine ({:.1f} cores busy)",
                                    measured, std::max(busy, host_load().busy_cores));
  }
  host_copy_cached_ = false;
  if (!file.empty()) {
    // A cache that cannot be written (read-only home) only costs the next run the probe again.
    try {
      std::filesystem::create_directories(file.parent_path());
      cache[key] = {{"gbytes_per_s", *host_copy_},
                    {"measured", measured},
                    {"measured_busy", host_copy_measured_busy_}};
      AtomicFile out(file, "host probe cache");
      // A host or CPU name that is not UTF-8 is written as U+FFFD rather than throwing.
      out.write(cache.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
      out.commit();
    } catch (const std::exception&) {
    }
  }
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

namespace {

nlohmann::json host_peak_json() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  const int logical = static_cast<int>(std::thread::hardware_concurrency());
  return host_peak_rates(parse_cpuinfo(cpuinfo, logical)).json();
}

nlohmann::json device_peak_json(const DeviceInfo& d) {
  int major = 0, minor = 0;
  if (std::sscanf(d.compute_capability.c_str(), "%d.%d", &major, &minor) != 2) major = minor = 0;
  if (d.api != "cuda") {
    PeakRates none;
    none.missing = fmt::format(
        "the {} runtime reports no multiprocessors or clock (acclab reads them from CUDA's "
        "attributes)",
        d.api);
    return none.json();
  }
  return gpu_peak_rates(d.multiprocessors, d.clock_khz, major, minor).json();
}

}  // namespace

nlohmann::json Machine::host_json() {
  const auto& h = host();
  return {{"hostname", h.hostname},
          {"cpu", h.cpu},
          {"cores", h.cores},
          {"memory_bytes", h.memory_bytes},
          {"available_bytes", h.available_bytes},
          {"openmp", host_load_json()},
          {"peak_gflops", host_peak_json()}};
}

nlohmann::json Machine::devices_json() {
  auto list = nlohmann::json::array();
  for (const auto& d : gpus()) {
    list.push_back({{"index", d.index},
                    {"name", d.name},
                    {"api", d.api},
                    {"memory_bytes", d.memory_bytes},
                    {"free_bytes", d.free_bytes},
                    {"compute_capability", d.compute_capability},
                    {"multiprocessors", d.multiprocessors},
                    {"clock_mhz", d.clock_khz / 1e3},
                    {"peak_gflops", device_peak_json(d)}});
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
  // Read from the flags the OpenACC sources were compiled with, so that it cannot disagree with
  // them. Whether this run's OpenACC went to a GPU is a fact of the machine: openacc_runs_on.
  const std::string flags = ACCLAB_OPENACC_FLAGS_STRING;
  compiler["openacc_flags"] = flags;
  compiler["openacc_offload"] = flags.find("-foffload=nvptx") != std::string::npos ? "nvptx-none"
                                : flags.find("-foffload=disable") != std::string::npos
                                    ? "none (host only)"
                                    : "as the flags say";
#else
  compiler["openacc_flags"] = nullptr;
#endif
#ifdef ACCLAB_HAVE_OMPTARGET
  const std::string omp_flags = ACCLAB_OMPTARGET_FLAGS_STRING;
  compiler["omptarget_flags"] = omp_flags;
  compiler["omptarget_offload"] =
      omp_flags.find("-foffload=nvptx") != std::string::npos ? "nvptx-none" : "none (host only)";
#else
  compiler["omptarget_flags"] = nullptr;
#endif
#ifdef ACCLAB_HAVE_CUDA
  compiler["cuda"] = ACCLAB_CUDA_VERSION;
  compiler["cuda_architectures"] = ACCLAB_CUDA_ARCHITECTURES;
#else
  compiler["cuda"] = nullptr;
#endif
  return compiler;
}

nlohmann::json Machine::build_json() const {
  const Provenance& source = provenance();
  nlohmann::json build = {{"commit", source.commit},
                          {"dirty", source.dirty},
                          {"changed", source.changed}};
  build.update(compiler_json());
  return build;
}

std::string Machine::openacc_place() {
#ifdef ACCLAB_HAVE_OPENACC
  return openacc_runs_on_gpu() ? "gpu" : "host";
#else
  return "not built";
#endif
}

std::string Machine::omptarget_place() {
#ifdef ACCLAB_HAVE_OMPTARGET
  return omptarget_runs_on_gpu() ? "gpu" : "host";
#else
  return "not built";
#endif
}

nlohmann::json Machine::limits_json() const {
  nlohmann::json limits = nlohmann::json::object();
  if (host_copy_) {
    limits["host_copy_gbytes_per_s"] = *host_copy_;
    limits["host_copy_origin"] = host_copy_origin_;
  }
  if (device_copy_ && *device_copy_) limits["device_copy_gbytes_per_s"] = **device_copy_;
  return limits;
}

}  // namespace acclab
