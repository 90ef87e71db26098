// cuda_blocked's host side: the matrix resident on the device (uploaded in setup, restored by
// a device copy in reset, brought back in finish); all rounds queued on one stream.
// cuda_blocked_multi: the rows split into `devices` slabs at multiples of the pivot, one per
// GPU. Each round the slab holding the pivot rows runs the pivot round; every other GPU pulls
// its snapshot (pivot x n floats) with a peer copy once that is done (stream waits on an event,
// no host synchronisation), then every GPU runs the round on its own rows. Before the holder
// of a later round overwrites its snapshot it waits for the others' last pulls.
#include <cuda_runtime.h>

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "kit/cuda_check.hpp"
#include "kit/cuda_memory.hpp"
#include "core/error.hpp"
#include "core/params.hpp"
#include "workloads/apsp/apsp.hpp"
#include "workloads/apsp/cuda_kernels.hpp"

namespace acclab::apsp {
namespace {

// cuda_blocked's tunings: the shape of its D kernel (cuda_kernels.hpp's RestShape), each value
// one the kernel is compiled for.
struct RestTunings {
  std::int64_t slice = 32;
  std::int64_t min_blocks = 2;
};

void check_rest_tunings(const RestTunings& t) {
  if (t.slice != 8 && t.slice != 16 && t.slice != 32) {
    throw UsageError(fmt::format("--set cuda_slice={}: expected 8, 16 or 32", t.slice));
  }
}

const StepTunings<RestTunings>& rest_tunings() {
  static const StepTunings<RestTunings> tunings = [] {
    StepTunings<RestTunings> t;
    t.integer({.key = "cuda_slice",
               .help = "cuda_blocked only: steps of a round's pivot columns and rows its "
                       "relaxation kernel stages in shared memory at a time: 8, 16 or 32",
               .presets = same_in_all_presets("32"),
               .minimum = 8,
               .maximum = 32},
              &RestTunings::slice);
    t.integer({.key = "cuda_min_blocks",
               .help = "cuda_blocked only: blocks a multiprocessor the relaxation kernel's launch "
                       "bounds promise, 1 to 3 (registers a thread at most 255, 128 or 85)",
               .presets = same_in_all_presets("2"),
               .minimum = 1,
               .maximum = 3},
              &RestTunings::min_blocks);
    t.check(check_rest_tunings);
    return t;
  }();
  return tunings;
}

class CudaBlocked : public ApspInstance {
 public:
  explicit CudaBlocked(const Params& params) : ApspInstance(params) {
    const RestTunings t = rest_tunings().read(params);
    shape_ = {.slice = int(t.slice), .min_blocks = int(t.min_blocks)};
  }
  void setup() override {
    ApspInstance::setup();
    const auto count = static_cast<std::size_t>(p_.elements());
    stream_ = std::make_unique<CudaStream>();
    initial_dev_ = DeviceArray<float>(count);
    d_dev_ = DeviceArray<float>(count);
    history_ = DeviceArray<float>(std::size_t(p_.n) * cuda::pivot);
    snapshot_ = DeviceArray<float>(std::size_t(p_.n) * cuda::pivot);
    initial_dev_.upload(initial_);
  }
  void reset() override {
    CUDA_CHECK(cudaMemcpyAsync(d_dev_.get(), initial_dev_.get(), sizeof(float) * p_.elements(),
                               cudaMemcpyDeviceToDevice, stream_->get()));
    CUDA_CHECK(cudaStreamSynchronize(stream_->get()));
  }
  void run() override {
    cuda::floyd_warshall_blocked(p_.n, p_.semiring == Semiring::max_plus, d_dev_.get(),
                                 history_.get(), snapshot_.get(), stream_->get(), shape_);
    CUDA_CHECK(cudaStreamSynchronize(stream_->get()));
  }
  void finish() override { d_dev_.download(d_); }

 private:
  cuda::RestShape shape_;
  std::unique_ptr<CudaStream> stream_;
  DeviceArray<float> initial_dev_, d_dev_, history_, snapshot_;
};

class CudaBlockedMulti : public ApspInstance {
 public:
  using ApspInstance::ApspInstance;
  ~CudaBlockedMulti() override {
    // Each GPU's memory and stream released with that GPU current.
    for (int q = 0; q < int(gpus_.size()); ++q) {
      cudaSetDevice(device_of(q));
      gpus_[q].reset();
    }
  }
  void setup() override {
    ApspInstance::setup();
    int count = 0;
    CUDA_CHECK(cudaGetDeviceCount(&count));
    if (p_.devices > count && !p_.share_gpus) {
      throw UsageError(fmt::format("--set devices={}: {} GPU{} present (share_gpus=1 puts "
                                   "slab q on GPU q mod {})",
                                   p_.devices, count, count == 1 ? "" : "s", count));
    }
    gpu_count_ = count;
    const int rounds = (p_.n + cuda::pivot - 1) / cuda::pivot;
    for (int q = 0; q < p_.devices; ++q) {
      CUDA_CHECK(cudaSetDevice(device_of(q)));
      for (int other = 0; other < p_.devices; ++other) {
        int can = 0;
        if (device_of(other) == device_of(q)) continue;
        CUDA_CHECK(cudaDeviceCanAccessPeer(&can, device_of(q), device_of(other)));
        if (can) {
          const cudaError_t status = cudaDeviceEnablePeerAccess(device_of(other), 0);
          if (status == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();
          else CUDA_CHECK(status);
        }
      }
      auto gpu = std::make_unique<Gpu>();
      gpu->row_begin = std::min(p_.n, int(std::int64_t(rounds) * q / p_.devices) * cuda::pivot);
      gpu->row_end = std::min(p_.n, int(std::int64_t(rounds) * (q + 1) / p_.devices) * cuda::pivot);
      const std::size_t count_rows = std::size_t(gpu->row_end - gpu->row_begin) * p_.n;
      gpu->initial = DeviceArray<float>(std::max<std::size_t>(count_rows, 1));
      gpu->d = DeviceArray<float>(std::max<std::size_t>(count_rows, 1));
      gpu->history = DeviceArray<float>(std::size_t(p_.n) * cuda::pivot);
      gpu->snapshot = DeviceArray<float>(std::size_t(p_.n) * cuda::pivot);
      copy_to_device(gpu->initial.get(), initial_.data() + std::size_t(gpu->row_begin) * p_.n,
                     sizeof(float) * count_rows);
      gpus_.push_back(std::move(gpu));
    }
  }
  void reset() override {
    for (int q = 0; q < p_.devices; ++q) {
      Gpu& gpu = *gpus_[q];
      CUDA_CHECK(cudaSetDevice(device_of(q)));
      CUDA_CHECK(cudaMemcpyAsync(gpu.d.get(), gpu.initial.get(), sizeof(float) * gpu.rows() * p_.n,
                                 cudaMemcpyDeviceToDevice, gpu.stream.get()));
      CUDA_CHECK(cudaStreamSynchronize(gpu.stream.get()));
      gpu.pulled_once = false;
    }
  }
  void run() override {
    const bool max_plus = p_.semiring == Semiring::max_plus;
    for (int kb = 0; kb < p_.n; kb += cuda::pivot) {
      int owner = 0;
      while (!(kb >= gpus_[owner]->row_begin && kb < gpus_[owner]->row_end)) ++owner;
      Gpu& held = *gpus_[owner];
      CUDA_CHECK(cudaSetDevice(device_of(owner)));
      // Its snapshot is about to be overwritten: the others' earlier pulls must be done.
      for (int q = 0; q < p_.devices; ++q) {
        if (q != owner && gpus_[q]->pulled_once) {
          CUDA_CHECK(cudaStreamWaitEvent(held.stream.get(), gpus_[q]->pulled.get(), 0));
        }
      }
      cuda::pivot_round(p_.n, max_plus, kb, held.slab(), held.stream.get());
      CUDA_CHECK(cudaEventRecord(held.pivoted.get(), held.stream.get()));
      const std::size_t bytes = sizeof(float) * std::size_t(cuda::pivot) * p_.n;
      for (int q = 0; q < p_.devices; ++q) {
        Gpu& gpu = *gpus_[q];
        CUDA_CHECK(cudaSetDevice(device_of(q)));
        if (q != owner) {
          CUDA_CHECK(cudaStreamWaitEvent(gpu.stream.get(), held.pivoted.get(), 0));
          CUDA_CHECK(cudaMemcpyPeerAsync(gpu.snapshot.get(), device_of(q), held.snapshot.get(),
                                         device_of(owner), bytes, gpu.stream.get()));
          CUDA_CHECK(cudaEventRecord(gpu.pulled.get(), gpu.stream.get()));
          gpu.pulled_once = true;
        }
        cuda::rest_round(p_.n, max_plus, kb, gpu.slab(), gpu.stream.get());
      }
    }
    for (int q = 0; q < p_.devices; ++q) {
      CUDA_CHECK(cudaSetDevice(device_of(q)));
      CUDA_CHECK(cudaStreamSynchronize(gpus_[q]->stream.get()));
    }
  }
  void finish() override {
    for (int q = 0; q < p_.devices; ++q) {
      const Gpu& gpu = *gpus_[q];
      CUDA_CHECK(cudaSetDevice(device_of(q)));
      CUDA_CHECK(cudaMemcpy(d_.data() + std::size_t(gpu.row_begin) * p_.n, gpu.d.get(),
                            sizeof(float) * gpu.rows() * p_.n, cudaMemcpyDeviceToHost));
    }
  }

 private:
  // The GPU that holds slab q (share_gpus=1: slabs share GPUs, each with its own stream).
  int device_of(int q) const { return q % std::max(gpu_count_, 1); }

  int gpu_count_ = 1;
  struct Gpu {
    int row_begin = 0, row_end = 0;
    DeviceArray<float> initial, d, history, snapshot;
    CudaStream stream;
    CudaEvent pivoted, pulled;
    bool pulled_once = false;
    std::size_t rows() const { return std::size_t(row_end - row_begin); }
    cuda::Slab slab() { return {row_begin, row_end, d.get(), history.get(), snapshot.get()}; }
  };
  std::vector<std::unique_ptr<Gpu>> gpus_;
};

}  // namespace

std::unique_ptr<Instance> make_cuda_blocked(const Params& params) {
  return std::make_unique<CudaBlocked>(params);
}

std::unique_ptr<Instance> make_cuda_blocked_multi(const Params& params) {
  return std::make_unique<CudaBlockedMulti>(params);
}

TuningSet cuda_blocked_tuning_set() { return rest_tunings().set(); }

}  // namespace acclab::apsp
