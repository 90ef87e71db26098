#include "core/host_load.hpp"

#include <fmt/format.h>
#include <omp.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string_view>
#include <thread>

namespace acclab {
namespace {

// The user's switch (ACCLAB_HOST_LOAD=ignore), and the variable that carries the first
// process's findings across execv (private: never the user's).
constexpr const char* kSwitch = "ACCLAB_HOST_LOAD";
constexpr const char* kCarried = "ACCLAB_HOST_LOAD_STARTED_AGAIN";

// This process's own CPU time (user + system) in clock ticks, from /proc/self/stat.
long long own_ticks() {
  std::ifstream stat("/proc/self/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');  // the command name may hold spaces
  if (close == std::string::npos) return 0;
  std::istringstream fields(text.substr(close + 2));
  std::string skip;
  for (int field = 3; field < 14; ++field) fields >> skip;  // state .. cmajflt
  long long user = 0, system = 0;
  fields >> user >> system;
  return user + system;
}

// Whether /proc/self/exe is the program argv[0] names, so that starting it again runs acclab
// (not a loader that ran it, `ld.so ./acclab`, nor a tool such as valgrind, whose session the
// new image would leave).
bool exe_is_argv0(const char* argv0) {
  if (argv0 == nullptr || std::getenv("LD_PRELOAD") != nullptr) return false;
  std::string path = argv0;
  if (path.find('/') == std::string::npos) {
    const char* search = std::getenv("PATH");
    std::istringstream folders(search ? search : "");
    std::string folder;
    path.clear();
    while (std::getline(folders, folder, ':')) {
      const std::string candidate = (folder.empty() ? "." : folder) + "/" + argv0;
      if (::access(candidate.c_str(), X_OK) == 0) {
        path = candidate;
        break;
      }
    }
  }
  struct stat exe {}, named {};
  return !path.empty() && ::stat("/proc/self/exe", &exe) == 0 &&
         ::stat(path.c_str(), &named) == 0 && exe.st_dev == named.st_dev &&
         exe.st_ino == named.st_ino;
}

HostLoad& state() {
  static HostLoad load;
  return load;
}

// Busy and total jiffies of each CPU, from /proc/stat's "cpuN" lines.
std::map<int, std::pair<long long, long long>> cpu_times() {
  std::map<int, std::pair<long long, long long>> times;
  std::ifstream stat("/proc/stat");
  std::string line;
  while (std::getline(stat, line)) {
    if (line.rfind("cpu", 0) != 0 || line.size() < 4 || line[3] < '0' || line[3] > '9') continue;
    std::istringstream fields(line.substr(3));
    int cpu = 0;
    long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0,
              steal = 0;
    fields >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
    const long long busy = user + nice + system + irq + softirq + steal;
    times[cpu] = {busy, busy + idle + iowait};
  }
  return times;
}

// The cores of this process's affinity that other processes kept busy over `window`, while
// this process slept (so all of it is theirs). Only the process's own cores count: a container
// given 16 of a host's 128 cores sees the host's /proc/stat.
double busy_cores(const cpu_set_t& mine, std::chrono::milliseconds window) {
  const long long own_before = own_ticks();
  const auto before = cpu_times();
  std::this_thread::sleep_for(window);
  const auto after = cpu_times();
  const long long own = own_ticks() - own_before;
  double busy = 0, ticks = 0;
  int cpus = 0;
  for (const auto& [cpu, end] : after) {
    if (cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &mine)) continue;
    const auto start = before.find(cpu);
    if (start == before.end()) continue;
    const long long total = end.second - start->second.second;
    if (total <= 0) continue;
    busy += double(end.first - start->second.first) / double(total);
    ticks += double(total);
    ++cpus;
  }
  // This process's own threads (OpenMP workers still spinning after a region) are not others'.
  if (cpus > 0 && ticks > 0) busy -= double(own) / (ticks / cpus);
  return std::max(0.0, busy);
}

bool computes(int argc, char** argv) {
  if (argc < 2) return false;
  const std::string_view command = argv[1];
  return command == "run" || command == "ladder" || command == "apsp" || command == "iccg" ||
         command == "info";
}

std::string describe_policy() {
  if (const char* policy = std::getenv("OMP_WAIT_POLICY")) return policy;
  if (const char* spin = std::getenv("GOMP_SPINCOUNT")) return fmt::format("GOMP_SPINCOUNT={}", spin);
  return "default";
}

}  // namespace

void settle_openmp(int argc, char** argv) {
  HostLoad& load = state();
  if (const char* user = std::getenv(kSwitch); user && std::string_view(user) == "ignore") {
    ::unsetenv(kCarried);
    load.wait_policy = describe_policy();
    return;
  }
  if (const char* carried = std::getenv(kCarried)) {
    // Started again by the branch below: its findings, then its decisions applied.
    std::istringstream fields(carried);
    int threads_set = 0, passive_set = 0;
    fields >> load.cores >> load.busy_cores >> threads_set >> passive_set >> load.threads;
    load.measured = load.busy = true;
    load.threads_set = threads_set != 0;
    load.passive_set = passive_set != 0;
    ::unsetenv(kCarried);  // not handed on to the processes this one starts
    if (load.threads_set) omp_set_num_threads(load.threads);
    load.wait_policy = describe_policy();
    return;
  }
  load.wait_policy = describe_policy();
  if (!computes(argc, argv)) return;
  cpu_set_t mine;
  CPU_ZERO(&mine);
  if (sched_getaffinity(0, sizeof mine, &mine) != 0) return;
  load.cores = CPU_COUNT(&mine);
  load.busy_cores = std::clamp(busy_cores(mine, std::chrono::milliseconds(40)), 0.0,
                               double(load.cores));
  load.measured = true;
  // Less than one core's worth busy: spinning costs nothing there, and the defaults stand.
  load.busy = load.busy_cores >= 0.75;
  if (!load.busy) return;
  const int free_cores =
      std::max(1, load.cores - static_cast<int>(std::lround(load.busy_cores)));
  load.threads_set = std::getenv("OMP_NUM_THREADS") == nullptr;
  load.threads = load.threads_set ? free_cores : 0;
  load.passive_set =
      std::getenv("OMP_WAIT_POLICY") == nullptr && std::getenv("GOMP_SPINCOUNT") == nullptr;
  if (load.passive_set && !exe_is_argv0(argv[0])) load.passive_set = false;
  if (load.passive_set) {
    ::setenv("OMP_WAIT_POLICY", "passive", 1);
    ::setenv(kCarried,
             fmt::format("{} {:.2f} {} {} {}", load.cores, load.busy_cores, int(load.threads_set),
                         int(load.passive_set), load.threads)
                 .c_str(),
             1);
    ::execv("/proc/self/exe", argv);
    // execv returned: the process goes on as it is, spinning as libgomp was started.
    ::unsetenv(kCarried);
    ::unsetenv("OMP_WAIT_POLICY");
    load.passive_set = false;
  }
  if (load.threads_set) omp_set_num_threads(load.threads);
  load.wait_policy = describe_policy();
}

double busy_cores_now() {
  cpu_set_t mine;
  CPU_ZERO(&mine);
  if (sched_getaffinity(0, sizeof mine, &mine) != 0) return 0;
  return busy_cores(mine, std::chrono::milliseconds(40));
}

const HostLoad& host_load() { return state(); }

nlohmann::json host_load_json() {
  const HostLoad& load = state();
  nlohmann::json j = {{"wait_policy", load.wait_policy},
                      {"max_threads", omp_get_max_threads()},
                      {"load_measured", load.measured}};
  if (load.measured) {
    j["cores"] = load.cores;
    j["busy_cores_at_start"] = std::round(load.busy_cores * 100) / 100;
    j["busy"] = load.busy;
    j["threads_limited_by_acclab"] = load.threads_set;
    j["passive_wait_set_by_acclab"] = load.passive_set;
  }
  return j;
}

std::string host_load_note() {
  const HostLoad& load = state();
  if (!load.busy) return "";
  std::string decided;
  if (load.threads_set) {
    decided += fmt::format("{} OpenMP thread{}", load.threads, load.threads == 1 ? "" : "s");
  }
  if (load.passive_set) decided += fmt::format("{}passive waiting", decided.empty() ? "" : ", ");
  if (decided.empty()) decided = "the user's OpenMP settings kept";
  return fmt::format("busy machine: {:.1f} of {} cores busy at start ({})", load.busy_cores,
                     load.cores, decided);
}

}  // namespace acclab
