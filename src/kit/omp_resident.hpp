// Two working float fields and their initial state, held on the device by OpenMP target data
// for a variant's whole measurement: the OpenMP twin of acc_resident.hpp, for the stencil steps
// whose runs are the sweeps alone. Include it only from OpenMP target sources.
#pragma once

#include <cstdint>

#include "kit/omp_data.hpp"

namespace acclab {

class OmpResidentPair {
 public:
  OmpResidentPair() = default;
  OmpResidentPair(const OmpResidentPair&) = delete;
  OmpResidentPair& operator=(const OmpResidentPair&) = delete;
  ~OmpResidentPair() { release(); }

  // Copies `init` to the device and allocates device copies of `a` and `b` (n floats each).
  void enter(const float* init, float* a, float* b, std::int64_t n) {
    init_ = init;
    a_ = a;
    b_ = b;
    n_ = n;
    omp_enter_to(init, n);
    omp_enter_alloc(a, n);
    omp_enter_alloc(b, n);
    resident_ = true;
  }

  // Both device fields from the device copy of the initial state. Blocking.
  void reset() {
    const float* init = init_;
    float* a = a_;
    float* b = b_;
    const std::int64_t n = n_;
    if (n == 0) return;
#pragma omp target teams distribute parallel for simd map(alloc : init [0:n], a [0:n], b [0:n])
    for (std::int64_t i = 0; i < n; ++i) {
      a[i] = init[i];
      b[i] = init[i];
    }
  }

  // Brings `field` (a or b) back to the host. Blocking.
  void fetch(float* field) { omp_update_host(field, n_); }

  // Frees the device copies; nothing when they were never entered or already released.
  void release() {
    if (!resident_) return;
    omp_exit_delete(init_, n_);
    omp_exit_delete(a_, n_);
    omp_exit_delete(b_, n_);
    resident_ = false;
  }

 private:
  const float* init_ = nullptr;
  float* a_ = nullptr;
  float* b_ = nullptr;
  std::int64_t n_ = 0;
  bool resident_ = false;
};

}  // namespace acclab
