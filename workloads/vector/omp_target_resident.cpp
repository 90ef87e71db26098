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
// One team a multiprocessor (num_teams; never more, so that all run at once), `parallel` over
// the team's warps (an OpenMP thread is a warp in GCC's nvptx OpenMP) and `simd` over each
// warp's 32 lanes; each lane loads 8 elements before it stores or adds them, to keep many loads
// in flight: the pass is omp_target_lanes.hpp's, which triad_omp_target_tuned and
// dot_omp_target_tuned run a region a pass. The outputs say how many teams ran (resident_teams,
// 1 on the host fallback) and how many passes the region made (passes: a run fails where they
// are not nt).
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
#include "workloads/vector/omp_target_lanes.hpp"
#include "workloads/vector/vector.hpp"

namespace acclab::vector {
namespace {

using lanes::group_counts;
using lanes::warps;

class StreamOmpTargetResident : public StreamInstance {
 public:
  StreamOmpTargetResident(const Params& params, Kernel kernel, std::string name,
                          std::string step_before)
      : StreamInstance(params, kernel),
        name_(std::move(name)),
        step_before_(std::move(step_before)) {}
  StreamOmpTargetResident(const StreamOmpTargetResident&) = delete;
  StreamOmpTargetResident& operator=(const StreamOmpTargetResident&) = delete;
  ~StreamOmpTargetResident() override { release(); }

  void setup() override {
    StreamInstance::setup();
    const int multiprocessors = omp_resident_teams();
    shape_ = lanes::groups_within(multiprocessors);
    teams_ = lanes::teams_for(multiprocessors, shape_);
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

  std::size_t shape_ = 0;                        // into group_counts
  int teams_ = 1;                                // asked for
  int running_ = 0;                              // ran, as the region counted them
  std::int64_t passes_ = 0;                      // made, as team 0 counted them
  OmpArrivals arrivals_;                         // the barrier's count
  std::vector<double> slots_;                    // the dot's per-warp sums, two passes' worth

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
    lanes::with_groups(shape_, [this](auto groups) { passes<decltype(groups)::value>(); });
  }

 private:
  template <std::int64_t groups>
  void passes() {
    const std::int64_t n = size_.n(), nt = size_.nt;
    const int teams = teams_;
    float* a = a_.data();
    const float* b = b_.data();
    const float* c = c_.data();
    unsigned long long* arrived = arrivals_.reset();
    double state[2] = {0, 0};  // team 0's: teams running, passes made
#pragma omp target teams num_teams(teams) thread_limit(warps) \
    map(alloc                                                 \
        : a [0:n], b [0:n], c [0:n], arrived [0:1]) map(from  \
                                                        : state [0:2])
    {
      bool together = true;  // the team's: false once a team gave up waiting at a barrier
#pragma omp parallel
      {
        const int running = omp_teams_running(teams);
        const int team = omp_get_team_num();
        const int thread = omp_get_thread_num(), threads = omp_get_num_threads();
        unsigned long long expected = 0;  // thread 0's: arrivals so far, this team's included
        std::int64_t pass = 0;
        // A team beyond those running (the host fallback's others) does nothing.
        for (; team < running && pass < nt && together; ++pass) {
          lanes::triad_pass<groups>(team, running, thread, threads, n, a, b, c);
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
    lanes::with_groups(shape_, [this](auto groups) { passes<decltype(groups)::value>(); });
  }

 private:
  template <std::int64_t groups>
  void passes() {
    constexpr std::int64_t pass_slots = groups * warps;
    const std::int64_t n = size_.n(), nt = size_.nt;
    const int teams = teams_;
    const float* b = b_.data();
    const float* c = c_.data();
    unsigned long long* arrived = arrivals_.reset();
    double* slots = slots_.data();
    const std::int64_t slot_count = std::int64_t(slots_.size());
    double state[3] = {0, 0, 0};  // team 0's: teams running, passes made, the last pass's sum
#pragma omp target teams num_teams(teams) thread_limit(warps)             \
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
        unsigned long long expected = 0;  // thread 0's: arrivals so far, this team's included
        double total = 0.0;               // team 0's thread 0's: the pass's dot
        std::int64_t pass = 0;
        for (; team < running && pass < nt && together; ++pass) {
          // Slots by pass parity: a team that runs ahead writes the other half, and cannot
          // come back to this one before team 0 has folded it (the next barrier).
          double* sums = slots + (pass % 2) * pass_slots;
          lanes::dot_pass<groups>(team, running, thread, threads, n, b, c, sums);
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

std::unique_ptr<Instance> make_triad_omp_target_resident(const Params& params) {
  return std::make_unique<TriadOmpTargetResident>(params);
}
std::unique_ptr<Instance> make_dot_omp_target_resident(const Params& params) {
  return std::make_unique<DotOmpTargetResident>(params);
}

}  // namespace acclab::vector
