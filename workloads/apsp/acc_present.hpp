// The matrix, and with paths the successors, present on the device for a variant's whole
// measurement: entered in setup, restored from the host's initial state in reset (untimed),
// brought back in finish. optimize and optimize_resident share it. Include it only from OpenACC
// sources: its members are OpenACC data directives.
#pragma once

#include <cstdint>

#include "workloads/apsp/apsp.hpp"

namespace acclab::apsp {

class PresentInstance : public ApspInstance {
 public:
  using ApspInstance::ApspInstance;
  PresentInstance(const PresentInstance&) = delete;
  PresentInstance& operator=(const PresentInstance&) = delete;
  ~PresentInstance() override { release_present(); }

  void setup() override {
    ApspInstance::setup();
    float* d = d_.data();
    const std::int64_t nn = p_.elements();
#pragma acc enter data create(d [0:nn])
    resident_ = true;
    if (p_.paths) {
      std::int32_t* next = next_.data();
#pragma acc enter data create(next [0:nn])
      next_resident_ = true;
    }
  }
  void reset() override {
    ApspInstance::reset();
    float* d = d_.data();
    const std::int64_t nn = p_.elements();
#pragma acc update device(d [0:nn])
    if (p_.paths) {
      std::int32_t* next = next_.data();
#pragma acc update device(next [0:nn])
    }
  }
  void finish() override {
    float* d = d_.data();
    const std::int64_t nn = p_.elements();
#pragma acc update self(d [0:nn])
    if (p_.paths) {
      std::int32_t* next = next_.data();
#pragma acc update self(next [0:nn])
    }
    release_present();
  }

 protected:
  // Deletes the device copies; nothing when they were never entered or already deleted.
  void release_present() {
    const std::int64_t nn = p_.elements();
    if (next_resident_) {
      std::int32_t* next = next_.data();
#pragma acc exit data delete (next [0:nn])
      next_resident_ = false;
    }
    if (resident_) {
      float* d = d_.data();
#pragma acc exit data delete (d [0:nn])
      resident_ = false;
    }
  }

 private:
  bool resident_ = false, next_resident_ = false;
};

}  // namespace acclab::apsp
