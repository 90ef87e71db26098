// MPI ranks with CUDA: each rank's box resident on its GPU and stepped by the cuda step's kernel
// (the box inside its shell, the sides with a neighbour reading the shell; so that one rank runs
// exactly the cuda step); the six faces are packed on the device and move device to device
// where they can (kit/mpi_device_path.hpp: the ways there are and how one is chosen).
// The path taken is in the result (mpi.halo_path).
#include <cuda_runtime.h>

#include <chrono>
#include <climits>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "kit/cuda_check.hpp"
#include "kit/cuda_memory.hpp"
#include "kit/mpi_device_path.hpp"
#include "workloads/diffusion3d/cuda_host.hpp"
#include "workloads/diffusion3d/cuda_kernels.hpp"
#include "workloads/diffusion3d/mpi_blocks.hpp"
#include "workloads/diffusion3d/mpi_cuda_kernels.hpp"

namespace acclab::diffusion3d {
namespace {

class MpiCuda : public MpiDiffusionInstance {
 public:
  explicit MpiCuda(const Params& params)
      : MpiDiffusionInstance(params), tunings_(cuda_tunings().read(params)) {}

  void setup() override {
    MpiDiffusionInstance::setup();
    int gpus = 0;
    CUDA_CHECK(cudaGetDeviceCount(&gpus));
    CUDA_CHECK(cudaSetDevice(mpi::local_rank() % gpus));
    // The kernel contracts multiply-adds: held to the workload's bound, not to the serial bits.
    bitwise_ = false;
    if (b_.points() > INT_MAX) {  // the kernel's indices are 32-bit
      throw std::runtime_error(
          "diffusion3d mpi_cuda: a box of over 2^31 floats with its shell; "
          "use more ranks");
    }
    dependent_launch_ = tunings_.pdl && cuda::dependent_launch_available();
    extra_outputs_["dependent_launch"] = int(dependent_launch_);
    const auto n = static_cast<std::size_t>(b_.points());
    const auto faces = static_cast<std::size_t>(b_.face_floats());
    stream_ = std::make_unique<CudaStream>();
    init_ = DeviceArray<float>(n);
    f_dev_ = DeviceArray<float>(n);
    fn_dev_ = DeviceArray<float>(n);
    faces_out_dev_ = DeviceArray<float>(faces);
    faces_in_dev_ = DeviceArray<float>(faces);
    faces_out_host_.assign(faces, 0.0f);
    faces_in_host_.assign(faces, 0.0f);
    init_.upload(f_);  // the initial cells inside the shell, as setup() left f_
    path_.choose(gpus);
    halo_path_ = path_.name();
  }
  void reset() override {
    const std::size_t bytes = b_.points() * sizeof(float);
    const cudaStream_t stream = stream_->get();
    CUDA_CHECK(cudaMemcpyAsync(f_dev_.get(), init_.get(), bytes, cudaMemcpyDeviceToDevice, stream));
    CUDA_CHECK(
        cudaMemcpyAsync(fn_dev_.get(), init_.get(), bytes, cudaMemcpyDeviceToDevice, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  void run() override {
    cuda::Coefficients c =
        cuda::coefficients_of(p_, static_cast<int>(b_.size[0]), static_cast<int>(b_.size[1]),
                              static_cast<int>(b_.size[2]));
    c.pitch = static_cast<int>(b_.sy());
    c.plane = static_cast<int>(b_.sz());
    c.base = static_cast<int>(b_.at(0, 0, 0));
    const unsigned side[6] = {cuda::open_west,  cuda::open_east,  cuda::open_south,
                              cuda::open_north, cuda::open_below, cuda::open_above};
    for (int s = 0; s < 6; ++s) {
      if (b_.neighbour[s] >= 0) c.open |= side[s];
    }
    const cuda::BlockShape shape{static_cast<int>(tunings_.planes),
                                 static_cast<int>(tunings_.tile_y), tunings_.x4,
                                 dependent_launch_};
    const cudaStream_t stream = stream_->get();
    const auto start = std::chrono::steady_clock::now();
    iterate_blocks(
        f_dev_.get(), fn_dev_.get(), [&](float* field) { exchange(field); },
        [&](const float* f, float* fn) { cuda::step(c, shape, f, fn, stream); });
    CUDA_CHECK(cudaStreamSynchronize(stream));
    // The steps are queued without a wait: the run ends when the device is done.
    run_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  void finish() override {
    // iterate_blocks left block_result_ on a device field: bring it to the host field gather()
    // reads.
    const float* device_result = block_result_;
    CUDA_CHECK(
        cudaMemcpy(f_.data(), device_result, b_.points() * sizeof(float), cudaMemcpyDeviceToHost));
    block_result_ = f_.data();
    float* other = device_result == f_dev_.get() ? fn_dev_.get() : f_dev_.get();
    time_exchange(
        [&](float* field) {
          if (b_.halo_floats() == 0) return;  // one rank: nothing to wait for either
          exchange(field);
          CUDA_CHECK(cudaStreamSynchronize(stream_->get()));
        },
        other);
    gather();
    drop_box_fields();
  }

 private:
  CudaTunings tunings_;

  cuda::FaceCells cells_of(const Face& face, bool shell) const {
    return {face.count, face.na, face.sa, face.sb, shell ? face.halo : face.cell};
  }

  void exchange(float* field) {
    if (b_.halo_floats() == 0) return;
    const cudaStream_t stream = stream_->get();
    float* out = faces_out_dev_.get();
    float* in = faces_in_dev_.get();
    for (int s = 0; s < 6; ++s) {
      if (b_.neighbour[s] >= 0) {
        cuda::pack_face(field, out + faces_[s].offset, cells_of(faces_[s], false), stream);
      }
    }
    if (ncclComm_t nccl = path_.nccl()) {
      // Each face to the neighbour across it, and that neighbour's facing face back into this
      // side's slot, in one group.
      NCCL_CHECK(ncclGroupStart());
      for (int s = 0; s < 6; ++s) {
        const int peer = b_.neighbour[s];
        if (peer < 0) continue;
        const Face& f = faces_[s];
        NCCL_CHECK(ncclSend(out + f.offset, f.count, ncclFloat, peer, nccl, stream));
        NCCL_CHECK(ncclRecv(in + f.offset, f.count, ncclFloat, peer, nccl, stream));
      }
      NCCL_CHECK(ncclGroupEnd());
    } else if (path_.cuda_aware_mpi()) {
      CUDA_CHECK(cudaStreamSynchronize(stream));
      exchange_faces(out, in);
    } else {
      const std::size_t bytes = b_.face_floats() * sizeof(float);
      CUDA_CHECK(
          cudaMemcpyAsync(faces_out_host_.data(), out, bytes, cudaMemcpyDeviceToHost, stream));
      CUDA_CHECK(cudaStreamSynchronize(stream));
      exchange_faces(faces_out_host_.data(), faces_in_host_.data());
      CUDA_CHECK(cudaMemcpyAsync(in, faces_in_host_.data(), bytes, cudaMemcpyHostToDevice, stream));
    }
    for (int s = 0; s < 6; ++s) {
      if (b_.neighbour[s] >= 0) {
        cuda::unpack_face(field, in + faces_[s].offset, cells_of(faces_[s], true), stream);
      }
    }
  }

  std::unique_ptr<CudaStream> stream_;
  DeviceArray<float> init_, f_dev_, fn_dev_, faces_out_dev_, faces_in_dev_;
  std::vector<float> faces_out_host_, faces_in_host_;
  mpi::DevicePath path_;
  bool dependent_launch_ = false;  // cuda_pdl, where the device has it
};

}  // namespace

std::unique_ptr<Instance> make_mpi_cuda(const Params& params) {
  return std::make_unique<MpiCuda>(params);
}

}  // namespace acclab::diffusion3d
