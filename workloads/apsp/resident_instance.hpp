// The matrix, and with paths the successors, resident on the device for a variant's whole
// measurement: entered in setup, restored from the host's initial state in reset (untimed),
// brought back in finish. Data is the model's unstructured data movement (acc_present.hpp's
// AccData for optimize and optimize_resident, omp_target_present.hpp's OmpData for the OpenMP
// target steps): this header itself is plain C++, so that both models keep the matrix one way.
#pragma once

#include <cstdint>

#include "workloads/apsp/apsp.hpp"

namespace acclab::apsp {

// Data has static enter (allocate on the device, contents undefined), to_device, to_host
// (blocking updates) and release (delete the device copy), each taking (T* p, int64 count).
template <class Data>
class ResidentInstance : public ApspInstance {
 public:
  using ApspInstance::ApspInstance;
  ResidentInstance(const ResidentInstance&) = delete;
  ResidentInstance& operator=(const ResidentInstance&) = delete;
  ~ResidentInstance() override { release_present(); }

  // n >= 2, so no section below is empty (and the kits' helpers would skip one).
  void setup() override {
    ApspInstance::setup();
    Data::enter(d_.data(), p_.elements());
    if (p_.paths) Data::enter(next_.data(), p_.elements());
    resident_ = true;
  }
  void reset() override {
    ApspInstance::reset();
    if (!resident_) return;
    Data::to_device(d_.data(), p_.elements());
    if (p_.paths) Data::to_device(next_.data(), p_.elements());
  }
  void finish() override {
    Data::to_host(d_.data(), p_.elements());
    if (p_.paths) Data::to_host(next_.data(), p_.elements());
    release_present();
  }

 protected:
  // Deletes the device copies; nothing when they were never entered or already deleted.
  void release_present() {
    if (!resident_) return;
    Data::release(d_.data(), p_.elements());
    if (p_.paths) Data::release(next_.data(), p_.elements());
    resident_ = false;
  }

 private:
  bool resident_ = false;
};

}  // namespace acclab::apsp
