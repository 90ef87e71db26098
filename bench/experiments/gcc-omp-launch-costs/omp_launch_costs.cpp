// What one GCC 12 OpenMP target launch costs, shape by shape, to test what
// docs/directive-models.md ("Where a launch's millisecond goes") reads from libgomp's source:
//   - the soft-stack block (teams x warps x 128 KiB) stays cached only up to 128 MiB, i.e.
//     1024 warps a launch: 128 x 8 should cost far less than 129 x 8;
//   - any device allocation between launches (a region's argument table, omp_target_alloc)
//     frees a cached block over that limit, so a region that captures nothing may keep it;
//   - a `parallel` inside `teams` allocates its team from CUDA's device heap in every block.
// thread_limit(W) gives W warps a team: libgomp's nvptx plugin takes the clause's value as the
// block's y dimension (an OpenMP thread is a warp), capped by the kernel's registers.
// Each case: best and median of `reps` launches, host wall time around the construct, arrays
// already on the device. One CSV line a case on stdout.
//
// Build (GCC offload compiler): see build.sh. On a machine without the GPU the regions run on
// the host and the times mean nothing; the program still runs every case (a check of itself).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

// Written by the regions that must capture nothing (a global on the device needs no argument
// table), read back after the timing.
#pragma omp declare target
int teams_seen_global = 0;
#pragma omp end declare target

// A region that captures nothing: the shape as constants (a variable in num_teams may be passed
// into the region, which then has an argument table), the count written to a device global.
template <int Teams, int Warps>
void launch_capturing_nothing() {
#pragma omp target teams num_teams(Teams) thread_limit(Warps)
  {
    if (omp_get_team_num() == 0) teams_seen_global = omp_get_num_teams();
  }
}

// The regions that map something take the array and the shape as plain parameters, never
// through a lambda's captures: a mapped section written on a captured reference (`a` a
// `float*&` in the closure) is what GCC 12 gets wrong (libgomp was asked for an allocation the
// device refused, "nvptx_alloc error: out of memory", at the first such case on the H100), the
// same failure the OpenMP validation suite meets with a Fortran pointer it cannot resolve
// (OpenMP_VV #711, #717). acclab's own steps pass pointers as parameters too.
void target_mapped(float* a, int n) {
#pragma omp target map(alloc : a[0:n])
  { a[0] += 0.0f; }
}

int teams_mapped(float* a, int n, int teams, int warps) {
  int seen = 0;
#pragma omp target teams num_teams(teams) thread_limit(warps) map(alloc : a[0:n]) map(from : seen)
  {
    if (omp_get_team_num() == 0) {
      seen = omp_get_num_teams();
      a[0] += 0.0f;
    }
  }
  return seen;
}

int teams_parallel(float* a, int n, int teams, int warps) {
  int seen = 0;
#pragma omp target teams num_teams(teams) thread_limit(warps) map(alloc : a[0:n]) map(from : seen)
  {
#pragma omp parallel
    {
      if (omp_get_team_num() == 0 && omp_get_thread_num() == 0) {
        seen = omp_get_num_teams();
        a[0] += 0.0f;
      }
    }
  }
  return seen;
}

// libgomp's own shape (no num_teams, no thread_limit), with `parallel`, as a
// `target teams distribute parallel for` gets.
int default_parallel(float* a, int n) {
  int seen = 0;
#pragma omp target teams map(alloc : a[0:n]) map(from : seen)
  {
#pragma omp parallel
    {
      if (omp_get_team_num() == 0 && omp_get_thread_num() == 0) {
        seen = omp_get_num_teams();
        a[0] += 0.0f;
      }
    }
  }
  return seen;
}

struct Shape {
  int teams, warps;
  void (*capturing_nothing)();
};

template <int Teams, int Warps>
constexpr Shape shape() {
  return {Teams, Warps, launch_capturing_nothing<Teams, Warps>};
}

int teams_seen_on_device() {
#pragma omp target update from(teams_seen_global)
  return teams_seen_global;
}

struct Timing {
  double best_ms, median_ms;
};

template <class F>
Timing time_launches(int reps, F&& launch) {
  launch();  // the first launch loads the image and sizes the stacks
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = clock_type::now();
    launch();
    ms.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return {ms.front(), ms[ms.size() / 2]};
}

void report(const char* form, int teams, int warps, const Timing& t, int ran_teams) {
  // warps a launch: what the stack cache limit counts (teams x warps x 128 KiB <= 128 MiB).
  std::printf("%s,%d,%d,%d,%.4f,%.4f,%d\n", form, teams, warps, teams * warps, t.best_ms,
              t.median_ms, ran_teams);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 30;
  const bool on_device = omp_get_num_devices() > 0;
  std::fprintf(stderr, "devices %d, reps %d%s\n", omp_get_num_devices(), reps,
               on_device ? "" : " (host fallback: the times mean nothing)");

  // One mapped array so that a region can capture something (an argument table a launch).
  const int n = 1 << 20;
  std::vector<float> data(n, 1.0f);
  float* a = data.data();
#pragma omp target enter data map(to : a [0:n])

  std::printf("form,teams,warps,warps_a_launch,best_ms,median_ms,teams_seen\n");

  // A plain target that captures nothing: no argument table, one team of 8 warps.
  {
    const Timing t = time_launches(reps, [] {
#pragma omp target
      {}
    });
    report("target_nothing", 1, 8, t, 1);
  };
  // A plain target with one mapped array: the argument table's alloc and free.
  {
    const Timing t = time_launches(reps, [&] { target_mapped(a, n); });
    report("target_mapped", 1, 8, t, 1);
  };

  // teams x thread_limit shapes on both sides of 1024 warps, with and without `parallel`, with a
  // mapped array (an argument table: the free of a block over 128 MiB) and without.
  const Shape shapes[] = {shape<1, 8>(),    shape<8, 8>(),    shape<33, 28>(), shape<64, 16>(),
                          shape<65, 16>(),  shape<128, 8>(),  shape<129, 8>(), shape<132, 8>(),
                          shape<132, 16>(), shape<132, 28>(), shape<256, 4>(), shape<257, 4>()};
  for (const Shape& shape : shapes) {
    const int teams = shape.teams, warps = shape.warps;
    int seen = 0;
    {
      // No argument table to allocate, so no free of the stacks.
      const Timing t = time_launches(reps, shape.capturing_nothing);
      report("teams_nothing", teams, warps, t, teams_seen_on_device());
    }
    {
      const Timing t =
          time_launches(reps, [&] { seen = teams_mapped(a, n, teams, warps); });
      report("teams_mapped", teams, warps, t, seen);
    };
    {
      const Timing t =
          time_launches(reps, [&] { seen = teams_parallel(a, n, teams, warps); });
      report("teams_parallel", teams, warps, t, seen);
    };
  }

  // libgomp's own shape: 396 teams of 8 warps on an H100 in the measurements.
  {
    int seen = 0;
    {
      const Timing t = time_launches(reps, [&] { seen = default_parallel(a, n); });
      report("default_parallel", 0, 8, t, seen);
    };
  }

  // A device allocation between launches of a shape under the limit (128 x 8) and over it
  // (132 x 28): over it, the allocation should free the cached block, so each launch allocates it
  // again; under it, nothing changes.
  for (const Shape& shape : {shape<128, 8>(), shape<132, 28>()}) {
    const int device = omp_get_default_device();
    const Timing t = time_launches(reps, [&] {
      void* p = on_device ? omp_target_alloc(256, device) : nullptr;
      shape.capturing_nothing();
      if (p) omp_target_free(p, device);
    });
    report("teams_alloc_between", shape.teams, shape.warps, t, teams_seen_on_device());
  }

#pragma omp target exit data map(delete : a [0:n])
  return 0;
}
