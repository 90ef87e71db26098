// The host side of matmul's CUDA variants: cuda_tiled (our kernel) and cublas (cuBLAS DGEMM,
// what a GPU user would call instead). With data=resident A, B and C are uploaded in setup and C
// comes back in finish; with data=copy every run uploads A, B and C and downloads C, as the
// OpenACC steps' copy clauses do. cuda_tiled's knobs (cuda_tile, cuda_mma, cuda_warps,
// cuda_slice, cuda_stages) are its own, declared here and checked by cuda_tiling.cpp.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kit/cuda_check.hpp"
#include "kit/cuda_memory.hpp"
#include "kit/shared_library.hpp"
#include "workloads/matmul/cuda_kernels.hpp"
#include "workloads/matmul/matmul.hpp"

namespace acclab::matmul {
namespace {

const StepTunings<cuda::TiledTunings>& cuda_tiled_tunings() {
  static const StepTunings<cuda::TiledTunings> tunings = [] {
    using cuda::TiledTunings;
    StepTunings<TiledTunings> t;
    t.integer({.key = "cuda_tile",
               .help = "cuda_tiled only: block tile, 64 or 128",
               .presets = same_in_all_presets("64"),
               .minimum = 64,
               .maximum = 128},
              &TiledTunings::tile);
    t.text({.key = "cuda_mma",
            .help = "cuda_tiled only: FP64 MMA instruction shape (m16n8k* need sm_90)",
            .presets = same_in_all_presets("m16n8k4"),
            .choices = cuda::mma_names},
           &TiledTunings::mma);
    t.integer({.key = "cuda_warps",
               .help = "optional, cuda_tiled only: warps a block, 4, 8 or 16 (not 4 with "
                       "cuda_tile=128); unset: 4 on 64-wide tiles, 16 on 128-wide",
               .presets = same_in_all_presets(""),
               .minimum = 4,
               .maximum = 16},
              &TiledTunings::warps);
    t.integer({.key = "cuda_slice",
               .help = "cuda_tiled only: k of the slices of A and B staged in shared memory, 16 "
                       "or 32",
               .presets = same_in_all_presets("16"),
               .minimum = 16,
               .maximum = 32},
              &TiledTunings::slice);
    t.integer({.key = "cuda_stages",
               .help = "cuda_tiled only: slices of A and B copied ahead into shared memory, 2 to 4",
               .presets = same_in_all_presets("3"),
               .minimum = 2,
               .maximum = 4},
              &TiledTunings::stages);
    t.check(cuda::check_tiling);
    return t;
  }();
  return tunings;
}

}  // namespace

TuningSet cuda_tiled_tuning_set() { return cuda_tiled_tunings().set(); }

namespace {

// cuBLAS, opened when the cublas variant first runs rather than linked: loading libcublasLt
// (half a gigabyte) at start-up would cost every acclab process about 200 MB of memory, bad input
// included. The library of the CUDA major version acclab was built with.
class CublasApi {
 public:
  decltype(&cublasCreate_v2) create;
  decltype(&cublasDestroy_v2) destroy;
  decltype(&cublasSetStream_v2) set_stream;
  decltype(&cublasDgemm_v2) dgemm;
  decltype(&cublasGetStatusString) status_string;

  // Throws when the library or one of its functions cannot be found.
  static const CublasApi& get() {
    static const CublasApi api;
    return api;
  }

 private:
  CublasApi() {
    static const SharedLibrary library(fmt::format("libcublas.so.{}", CUBLAS_VER_MAJOR));
    library.bind(create, "cublasCreate_v2");
    library.bind(destroy, "cublasDestroy_v2");
    library.bind(set_stream, "cublasSetStream_v2");
    library.bind(dgemm, "cublasDgemm_v2");
    library.bind(status_string, "cublasGetStatusString");
  }
};

void cublas_check(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(
        fmt::format("{}: {}", call, CublasApi::get().status_string(status)));
  }
}

class CudaMatmul : public MatmulInstance {
 public:
  using MatmulInstance::MatmulInstance;

  void setup() override {
    MatmulInstance::setup();
    stream_ = std::make_unique<CudaStream>();
    a_dev_ = DeviceArray<double>(a_.size());
    b_dev_ = DeviceArray<double>(b_.size());
    c_dev_ = DeviceArray<double>(c_.size());
    if (p_.resident) upload();
  }
  void reset() override {
    MatmulInstance::reset();
    if (!p_.resident) return;
    CUDA_CHECK(cudaMemset2DAsync(c_dev_.get(), sizeof(double) * p_.ldc, 0, sizeof(double) * p_.n,
                                 p_.m, stream_->get()));
    CUDA_CHECK(cudaStreamSynchronize(stream_->get()));
  }
  void run() override {
    if (!p_.resident) upload();
    multiply(c_dev_.get());
    if (!p_.resident) download();
    CUDA_CHECK(cudaStreamSynchronize(stream_->get()));
  }
  bool transfers_only() override {
    if (p_.resident) return false;
    upload();
    download();
    CUDA_CHECK(cudaStreamSynchronize(stream_->get()));
    return true;
  }
  void finish() override {
    if (!p_.resident) return;
    download();
    CUDA_CHECK(cudaStreamSynchronize(stream_->get()));
  }

 protected:
  // Queues C = A B on the stream.
  virtual void multiply(double* c) = 0;
  cudaStream_t stream() const { return stream_->get(); }
  const double* a_device() const { return a_dev_.get(); }
  const double* b_device() const { return b_dev_.get(); }

 private:
  void upload() {
    const cudaStream_t s = stream_->get();
    CUDA_CHECK(cudaMemcpyAsync(a_dev_.get(), a_.data(), sizeof(double) * a_.size(),
                               cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaMemcpyAsync(b_dev_.get(), b_.data(), sizeof(double) * b_.size(),
                               cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaMemcpyAsync(c_dev_.get(), c_.data(), sizeof(double) * c_.size(),
                               cudaMemcpyHostToDevice, s));
  }
  void download() {
    CUDA_CHECK(cudaMemcpyAsync(c_.data(), c_dev_.get(), sizeof(double) * c_.size(),
                               cudaMemcpyDeviceToHost, stream_->get()));
  }

  std::unique_ptr<CudaStream> stream_;
  DeviceArray<double> a_dev_, b_dev_, c_dev_;
};

class CudaTiled : public CudaMatmul {
 public:
  explicit CudaTiled(const Params& params)
      : CudaMatmul(params), tiling_(cuda::tiling_of(cuda_tiled_tunings().read(params))) {}

 protected:
  void multiply(double* c) override {
    const cuda::Shape s{p_.m, p_.n, p_.k, p_.lda, p_.ldb, p_.ldc};
    cuda::multiply_tiled(s, a_device(), b_device(), c, tiling_, stream());
  }

 private:
  cuda::Tiling tiling_;
};

class Cublas : public CudaMatmul {
 public:
  using CudaMatmul::CudaMatmul;
  ~Cublas() override {
    if (handle_) CublasApi::get().destroy(handle_);
  }
  void setup() override {
    CudaMatmul::setup();
    const CublasApi& api = CublasApi::get();
    cublas_check(api.create(&handle_), "cublasCreate");
    cublas_check(api.set_stream(handle_, stream()), "cublasSetStream");
  }

 protected:
  // Row-major C = A B is column-major C^T = B^T A^T: the same buffers with the operands swapped.
  void multiply(double* c) override {
    const double one = 1.0, zero = 0.0;
    cublas_check(CublasApi::get().dgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, p_.n, p_.m, p_.k, &one,
                             b_device(), p_.ldb, a_device(), p_.lda, &zero, c, p_.ldc),
                 "cublasDgemm");
  }

 private:
  cublasHandle_t handle_ = nullptr;
};

}  // namespace

std::unique_ptr<Instance> make_cuda_tiled(const Params& params) {
  return std::make_unique<CudaTiled>(params);
}

std::unique_ptr<Instance> make_cublas(const Params& params) {
  return std::make_unique<Cublas>(params);
}

}  // namespace acclab::matmul
