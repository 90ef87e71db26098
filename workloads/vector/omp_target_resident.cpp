// Beyond triad_omp_target_tuned and dot_omp_target_tuned, which launch a target region every
// pass: here all nt passes run in ONE `target teams` region, the passes separated by
// omp_grid_barrier (kit/omp_grid_barrier.hpp), as triad_acc_resident and dot_acc_resident do in
// OpenACC. GCC 12 spends about a millisecond launching a region of one team a multiprocessor,
// as long as a pass over 2^28 floats takes at copy bandwidth: one launch a run instead of one a
// pass.
//   triad_omp_target_resident  a = b + s*c, a pass over the whole array between barriers.
//   dot_omp_target_resident    every lane sums its strided slice in double, each warp its lanes
//                              (simd reduction) into a slot of its own; after the barrier team
//                              0 folds the slots in a fixed order. dot = the last pass's sum.
// One team a multiprocessor by default (omp_teams_per_sm, four at the seed's size; never more
// than can all run at once, kit/omp_resident_shape.hpp), `parallel` over the team's warps (16 by
// default, one at the seed's, omp_thread_limit; an OpenMP thread is a warp in GCC's nvptx
// OpenMP) and `simd` over each warp's 32 lanes; each lane loads 8 elements before it stores or
// adds them, to keep many loads in flight: the pass is omp_target_lanes.hpp's, which
// triad_omp_target_tuned and dot_omp_target_tuned run a region a pass. The outputs say how many
// teams ran (resident_teams, 1 on the host fallback) and how many passes the region made
// (passes: a run fails where they are not nt).
#include <fmt/format.h>
#include <omp.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kit/omp_data.hpp"
#include "kit/omp_grid_barrier.hpp"
#include "kit/omp_resident_shape.hpp"
#include "workloads/vector/omp_target_lanes.hpp"
#include "workloads/vector/vector.hpp"

namespace acclab::vector {
namespace {

using lanes::group_counts;
using lanes::warps;

// The most registers a lane the regions' entries may take: tests/omptarget_registers_test.sh's
// budget for these steps, which the co-residency check of the shape counts with.
constexpr std::int64_t registers = 112;
static_assert(warps == omp_resident_max_thread_limit, "a team deals out a group's warps");

// At the seed's sizes four teams of one warp a multiprocessor: 2.5x (triad) and 2.0x (dot) the
// default shape there on an H100, which stays the large preset's (bench/results/h100/tune/).
constexpr OmpResidentShape seed_shape{.thread_limit = 1, .teams_per_sm = 4};

const StepTunings<OmpResidentShape>& resident_tunings() {
  static const StepTunings<OmpResidentShape> tunings = omp_resident_tunings(
      "triad_omp_target_resident and dot_omp_target_resident", registers, seed_shape);
  return tunings;
}

// The pass's view of one thread where `teams_a_group` teams share each lane group (a
// multiprocessor's): the lane groups are dealt over the sets of teams, and a group's warps over
// the threads of its set's teams, so that every warp of every group is run by one thread
// whatever the shape. Where the teams running are not a whole number of sets (fewer started
// than asked, or the host fallback's one), each team takes whole groups.
struct PassPlace {
  int team, running, thread, threads;
};
#pragma omp declare target
inline PassPlace pass_place(int team, int running, int thread, int threads, int teams_a_group) {
  const int k = running % teams_a_group == 0 ? teams_a_group : 1;
  return {team / k, running / k, team % k + k * thread, k * threads};
}
#pragma omp end declare target

class StreamOmpTargetResident : public StreamInstance {
 public:
  StreamOmpTargetResident(const Params& params, Kernel kernel, std::string name,
                          std::string step_before)
      : StreamInstance(params, kernel),
        shape_(resident_tunings().read(params)),
        name_(std::move(name)),
        step_before_(std::move(step_before)) {}
  StreamOmpTargetResident(const StreamOmpTargetResident&) = delete;
  StreamOmpTargetResident& operator=(const StreamOmpTargetResident&) = delete;
  ~StreamOmpTargetResident() override { release(); }

  void setup() override {
    StreamInstance::setup();
    const int multiprocessors = omp_resident_teams();
    groups_ = lanes::groups_within(multiprocessors);
    teams_ = omp_resident_teams_asked(lanes::teams_for(multiprocessors, groups_), shape_);
    const std::int64_t n = size_.n();
    omp_enter_to(b_.data(), n);
    omp_enter_to(c_.data(), n);
    omp_enter_alloc(a_.data(), kernel_ == Kernel::triad ? n : 0);  // only the triad writes a
    // Two slots a warp of every group: one pass's, and the next one's while team 0 still folds
    // the first.
    slots_.assign(kernel_ == Kernel::dot ? 2 * group_counts.back() * warps : 0, 0.0);
    omp_enter_alloc(slots_.data(), std::int64_t(slots_.size()));
    arrivals_.enter();
    resident_ = true;
  }

  void finish() override {
    if (kernel_ == Kernel::triad) omp_update_host(a_.data(), size_.n());
    release();
  }

  Verification verify() override {
    Verification v = StreamInstance::verify();
    v.outputs["resident_teams"] = running_;
    v.outputs["passes"] = passes_;
    return v;
  }

 protected:
  // After a region in which `running` teams made `passes` passes: throws where a team gave up
  // waiting, the count is not the teams times the passes, or the passes are not nt.
  void check_barrier(double running, double passes) {
    running_ = int(running);
    passes_ = std::int64_t(passes);
    const std::string step = fmt::format("vector {}", name_);
    arrivals_.check(std::uint64_t(running) * std::uint64_t(passes), step, teams_,
                    step_before_ + " launches a region per pass instead");
    if (std::int64_t(passes) != size_.nt) {
      throw std::runtime_error(
          fmt::format("{}: the region made {} passes where {} were asked", step, passes, size_.nt));
    }
  }

  OmpResidentShape shape_;
  std::size_t groups_ = 0;     // into group_counts
  int teams_ = 1;              // asked for
  int running_ = 0;            // ran, as the region counted them
  std::int64_t passes_ = 0;    // made, as team 0 counted them
  OmpArrivals arrivals_;       // the barrier's count
  std::vector<double> slots_;  // the dot's per-warp sums, two passes' worth

 private:
  void release() {
    if (!resident_) return;
    const std::int64_t n = size_.n();
    omp_exit_delete(a_.data(), kernel_ == Kernel::triad ? n : 0);
    omp_exit_delete(b_.data(), n);
    omp_exit_delete(c_.data(), n);
    omp_exit_delete(slots_.data(), std::int64_t(slots_.size()));
    arrivals_.release();
    resident_ = false;
  }

  std::string name_, step_before_;  // for messages
  bool resident_ = false;
};

class TriadOmpTargetResident : public StreamOmpTargetResident {
 public:
  explicit TriadOmpTargetResident(const Params& params)
      : StreamOmpTargetResident(params, Kernel::triad, "triad_omp_target_resident",
                                "triad_omp_target_tuned") {}
  void run() override {
    lanes::with_groups(groups_, [this](auto groups) { passes<decltype(groups)::value>(); });
  }

 private:
  template <std::int64_t groups>
  void passes() {
    const std::int64_t n = size_.n(), nt = size_.nt;
    const int teams = teams_, team_warps = int(shape_.thread_limit);
    const int teams_a_group = int(shape_.teams_per_sm);
    float* a = a_.data();
    const float* b = b_.data();
    const float* c = c_.data();
    unsigned long long* arrived = arrivals_.reset();
    double state[2] = {0, 0};  // team 0's: teams running, passes made
#pragma omp target teams num_teams(teams) thread_limit(team_warps) \
    map(alloc                                                      \
        : a [0:n], b [0:n], c [0:n], arrived [0:1]) map(from       \
                                                        : state [0:2])
    {
      bool together = true;  // the team's: false once a team gave up waiting at a barrier
#pragma omp parallel
      {
        const int running = omp_teams_running(teams);
        const int team = omp_get_team_num();
        const int thread = omp_get_thread_num(), threads = omp_get_num_threads();
        const PassPlace place = pass_place(team, running, thread, threads, teams_a_group);
        unsigned long long expected = 0;  // thread 0's: arrivals so far, this team's included
        std::int64_t pass = 0;
        // A team beyond those running (the host fallback's others) does nothing.
        for (; team < running && pass < nt && together; ++pass) {
          lanes::triad_pass<groups>(place.team, place.running, place.thread, place.threads, n, a, b,
                                    c);
#pragma omp barrier
          if (thread == 0) together = omp_grid_barrier(arrived, expected += running);
#pragma omp barrier
        }
        if (team == 0 && thread == 0) {
          state[0] = double(running);
          state[1] = double(pass);
        }
      }
    }
    check_barrier(state[0], state[1]);
  }
};

class DotOmpTargetResident : public StreamOmpTargetResident {
 public:
  explicit DotOmpTargetResident(const Params& params)
      : StreamOmpTargetResident(params, Kernel::dot, "dot_omp_target_resident",
                                "dot_omp_target_tuned") {}
  void run() override {
    lanes::with_groups(groups_, [this](auto groups) { passes<decltype(groups)::value>(); });
  }

 private:
  template <std::int64_t groups>
  void passes() {
    constexpr std::int64_t pass_slots = groups * warps;
    const std::int64_t n = size_.n(), nt = size_.nt;
    const int teams = teams_, team_warps = int(shape_.thread_limit);
    const int teams_a_group = int(shape_.teams_per_sm);
    const float* b = b_.data();
    const float* c = c_.data();
    unsigned long long* arrived = arrivals_.reset();
    double* slots = slots_.data();
    const std::int64_t slot_count = std::int64_t(slots_.size());
    double state[3] = {0, 0, 0};  // team 0's: teams running, passes made, the last pass's sum
#pragma omp target teams num_teams(teams) thread_limit(team_warps)        \
    map(alloc                                                             \
        : b [0:n], c [0:n], arrived [0:1], slots [0:slot_count]) map(from \
                                                                     : state [0:3])
    {
      bool together = true;  // the team's: false once a team gave up waiting at a barrier
#pragma omp parallel
      {
        const int running = omp_teams_running(teams);
        const int team = omp_get_team_num();
        const int thread = omp_get_thread_num(), threads = omp_get_num_threads();
        const PassPlace place = pass_place(team, running, thread, threads, teams_a_group);
        unsigned long long expected = 0;  // thread 0's: arrivals so far, this team's included
        double total = 0.0;               // team 0's thread 0's: the pass's dot
        std::int64_t pass = 0;
        for (; team < running && pass < nt && together; ++pass) {
          // Slots by pass parity: a team that runs ahead writes the other half, and cannot
          // come back to this one before team 0 has folded it (the next barrier).
          double* sums = slots + (pass % 2) * pass_slots;
          lanes::dot_pass<groups>(place.team, place.running, place.thread, place.threads, n, b, c,
                                  sums);
#pragma omp barrier
          if (thread == 0) {
            together = omp_grid_barrier(arrived, expected += running);
            // Team 0 folds every warp's sum, lane k the slots k, k + 32, ... in turn: the same
            // order in every pass, however many teams ran (the sums are exact in any order:
            // exact_dot).
            if (team == 0) {
              double sum = 0.0;
#pragma omp simd reduction(+ : sum)
              for (std::int64_t s = 0; s < pass_slots; ++s) sum += sums[s];
              total = sum;
            }
          }
#pragma omp barrier
        }
        if (team == 0 && thread == 0) {
          state[0] = double(running);
          state[1] = double(pass);
          state[2] = total;
        }
      }
    }
    check_barrier(state[0], state[1]);
    dot_ = state[2];
  }
};

}  // namespace

TuningSet omp_target_resident_tuning_set() { return resident_tunings().set(); }

std::unique_ptr<Instance> make_triad_omp_target_resident(const Params& params) {
  return std::make_unique<TriadOmpTargetResident>(params);
}
std::unique_ptr<Instance> make_dot_omp_target_resident(const Params& params) {
  return std::make_unique<DotOmpTargetResident>(params);
}

}  // namespace acclab::vector
