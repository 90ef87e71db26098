// The course's 03_unified: the matrix and the solver's vectors in CUDA managed memory
// (cudaMallocManaged, the course's `-ta=tesla:managed`), handed to the OpenACC kernels through
// `deviceptr`; the driver migrates pages to the GPU at their first use in a run and back when
// the host reads x. Refused when the arrays exceed the device's free memory. Without a CUDA GPU
// the arrays are ordinary host memory and the kernels run on the host (CI checks it so).
#include <fmt/format.h>

#include <cstring>
#include <vector>

#include "core/error.hpp"
#include "core/machine.hpp"
#include "workloads/iccg/iccg.hpp"
#ifdef ACCLAB_HAVE_CUDA
#include <cuda_runtime.h>

#include "kit/cuda_check.hpp"
#endif

namespace acclab::iccg {
namespace {

// One allocation holding every array, managed when a CUDA GPU is present.
class SharedArena {
 public:
  SharedArena() = default;
  SharedArena(const SharedArena&) = delete;
  SharedArena& operator=(const SharedArena&) = delete;
  ~SharedArena() {
#ifdef ACCLAB_HAVE_CUDA
    if (managed_) cudaFree(managed_);
#endif
  }
  void allocate(std::size_t bytes) {
#ifdef ACCLAB_HAVE_CUDA
    if (cuda_gpu_count() > 0) {
      std::size_t free = 0, total = 0;
      CUDA_CHECK(cudaMemGetInfo(&free, &total));
      if (bytes > free) {
        throw UsageError(fmt::format("iccg/unified: {:.2f} GiB of managed memory, {:.2f} GiB free "
                                     "on the device",
                                     bytes / 1073741824.0, free / 1073741824.0));
      }
      CUDA_CHECK(cudaMallocManaged(&managed_, bytes));
      base_ = static_cast<char*>(managed_);
      return;
    }
#endif
    host_.resize(bytes);
    base_ = host_.data();
  }
  // The next `count` elements of T (8-byte aligned: every T here is 8 bytes).
  template <typename T>
  T* take(std::size_t count) {
    T* at = reinterpret_cast<T*>(base_ + used_);
    used_ += sizeof(T) * count;
    return at;
  }

 private:
  void* managed_ = nullptr;
  std::vector<char> host_;
  char* base_ = nullptr;
  std::size_t used_ = 0;
};

class Unified : public IccgInstance {
 public:
  using IccgInstance::IccgInstance;
  void setup() override {
    IccgInstance::setup();
    const std::size_t n = std::size_t(a_.n), nnz = a_.column.size();
    arena_.allocate(8 * (n + (n + 1) + 2 * nnz + 7 * n));
    auto copy = [&](const auto& vector) {
      using T = typename std::decay_t<decltype(vector)>::value_type;
      T* at = arena_.take<T>(vector.size());
      std::memcpy(at, vector.data(), sizeof(T) * vector.size());
      return at;
    };
    d_.n = a_.n;
    d_.diagonal = copy(a_.diagonal);
    d_.start = copy(a_.start);
    d_.column = copy(a_.column);
    d_.value = copy(a_.value);
    d_.b = copy(b_);
    for (double** v : {&d_.x, &d_.w, &d_.r, &d_.z, &d_.p, &d_.q}) *v = arena_.take<double>(n);
  }
  void run() override {
    solution_ = acc::solve_device(d_, ordering_, p_.eps, p_.max_iterations);
  }
  // The host reads x from managed memory: its pages come back.
  void finish() override { solution_.x.assign(d_.x, d_.x + a_.n); }

 private:
  SharedArena arena_;
  DeviceSystem d_;
};

}  // namespace

std::unique_ptr<Instance> make_unified(const Params& params) {
  return std::make_unique<Unified>(params);
}

}  // namespace acclab::iccg
