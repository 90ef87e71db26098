// A, B and C held in device memory between setup and finish, for the OpenACC steps with
// data=resident (acc_instance.cpp) and the resident OpenMP target steps (omp_target_instance.cpp):
// entered in setup, C brought back and all three released in finish. Data is the model's
// unstructured data movement; the zeroing of C in reset is a kernel of each model's, in its file.
// Plain C++, so that both models keep the matrices one way.
#pragma once

#include <cstdint>

#include "workloads/matmul/matmul.hpp"

namespace acclab::matmul {

// Data has static enter (copy to the device), to_host (blocking update) and release (delete the
// device copy), each taking (T* p, int64 count).
template <class Data>
class ResidentMatmul : public MatmulInstance {
 public:
  using MatmulInstance::MatmulInstance;
  ResidentMatmul(const ResidentMatmul&) = delete;
  ResidentMatmul& operator=(const ResidentMatmul&) = delete;
  ~ResidentMatmul() override { release(); }

  void finish() override {
    if (!resident_) return;
    Data::to_host(c_.data(), p_.c_size());
    release();
  }

 protected:
  // C too, padding included: finish brings all of c[0:nc] back, and verify() checks that the
  // padding columns still hold what the host wrote.
  void enter() {
    Data::enter(a_.data(), p_.a_size());
    Data::enter(b_.data(), p_.b_size());
    Data::enter(c_.data(), p_.c_size());
    resident_ = true;
  }
  // Whether A, B and C are on the device (entered and not yet released).
  bool resident() const { return resident_; }

 private:
  void release() {
    if (!resident_) return;
    Data::release(a_.data(), p_.a_size());
    Data::release(b_.data(), p_.b_size());
    Data::release(c_.data(), p_.c_size());
    resident_ = false;
  }

  bool resident_ = false;
};

}  // namespace acclab::matmul
