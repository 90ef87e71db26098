// A progress line for long runs, shared by acclab's commands.
#pragma once

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>

namespace acclab {

// A progress line on stderr, only on a terminal and only once a variant has run for 2 s. A
// ticker thread redraws it twice a second, so that one long run still shows time passing.
class Progress {
 public:
  Progress() : enabled_(isatty(STDERR_FILENO) == 1) {}
  ~Progress() { stop(); }

  // Starts timing a new variant.
  void start() {
    if (!enabled_) return;
    stop();
    {
      std::lock_guard lock(mutex_);
      start_ = std::chrono::steady_clock::now();
      what_.clear();
    }
    ticker_ = std::jthread([this](std::stop_token stop) {
      std::unique_lock lock(mutex_);
      // Wakes every 500 ms to redraw, and at once when stop() asks it to end.
      while (!wake_.wait_for(lock, stop, std::chrono::milliseconds(500), [] { return false; })) {
        if (stop.stop_requested()) break;
        draw(lock);
      }
    });
  }
  void update(const std::string& what) {
    if (!enabled_) return;
    std::lock_guard lock(mutex_);
    what_ = what;
  }
  // Stops the ticker and erases the line.
  void stop() {
    if (ticker_.joinable()) {
      ticker_.request_stop();
      ticker_.join();
    }
    std::lock_guard lock(mutex_);
    if (shown_) std::fprintf(stderr, "\r\033[K");
    shown_ = false;
  }

 private:
  void draw(std::unique_lock<std::mutex>&) {
    std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start_;
    if (elapsed.count() < 2.0 || what_.empty()) return;
    std::fprintf(stderr, "\r\033[K%s (%.0f s)", what_.c_str(), elapsed.count());
    std::fflush(stderr);
    shown_ = true;
  }

  const bool enabled_;
  std::mutex mutex_;
  std::condition_variable_any wake_;
  bool shown_ = false;
  std::string what_;
  std::chrono::steady_clock::time_point start_;
  std::jthread ticker_;
};

}  // namespace acclab
