// Two working float fields and their initial state, held on the device by OpenACC for a
// variant's whole measurement (stencil variants whose runs are the sweeps alone). Include it
// only from OpenACC sources: its members are OpenACC data directives.
#pragma once

#include <cstdint>

namespace acclab {

class AccResidentPair {
 public:
  AccResidentPair() = default;
  AccResidentPair(const AccResidentPair&) = delete;
  AccResidentPair& operator=(const AccResidentPair&) = delete;
  ~AccResidentPair() { release(); }

  // Copies `init` to the device and creates device copies of `a` and `b` (n floats each).
  void enter(const float* init, float* a, float* b, std::int64_t n) {
    init_ = init;
    a_ = a;
    b_ = b;
    n_ = n;
#pragma acc enter data copyin(init[0:n]) create(a[0:n], b[0:n])
    resident_ = true;
  }

  // Both device fields from the device copy of the initial state. Blocking.
  void reset() {
    const float* init = init_;
    float* a = a_;
    float* b = b_;
    const std::int64_t n = n_;
#pragma acc parallel loop present(init[0:n], a[0:n], b[0:n])
    for (std::int64_t i = 0; i < n; ++i) {
      a[i] = init[i];
      b[i] = init[i];
    }
  }

  // Brings `field` (a or b) back to the host. Blocking.
  void fetch(float* field) {
    float* target = field;  // a local: GCC 12 calls a parameter named only in a clause unused
    const std::int64_t n = n_;
#pragma acc update self(target[0:n])
  }

  // Frees the device copies; nothing when they were never entered or already released.
  void release() {
    if (!resident_) return;
    const float* init = init_;
    float* a = a_;
    float* b = b_;
    const std::int64_t n = n_;
#pragma acc exit data delete(init[0:n], a[0:n], b[0:n])
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
