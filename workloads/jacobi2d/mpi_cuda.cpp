// MPI ranks with the CUDA kernels: each rank's block resident on its GPU and swept by the
// `cuda` step's kernel (the block with its halo ring is a small grid of its own); the edges are
// packed on the device and move device to device where
// they can (kit/mpi_device_path.hpp: the ways there are and how one is chosen).
// The path taken is in the result (mpi.halo_path).
#include <cuda_runtime.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "kit/cuda_check.hpp"
#include "kit/cuda_memory.hpp"
#include "kit/mpi_device_path.hpp"
#include "workloads/jacobi2d/cuda_kernels.hpp"
#include "workloads/jacobi2d/mpi_blocks.hpp"
#include "workloads/jacobi2d/mpi_cuda_kernels.hpp"

namespace acclab::jacobi2d {
namespace {

class MpiCuda : public MpiJacobiInstance {
 public:
  using MpiJacobiInstance::MpiJacobiInstance;

  void setup() override {
    MpiJacobiInstance::setup();
    int gpus = 0;
    CUDA_CHECK(cudaGetDeviceCount(&gpus));
    CUDA_CHECK(cudaSetDevice(mpi::local_rank() % gpus));
    // The kernels contract multiply-adds: held to serial_tolerance, not to the serial bits.
    bitwise_ = false;
    const auto n = static_cast<std::size_t>(b_.points());
    stream_ = std::make_unique<CudaStream>();
    init_ = DeviceArray<float>(n);
    u0_dev_ = DeviceArray<float>(n);
    u1_dev_ = DeviceArray<float>(n);
    change_ = DeviceArray<unsigned int>(1);
    faces_out_dev_ = DeviceArray<float>(static_cast<std::size_t>(face_floats()));
    faces_in_dev_ = DeviceArray<float>(static_cast<std::size_t>(face_floats()));
    faces_out_host_.assign(static_cast<std::size_t>(face_floats()), 0.0f);
    faces_in_host_.assign(static_cast<std::size_t>(face_floats()), 0.0f);
    init_.upload(initial_);
    path_.choose(gpus);
    halo_path_ = path_.name();
  }
  void reset() override {
    cuda::restore_grids(init_.get(), u0_dev_.get(), u1_dev_.get(),
                        static_cast<std::size_t>(b_.points()), stream_->get());
  }
  void run() override {
    const cuda::Coefficients c{
        static_cast<int>(b_.rows + 2), static_cast<int>(b_.ld()), p_.c1f, p_.wy2, p_.hx2, p_.c2};
    const cudaStream_t stream = stream_->get();
    unsigned int* change = change_.get();
    const auto start = std::chrono::steady_clock::now();
    iterate(
        u0_dev_.get(), u1_dev_.get(), [&](float* grid) { exchange(grid); },
        [&](const float* in, float* out, bool check) {
          if (!check) {
            cuda::sweep(c, in, out, nullptr, stream);
            return 0.0f;
          }
          CUDA_CHECK(cudaMemsetAsync(change, 0, sizeof(unsigned int), stream));
          cuda::sweep(c, in, out, change, stream);
          unsigned int bits = 0;
          CUDA_CHECK(cudaMemcpyAsync(&bits, change, sizeof bits, cudaMemcpyDeviceToHost, stream));
          CUDA_CHECK(cudaStreamSynchronize(stream));
          float value;
          std::memcpy(&value, &bits, sizeof value);
          return value;
        });
    CUDA_CHECK(cudaStreamSynchronize(stream));
    // Without a residual check the sweeps are queued without a wait and iterate's clock stops
    // when the last is queued: the run ends when the device is done.
    run_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  void finish() override {
    // iterate left result_ on a device grid: bring it to the host grid gather() reads.
    float* device_result = const_cast<float*>(result_);
    CUDA_CHECK(
        cudaMemcpy(u0_.data(), device_result, b_.points() * sizeof(float), cudaMemcpyDeviceToHost));
    result_ = u0_.data();
    float* other = device_result == u0_dev_.get() ? u1_dev_.get() : u0_dev_.get();
    time_exchange(
        [&](float* grid) {
          if (b_.halo_floats() == 0) return;  // one rank: nothing to wait for either
          exchange(grid);
          CUDA_CHECK(cudaStreamSynchronize(stream_->get()));
        },
        other);
    gather();
  }

 private:
  void exchange(float* grid) {
    if (b_.halo_floats() == 0) return;
    const int rows = static_cast<int>(b_.rows), cols = static_cast<int>(b_.cols);
    const cudaStream_t stream = stream_->get();
    float* out = faces_out_dev_.get();
    float* in = faces_in_dev_.get();
    cuda::pack_faces(grid, out, rows, cols, stream);
    if (ncclComm_t nccl = path_.nccl()) {
      // Each side's edge to the neighbour there, and its facing edge back, in one group.
      const std::int64_t offset[4] = {0, cols, 2 * cols, 2 * cols + rows};
      const std::int64_t count[4] = {cols, cols, rows, rows};
      const int peer[4] = {b_.north, b_.south, b_.west, b_.east};
      NCCL_CHECK(ncclGroupStart());
      for (int side = 0; side < 4; ++side) {
        if (peer[side] < 0) continue;
        NCCL_CHECK(ncclSend(out + offset[side], count[side], ncclFloat, peer[side], nccl, stream));
        // The neighbour sends back its facing edge: this side's halo, in this side's slot.
        NCCL_CHECK(ncclRecv(in + offset[side], count[side], ncclFloat, peer[side], nccl, stream));
      }
      NCCL_CHECK(ncclGroupEnd());
    } else if (path_.cuda_aware_mpi()) {
      CUDA_CHECK(cudaStreamSynchronize(stream));
      exchange_faces(out, in);
    } else {
      const std::size_t bytes = face_floats() * sizeof(float);
      CUDA_CHECK(
          cudaMemcpyAsync(faces_out_host_.data(), out, bytes, cudaMemcpyDeviceToHost, stream));
      CUDA_CHECK(cudaStreamSynchronize(stream));
      exchange_faces(faces_out_host_.data(), faces_in_host_.data());
      CUDA_CHECK(cudaMemcpyAsync(in, faces_in_host_.data(), bytes, cudaMemcpyHostToDevice, stream));
    }
    cuda::unpack_faces(grid, in, rows, cols,
                       {b_.north >= 0, b_.south >= 0, b_.west >= 0, b_.east >= 0}, stream);
  }

  std::unique_ptr<CudaStream> stream_;
  DeviceArray<float> init_, u0_dev_, u1_dev_, faces_out_dev_, faces_in_dev_;
  DeviceArray<unsigned int> change_;
  std::vector<float> faces_out_host_, faces_in_host_;
  mpi::DevicePath path_;
};

}  // namespace

std::unique_ptr<Instance> make_mpi_cuda(const Params& params) {
  return std::make_unique<MpiCuda>(params);
}

}  // namespace acclab::jacobi2d
