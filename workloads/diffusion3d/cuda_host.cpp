// diffusion3d in hand-written CUDA, fields resident on the device (copied in at setup, the
// result back in finish), the steps queued on one stream with no wait until the end, each
// launched as a programmatic dependent of the one before (cuda_pdl, on compute capability 9.0
// and up); the block shape from cuda_planes and cuda_tile_y (cuda_kernels.cu).
#include "workloads/diffusion3d/cuda_host.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <memory>

#include "kit/cuda_check.hpp"
#include "kit/cuda_memory.hpp"
#include "workloads/diffusion3d/cuda_kernels.hpp"
#include "workloads/diffusion3d/diffusion3d.hpp"

namespace acclab::diffusion3d {

const StepTunings<CudaTunings>& cuda_tunings() {
  static const StepTunings<CudaTunings> tunings = [] {
    StepTunings<CudaTunings> t;
    t.integer({.key = "cuda_planes",
               .help = "cuda and mpi_cuda: planes each thread block marches through along z: "
                       "4, 8, 16, 32, 64, or 0 for all nz in one chunk",
               .presets = same_in_all_presets("4"),
               .minimum = 0,
               .maximum = 64},
              &CudaTunings::planes);
    t.integer({.key = "cuda_tile_y",
               .help = "cuda and mpi_cuda: thread rows of a block's 32-wide (i, j) tile: 4, 8 "
                       "or 16",
               .presets = same_in_all_presets("4"),
               .minimum = 4,
               .maximum = 16},
              &CudaTunings::tile_y);
    t.flag({.key = "cuda_x4",
            .help = "cuda and mpi_cuda: 1 gives each thread four cells along x (float4) where "
                    "nx % 4 == 0",
            .presets = same_in_all_presets("1")},
           &CudaTunings::x4);
    t.flag({.key = "cuda_pdl",
            .help = "cuda and mpi_cuda: 1 launches each step as a programmatic dependent of "
                    "the one before (its launch overlaps that step's end) on devices of "
                    "compute capability 9.0 and up",
            .presets = same_in_all_presets("1")},
           &CudaTunings::pdl);
    // The shapes cuda_kernels.cu compiles.
    t.check([](const CudaTunings& c) {
      const auto listed = [](const auto& choices, std::int64_t value) {
        return std::find(choices.begin(), choices.end(), value) != choices.end();
      };
      if (!listed(cuda_planes_choices, c.planes)) {
        throw UsageError(fmt::format(
            "--set cuda_planes={}: expected 4, 8, 16, 32, 64 or 0 (all planes)", c.planes));
      }
      if (!listed(cuda_tile_y_choices, c.tile_y)) {
        throw UsageError(fmt::format("--set cuda_tile_y={}: expected 4, 8 or 16", c.tile_y));
      }
    });
    return t;
  }();
  return tunings;
}

TuningSet cuda_tuning_set() { return cuda_tunings().set(); }

namespace {

class Cuda : public DiffusionInstance {
 public:
  explicit Cuda(const Params& params)
      : DiffusionInstance(params), tunings_(cuda_tunings().read(params)) {}
  void setup() override {
    DiffusionInstance::setup();
    const auto n = static_cast<std::size_t>(p_.points());
    stream_ = std::make_unique<CudaStream>();
    init_ = DeviceArray<float>(n);
    f_dev_ = DeviceArray<float>(n);
    fn_dev_ = DeviceArray<float>(n);
    init_.upload(initial_);
    dependent_launch_ = tunings_.pdl && cuda::dependent_launch_available();
    extra_outputs_["dependent_launch"] = int(dependent_launch_);
  }
  void reset() override {
    const size_t bytes = p_.points() * sizeof(float);
    const cudaStream_t stream = stream_->get();
    CUDA_CHECK(cudaMemcpyAsync(f_dev_.get(), init_.get(), bytes, cudaMemcpyDeviceToDevice, stream));
    CUDA_CHECK(
        cudaMemcpyAsync(fn_dev_.get(), init_.get(), bytes, cudaMemcpyDeviceToDevice, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  void run() override {
    const cuda::Coefficients c = cuda::coefficients_of(
        p_, static_cast<int>(p_.nx), static_cast<int>(p_.ny), static_cast<int>(p_.nz));
    const cuda::BlockShape shape{static_cast<int>(tunings_.planes),
                                 static_cast<int>(tunings_.tile_y), tunings_.x4, dependent_launch_};
    const cudaStream_t stream = stream_->get();
    iterate(f_dev_.get(), fn_dev_.get(),
            [&](const float* f, float* fn) { cuda::step(c, shape, f, fn, stream); });
    CUDA_CHECK(cudaStreamSynchronize(stream));
    device_result_ = result_;
  }
  void finish() override {
    CUDA_CHECK(
        cudaMemcpy(f_.data(), device_result_, p_.points() * sizeof(float), cudaMemcpyDeviceToHost));
    result_ = f_.data();
  }

 private:
  CudaTunings tunings_;
  std::unique_ptr<CudaStream> stream_;
  DeviceArray<float> init_, f_dev_, fn_dev_;
  const float* device_result_ = nullptr;
  bool dependent_launch_ = false;  // cuda_pdl, where the device has it
};

}  // namespace

std::unique_ptr<Instance> make_cuda(const Params& params) { return std::make_unique<Cuda>(params); }

}  // namespace acclab::diffusion3d
