// exclude_datacpy_time (05) in OpenMP target form: the matrix, b and the work vectors entered on
// the device in setup (`target enter data`) and x brought back in finish, so the time is the
// solve alone; the solve is omp_target_map's, every loop a region finding the data present
// (omp_target_csr.hpp).
#include "workloads/iccg/omp_target_csr.hpp"

namespace acclab::iccg {
namespace {

class OmpTargetData : public IccgInstance {
 public:
  using IccgInstance::IccgInstance;
  OmpTargetData(const OmpTargetData&) = delete;
  OmpTargetData& operator=(const OmpTargetData&) = delete;
  ~OmpTargetData() override { release(); }

  void setup() override {
    IccgInstance::setup();
    v_.assign(a_.n);
    omp_enter_csr(v_.arrays(a_, b_));
    entered_ = true;
  }
  void run() override {
    solution_ =
        omp_solve_csr(v_.arrays(a_, b_), ordering_, factor_scale_, p_.eps, p_.max_iterations);
  }
  void finish() override {
    omp_update_host(v_.x.data(), a_.n);
    solution_.x = v_.x;
    release();
  }

 private:
  // Deletes the device copies; nothing when they were never entered or already deleted.
  void release() {
    if (!entered_) return;
    omp_exit_csr(v_.arrays(a_, b_));
    entered_ = false;
  }

  OmpCsrVectors v_;
  bool entered_ = false;
};

}  // namespace

std::unique_ptr<Instance> make_omp_target_data(const Params& params) {
  return std::make_unique<OmpTargetData>(params);
}

}  // namespace acclab::iccg
