// Progress of a long command on stderr, shared by acclab's commands.
#pragma once

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "core/mpi_env.hpp"
#include "safe_text.hpp"

namespace acclab {

// "45 s", "3 min 05 s", "2 h 03 min".
inline std::string format_duration(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  if (s < 60) return fmt::format("{} s", s);
  if (s < 3600) return fmt::format("{} min {:02} s", s / 60, s % 60);
  return fmt::format("{} h {:02} min", s / 3600, (s % 3600) / 60);
}

// What a command is doing, for a user waiting on it: which step of how many (variant i of the
// n selected, once per parameter set), which run of the step (the warm-up, then 1 to reps),
// the time since the command started and an estimate of what is left from the runs done so far.
//
// On a terminal, one line redrawn twice a second once the command has run for 2 s, erased when
// it ends. Elsewhere (a CI log, a file, a pipe, mpirun's forwarded stderr), a plain line every
// 5 s, so that a log shows a command that is working and how far it got without filling up.
// ACCLAB_PROGRESS_INTERVAL=S sets those lines S seconds apart, 0 none: for tests, which check
// stderr's lines. Quiet: nothing, and no thread. Under mpirun rank 0 alone reports (the ranks run
// the same steps together).
//
// A ticker thread does the printing, so that one long run (an apsp or iccg solve) still shows
// time passing. Every method is safe to call from the command's thread while it ticks.
class Progress {
 public:
  explicit Progress(bool quiet)
      : terminal_(isatty(STDERR_FILENO) == 1),
        interval_(terminal_ ? std::chrono::milliseconds(500) : line_interval()),
        enabled_(!quiet && mpi::is_root() && interval_.count() > 0) {}
  ~Progress() { finish(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Starts the clock and the ticker; `steps` 0: a command without steps (apsp, iccg).
  void begin(int steps) {
    if (!enabled_ || ticker_.joinable()) return;
    {
      std::lock_guard lock(mutex_);
      steps_ = steps;
      start_ = last_line_ = std::chrono::steady_clock::now();
    }
    ticker_ = std::jthread([this](std::stop_token stop) {
      std::unique_lock lock(mutex_);
      // Wakes every interval to report, and at once when finish() asks it to end.
      while (!wake_.wait_for(lock, stop, interval_, [] { return false; })) {
        if (stop.stop_requested()) break;
        draw();
      }
    });
  }
  // Step `index` (0-based) of begin()'s `steps` starts: `name` is what it runs.
  void step(int index, const std::string& name) {
    if (!enabled_) return;
    std::lock_guard lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    // A step that ran nothing (unavailable here) says nothing about how long the others take.
    if (step_ >= 0 && run_ >= 0) finished_steps_s_.push_back(seconds(now - step_start_));
    step_ = index;
    step_name_ = name;
    step_start_ = now;
    what_.clear();
    run_ = -1;
    reps_ = 0;
  }
  // Where the step (or a stepless command) is now, in a few words.
  void update(const std::string& what) {
    if (!enabled_) return;
    std::lock_guard lock(mutex_);
    what_ = what;
  }
  // Run `run` of the step starts: 0 the warm-up, then 1 to `reps` the timed runs.
  void run(int run, int reps) {
    if (!enabled_) return;
    std::lock_guard lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    if (run == 0) first_run_start_ = now;
    run_ = run;
    reps_ = reps;
    run_start_ = now;
  }
  // A time budget bounds what is left: the part of it still unspent now (at most
  // `deadline` - now) and `later_s` seconds after the deadline (the budgets of the parts still
  // to come). Past the deadline the line says the current step is being finished instead of an
  // estimate that the budget would never allow.
  void budget(std::chrono::steady_clock::time_point deadline, double later_s) {
    if (!enabled_) return;
    std::lock_guard lock(mutex_);
    deadline_ = deadline;
    later_budget_s_ = later_s;
  }
  // Stops the ticker and erases the terminal's line. Called before the report is printed.
  void finish() {
    if (ticker_.joinable()) {
      ticker_.request_stop();
      ticker_.join();
    }
    std::lock_guard lock(mutex_);
    if (shown_) std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    shown_ = false;
  }

 private:
  using Clock = std::chrono::steady_clock;
  static double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

  // 5 s, or ACCLAB_PROGRESS_INTERVAL's seconds (0: no lines).
  static std::chrono::milliseconds line_interval() {
    if (const char* text = std::getenv("ACCLAB_PROGRESS_INTERVAL")) {
      char* end = nullptr;
      const double s = std::strtod(text, &end);
      if (end != text && *end == '\0' && s >= 0 && s < 3600) {
        return std::chrono::milliseconds(s == 0 ? 0L : std::max(10L, std::lround(s * 1000)));
      }
    }
    return std::chrono::milliseconds(5000);
  }

  // Seconds left, from the runs done so far; negative while nothing is known yet. The step
  // running: its time per run so far (warm-up included, setup not) times the runs it has left.
  // The steps after it: the mean of the finished steps, or this step's projected time while
  // none has finished.
  double seconds_left(Clock::time_point now) const {
    if (steps_ <= 0 || step_ < 0) return -1;
    const double in_step = seconds(now - step_start_);
    double step_total = -1;
    if (run_ >= 1 && reps_ >= 1) {  // run_ runs done: the warm-up and run_ - 1 timed ones
      const double per_run = seconds(run_start_ - first_run_start_) / run_;
      const double setup = seconds(first_run_start_ - step_start_);
      step_total = setup + per_run * (reps_ + 1);
    }
    double mean = -1;
    if (!finished_steps_s_.empty()) {
      mean = 0;
      for (double s : finished_steps_s_) mean += s;
      mean /= static_cast<double>(finished_steps_s_.size());
    }
    const double this_step = step_total >= 0 ? step_total : mean;
    const double later = mean >= 0 ? mean : step_total;
    if (this_step < 0 || later < 0) return -1;
    return std::max(0.0, this_step - in_step) + later * (steps_ - step_ - 1);
  }

  std::string line(Clock::time_point now) const {
    std::string text;
    if (steps_ > 0 && step_ >= 0) {
      text = fmt::format("step {} of {} ({})", step_ + 1, steps_, step_name_);
      if (run_ == 0) text += ", warm-up run";
      if (run_ >= 1) text += fmt::format(", run {} of {}", run_, reps_);
      if (run_ < 0 && !what_.empty()) {  // the runner's "VARIANT: setup", less the variant
        const std::string prefix = step_name_ + ": ";
        text += ", " + (what_.starts_with(prefix) ? what_.substr(prefix.size()) : what_);
      }
    } else {
      text = what_;
    }
    text += fmt::format(", {} elapsed", format_duration(seconds(now - start_)));
    if (steps_ > 0 && deadline_ && now >= *deadline_) {
      text += ", budget spent: finishing the current point";
      if (later_budget_s_ > 0) {
        text += fmt::format(", then at most {} for the rest", format_duration(later_budget_s_));
      }
    } else if (steps_ > 0 && deadline_) {
      // Whole seconds down: with the elapsed time rounded, the two never add up past the budget.
      const double cap = seconds(*deadline_ - now) + later_budget_s_;
      const double left = seconds_left(now);
      text += left >= 0 && left < cap
                  ? fmt::format(", about {} left", format_duration(std::floor(left)))
                  : fmt::format(", at most {} left", format_duration(std::floor(cap)));
    } else if (steps_ > 0) {
      const double left = seconds_left(now);
      text += left >= 0 ? fmt::format(", about {} left", format_duration(left))
                        : std::string(", time left not known yet");
    }
    return printable(text);
  }

  void draw() {
    const auto now = Clock::now();
    if (steps_ > 0 ? step_ < 0 : what_.empty()) return;
    if (terminal_) {
      if (seconds(now - start_) < 2.0) return;
      std::fprintf(stderr, "\r\033[K%s", line(now).c_str());
      shown_ = true;
    } else {
      if (now - last_line_ < interval_) return;
      std::fprintf(stderr, "acclab: %s\n", line(now).c_str());
      last_line_ = now;
    }
    std::fflush(stderr);
  }

  const bool terminal_;
  const std::chrono::milliseconds interval_;
  const bool enabled_;
  std::mutex mutex_;
  std::condition_variable_any wake_;
  bool shown_ = false;
  int steps_ = 0;
  int step_ = -1;
  std::string step_name_;
  std::string what_;
  int run_ = -1;  // -1: no run yet in this step (setup)
  int reps_ = 0;
  std::vector<double> finished_steps_s_;
  std::optional<Clock::time_point> deadline_;
  double later_budget_s_ = 0;
  Clock::time_point start_, last_line_, step_start_, first_run_start_, run_start_;
  std::jthread ticker_;
};

}  // namespace acclab
