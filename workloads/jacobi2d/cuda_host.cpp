// jacobi2d in hand-written CUDA, grids resident on the device (copied in at setup, the result
// back in finish); the sweeps are queued on one stream, and the host waits only for a
// convergence check or at the end. cuda does a sweep a pass through memory, cuda_temporal several
// (the tuning cuda_sweeps; temporal blocking, cuda_temporal.cu) wherever no check falls before
// the last of them.
#include <cuda_runtime.h>

#include <cstring>
#include <memory>

#include "kit/cuda_check.hpp"
#include "kit/cuda_memory.hpp"
#include "kit/cuda_profile.hpp"
#include "workloads/jacobi2d/cuda_kernels.hpp"
#include "workloads/jacobi2d/jacobi2d.hpp"

namespace acclab::jacobi2d {
namespace {

struct TemporalTunings {
  std::int64_t sweeps = 4;  // sweeps a pass through memory
};

const StepTunings<TemporalTunings>& temporal_tunings() {
  static const StepTunings<TemporalTunings> tunings = StepTunings<TemporalTunings>().integer(
      {.key = "cuda_sweeps",
       .help = "cuda_temporal only: sweeps a pass through memory (temporal blocking), 2 to 4",
       .presets = same_in_all_presets("4"),
       .minimum = 2,
       .maximum = 4},
      &TemporalTunings::sweeps);
  return tunings;
}

class Cuda : public JacobiInstance {
 public:
  // cuda does one sweep a pass; cuda_temporal the sweeps of its tuning.
  Cuda(const Params& params, bool temporal)
      : JacobiInstance(params),
        temporal_(temporal),
        sweeps_(temporal ? temporal_tunings().read(params).sweeps : 1) {}

  void setup() override {
    JacobiInstance::setup();
    const auto n = static_cast<std::size_t>(p_.points());
    stream_ = std::make_unique<CudaStream>();
    init_ = DeviceArray<float>(n);
    u0_dev_ = DeviceArray<float>(n);
    u1_dev_ = DeviceArray<float>(n);
    change_ = DeviceArray<unsigned int>(1);
    init_.upload(initial_);
  }
  void reset() override {
    cuda::restore_grids(init_.get(), u0_dev_.get(), u1_dev_.get(),
                        static_cast<std::size_t>(p_.points()), stream_->get());
  }
  void run() override {
    const cuda::Coefficients c{
        static_cast<int>(p_.rows), static_cast<int>(p_.cols), p_.c1f, p_.wy2, p_.hx2, p_.c2};
    const cudaStream_t stream = stream_->get();
    unsigned int* change = change_.get();
    // Launches `kernel` (one sweep or several), and with `check` returns its last sweep's change.
    passes_ = 0;
    const auto launch = [&](auto kernel, const float* in, float* out, bool check) {
      ++passes_;
      if (!check) {
        kernel(c, in, out, nullptr, stream);
        return 0.0f;
      }
      CUDA_CHECK(cudaMemsetAsync(change, 0, sizeof(unsigned int), stream));
      kernel(c, in, out, change, stream);
      unsigned int bits = 0;
      {
        profile::CudaTimer timer(cudaMemcpyDeviceToHost, sizeof bits, stream);
        CUDA_CHECK(cudaMemcpyAsync(&bits, change, sizeof bits, cudaMemcpyDeviceToHost, stream));
      }
      CUDA_CHECK(cudaStreamSynchronize(stream));
      float max_change = 0.0f;
      std::memcpy(&max_change, &bits, sizeof max_change);
      return max_change;
    };
    const auto one = [&](const float* in, float* out, bool check) {
      return launch(cuda::sweep, in, out, check);
    };
    if (temporal_) {
      iterate_in_passes(
          u0_dev_.get(), u1_dev_.get(), sweeps_, one,
          [&](const float* in, float* out, std::int64_t count, bool check) {
            const auto several = [count](const cuda::Coefficients& k, const float* from, float* to,
                                         unsigned int* max_change, cudaStream_t queue) {
              cuda::several_sweeps(k, int(count), from, to, max_change, queue);
            };
            return launch(several, in, out, check);
          });
    } else {
      iterate(u0_dev_.get(), u1_dev_.get(), one);
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
    device_result_ = result_;
  }
  Verification verify() override {
    Verification v = JacobiInstance::verify();
    // Passes through memory, each one sweep or several: the limit counts one sweep a pass.
    v.outputs["passes"] = passes_;
    return v;
  }
  void finish() override {
    profile::CudaTimer timer(cudaMemcpyDeviceToHost, p_.points() * sizeof(float), nullptr);
    CUDA_CHECK(cudaMemcpy(u0_.data(), device_result_, p_.points() * sizeof(float),
                          cudaMemcpyDeviceToHost));
    result_ = u0_.data();
  }

 private:
  std::unique_ptr<CudaStream> stream_;
  DeviceArray<float> init_, u0_dev_, u1_dev_;
  DeviceArray<unsigned int> change_;
  const float* device_result_ = nullptr;
  bool temporal_ = false;
  std::int64_t sweeps_ = 1;
  std::int64_t passes_ = 0;  // kernels launched by the last run
};

}  // namespace

TuningSet cuda_temporal_tuning_set() { return temporal_tunings().set(); }

std::unique_ptr<Instance> make_cuda(const Params& params) {
  return std::make_unique<Cuda>(params, false);
}
std::unique_ptr<Instance> make_cuda_temporal(const Params& params) {
  return std::make_unique<Cuda>(params, true);
}

}  // namespace acclab::jacobi2d
