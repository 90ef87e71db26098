// MPI ranks with CUDA: each rank's box resident on its GPU, stepped by a kernel of its own (the
// cuda step's kernel takes the whole grid with walls on every side, not a box in a shell of
// its neighbours' cells); the six faces are packed on the device and move device to device
// where they can (core/mpi_device_path.hpp: the ways there are and how one is chosen).
// The path taken is in the result (mpi.halo_path).
#include <cuda_runtime.h>

#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/cuda_memory.hpp"
#include "core/mpi_device_path.hpp"
#include "workloads/diffusion3d/mpi_blocks.hpp"
#include "workloads/diffusion3d/mpi_cuda_kernels.hpp"

namespace acclab::diffusion3d {
namespace {

class MpiCuda : public MpiDiffusionInstance {
 public:
  using MpiDiffusionInstance::MpiDiffusionInstance;

  void setup() override {
    MpiDiffusionInstance::setup();
    int gpus = 0;
    CUDA_CHECK(cudaGetDeviceCount(&gpus));
    CUDA_CHECK(cudaSetDevice(mpi::local_rank() % gpus));
    // The kernel contracts multiply-adds: held to the workload's bound, not to the serial bits.
    bitwise_ = false;
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
    cuda::Box box{};
    box.bx = static_cast<int>(b_.size[0]);
    box.by = static_cast<int>(b_.size[1]);
    box.bz = static_cast<int>(b_.size[2]);
    box.cc = p_.cc;
    box.ce = p_.ce;
    box.cw = p_.cw;
    box.cn = p_.cn;
    box.cs = p_.cs;
    box.ct = p_.ct;
    box.cb = p_.cb;
    for (int s = 0; s < 6; ++s) box.walls[s] = b_.neighbour[s] < 0;
    const cudaStream_t stream = stream_->get();
    iterate_blocks(
        f_dev_.get(), fn_dev_.get(), [&](float* field) { exchange(field); },
        [&](const float* f, float* fn) { cuda::step_box(box, f, fn, stream); });
    CUDA_CHECK(cudaStreamSynchronize(stream));
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
          exchange(field);
          CUDA_CHECK(cudaStreamSynchronize(stream_->get()));
        },
        other);
    gather();
    drop_box_fields();
  }

 private:
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
};

}  // namespace

std::unique_ptr<Instance> make_mpi_cuda(const Params& params) {
  return std::make_unique<MpiCuda>(params);
}

}  // namespace acclab::diffusion3d
