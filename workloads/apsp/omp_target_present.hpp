// The matrix, with paths the successors, resident on the device for a variant's whole
// measurement (entered in setup, restored from the host's initial state in reset, untimed,
// brought back in finish): the OpenMP twin of acc_present.hpp, for omp_target_data and
// omp_target_tuned. Include it only from OpenMP target sources.
#pragma once

#include <cstdint>

#include "kit/omp_data.hpp"
#include "workloads/apsp/apsp.hpp"

namespace acclab::apsp {

class OmpPresentInstance : public ApspInstance {
 public:
  using ApspInstance::ApspInstance;
  OmpPresentInstance(const OmpPresentInstance&) = delete;
  OmpPresentInstance& operator=(const OmpPresentInstance&) = delete;
  ~OmpPresentInstance() override { release_present(); }

  // n >= 2, so no section below is empty (and the helpers would skip one).
  void setup() override {
    ApspInstance::setup();
    omp_enter_alloc(d_.data(), p_.elements());
    if (p_.paths) omp_enter_alloc(next_.data(), p_.elements());
    resident_ = true;
  }
  void reset() override {
    ApspInstance::reset();
    if (!resident_) return;
    omp_update_device(d_.data(), p_.elements());
    if (p_.paths) omp_update_device(next_.data(), p_.elements());
  }
  void finish() override {
    omp_update_host(d_.data(), p_.elements());
    if (p_.paths) omp_update_host(next_.data(), p_.elements());
    release_present();
  }

 protected:
  // Deletes the device copies; nothing when they were never entered or already deleted.
  void release_present() {
    if (!resident_) return;
    omp_exit_delete(d_.data(), p_.elements());
    if (p_.paths) omp_exit_delete(next_.data(), p_.elements());
    resident_ = false;
  }

 private:
  bool resident_ = false;
};

}  // namespace acclab::apsp
