// acclab on a busy machine. OpenMP's threads spin while they wait for each other (libgomp spins
// some 300 000 rounds before sleeping); when other processes hold the cores, a spinning thread
// keeps the core that the thread it waits for needs, and a step with a barrier per colour or
// per row ran 233 to 431 times slower with two other busy processes. So before the OpenMP
// runtime starts, acclab looks at how busy its cores are; where they are busy and the user set
// no OpenMP policy of their own, it waits passively and starts no more threads than the cores
// left free. Every report says what was found and decided (host.openmp).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace acclab {

// What settle_openmp() found and decided.
struct HostLoad {
  int cores = 0;             // the cores this process may run on (its affinity)
  double busy_cores = 0;     // cores other processes kept busy over the sample, 0..cores
  bool busy = false;         // at least one core's worth busy
  bool measured = false;     // false: not looked at (a command that computes nothing)
  bool threads_set = false;  // acclab chose the thread count (the user set none)
  bool passive_set = false;  // acclab chose passive waiting (the user set no policy)
  int threads = 0;           // OpenMP threads this process uses
  std::string wait_policy;   // as libgomp was started: "passive", the user's value, or "default"
};

// Called first in main(), before anything starts OpenMP. For a command that computes (run,
// ladder, apsp, iccg, info), samples how busy this process's cores are for about 40 ms; on a
// busy machine, unless OMP_WAIT_POLICY or GOMP_SPINCOUNT is set, it sets OMP_WAIT_POLICY=passive
// and starts this program again in place (execv: same process, same arguments), because libgomp
// reads its policy once, when it is loaded; and, unless OMP_NUM_THREADS is set, limits the
// threads to the cores left free. ACCLAB_HOST_LOAD=ignore turns all of it off. Under a loader
// or a tool (LD_PRELOAD, valgrind) it does not start itself again; the thread limit holds.
void settle_openmp(int argc, char** argv);

// The cores of this process's affinity that other processes keep busy now, sampled over 40 ms
// (this thread sleeping meanwhile; other threads of this process count as busy).
double busy_cores_now();

// What settle_openmp() found, for reports (host.openmp in JSON, a note on a busy machine).
const HostLoad& host_load();
nlohmann::json host_load_json();
// One sentence for the notes of results measured on a busy machine; empty when it was not.
std::string host_load_note();

}  // namespace acclab
