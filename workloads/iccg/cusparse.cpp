// iccg's cusparse step: what a GPU user would pick instead of our kernels: cuSPARSE's IC(0)
// (csric02) and triangular solves (SpSV with L and L^T), its SpMV, on the same permuted matrix in
// CSR; the scalars come to the host three times an iteration, as a straightforward user's loop
// does. On the 7-point mesh the full IC(0) equals the course's diagonal-only one (no two
// neighbours of a cell are neighbours), so the iterations are the same. As the cuda step
// (cuda_host.cpp), it uploads the system in setup and brings x back in finish: the time is the
// solve alone, factorisation and cuSPARSE's analysis included.
#define DISABLE_CUSPARSE_DEPRECATED  // csric02 is deprecated, and still cuSPARSE's only IC(0)
#include <cuda_runtime.h>
#include <cusparse.h>
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <utility>

#include "kit/cuda_check.hpp"
#include "kit/cuda_memory.hpp"
#include "kit/shared_library.hpp"
#include "workloads/iccg/cuda_host.hpp"
#include "workloads/iccg/cuda_kernels.hpp"
#include "workloads/iccg/iccg.hpp"

namespace acclab::iccg {
namespace {

// cuSPARSE, opened when the cusparse variant first runs (kit/shared_library.hpp says why).
class CusparseApi {
 public:
  decltype(&cusparseCreate) create;
  decltype(&cusparseDestroy) destroy;
  decltype(&cusparseSetStream) set_stream;
  decltype(&cusparseGetErrorString) error_string;
  decltype(&cusparseCreateMatDescr) create_mat_descr;
  decltype(&cusparseDestroyMatDescr) destroy_mat_descr;
  decltype(&cusparseCreateCsric02Info) create_ic0_info;
  decltype(&cusparseDestroyCsric02Info) destroy_ic0_info;
  decltype(&cusparseDcsric02_bufferSize) ic0_buffer_size;
  decltype(&cusparseDcsric02_analysis) ic0_analysis;
  decltype(&cusparseDcsric02) ic0;
  decltype(&cusparseXcsric02_zeroPivot) ic0_zero_pivot;
  decltype(&cusparseCreateCsr) create_csr;
  decltype(&cusparseDestroySpMat) destroy_sp_mat;
  decltype(&cusparseSpMatSetAttribute) sp_mat_set_attribute;
  decltype(&cusparseCreateDnVec) create_dn_vec;
  decltype(&cusparseDestroyDnVec) destroy_dn_vec;
  decltype(&cusparseSpSV_createDescr) spsv_create;
  decltype(&cusparseSpSV_destroyDescr) spsv_destroy;
  decltype(&cusparseSpSV_bufferSize) spsv_buffer_size;
  decltype(&cusparseSpSV_analysis) spsv_analysis;
  decltype(&cusparseSpSV_solve) spsv_solve;
  decltype(&cusparseSpMV_bufferSize) spmv_buffer_size;
  decltype(&cusparseSpMV) spmv;

  // Throws when the library or one of its functions cannot be found.
  static const CusparseApi& get() {
    static const CusparseApi api;
    return api;
  }

 private:
  CusparseApi() {
    static const SharedLibrary library(fmt::format("libcusparse.so.{}", CUSPARSE_VER_MAJOR));
    library.bind(create, "cusparseCreate");
    library.bind(destroy, "cusparseDestroy");
    library.bind(set_stream, "cusparseSetStream");
    library.bind(error_string, "cusparseGetErrorString");
    library.bind(create_mat_descr, "cusparseCreateMatDescr");
    library.bind(destroy_mat_descr, "cusparseDestroyMatDescr");
    library.bind(create_ic0_info, "cusparseCreateCsric02Info");
    library.bind(destroy_ic0_info, "cusparseDestroyCsric02Info");
    library.bind(ic0_buffer_size, "cusparseDcsric02_bufferSize");
    library.bind(ic0_analysis, "cusparseDcsric02_analysis");
    library.bind(ic0, "cusparseDcsric02");
    library.bind(ic0_zero_pivot, "cusparseXcsric02_zeroPivot");
    library.bind(create_csr, "cusparseCreateCsr");
    library.bind(destroy_sp_mat, "cusparseDestroySpMat");
    library.bind(sp_mat_set_attribute, "cusparseSpMatSetAttribute");
    library.bind(create_dn_vec, "cusparseCreateDnVec");
    library.bind(destroy_dn_vec, "cusparseDestroyDnVec");
    library.bind(spsv_create, "cusparseSpSV_createDescr");
    library.bind(spsv_destroy, "cusparseSpSV_destroyDescr");
    library.bind(spsv_buffer_size, "cusparseSpSV_bufferSize");
    library.bind(spsv_analysis, "cusparseSpSV_analysis");
    library.bind(spsv_solve, "cusparseSpSV_solve");
    library.bind(spmv_buffer_size, "cusparseSpMV_bufferSize");
    library.bind(spmv, "cusparseSpMV");
  }
};

void cusparse_check(cusparseStatus_t status, const char* call) {
  if (status != CUSPARSE_STATUS_SUCCESS) {
    throw std::runtime_error(fmt::format("{}: {}", call, CusparseApi::get().error_string(status)));
  }
}
#define CUSPARSE_CHECK(expr) cusparse_check((expr), #expr)

class CusparseSolver : public IccgInstance {
 public:
  using IccgInstance::IccgInstance;
  ~CusparseSolver() override {
    if (!api_) return;
    for (cusparseDnVecDescr_t v : {r_vec_, y_vec_, z_vec_, p_vec_, q_vec_}) {
      if (v) api_->destroy_dn_vec(v);
    }
    if (spsv_l_) api_->spsv_destroy(spsv_l_);
    if (spsv_lt_) api_->spsv_destroy(spsv_lt_);
    if (mat_a_) api_->destroy_sp_mat(mat_a_);
    if (mat_l_) api_->destroy_sp_mat(mat_l_);
    if (ic0_info_) api_->destroy_ic0_info(ic0_info_);
    if (descr_) api_->destroy_mat_descr(descr_);
    if (handle_) api_->destroy(handle_);
  }

  void setup() override {
    IccgInstance::setup();
    stream_ = std::make_unique<CudaStream>();
    api_ = &CusparseApi::get();
    const auto& api = *api_;
    // The permuted matrix in CSR with its diagonal, 32-bit indices, columns sorted.
    const std::int64_t n = a_.n;
    std::vector<int> row_start(std::size_t(n) + 1, 0), column;
    std::vector<double> value;
    for (std::int64_t i = 0; i < n; ++i) {
      bool diagonal_done = false;
      for (std::int64_t e = a_.start[i]; e <= a_.start[i + 1]; ++e) {
        if (!diagonal_done && (e == a_.start[i + 1] || a_.column[e] > i)) {
          column.push_back(int(i));
          value.push_back(a_.diagonal[i]);
          diagonal_done = true;
        }
        if (e < a_.start[i + 1]) {
          column.push_back(int(a_.column[e]));
          value.push_back(a_.value[e]);
        }
      }
      row_start[i + 1] = int(column.size());
    }
    nnz_ = std::int64_t(column.size());
    if (nnz_ >= (std::int64_t(1) << 31)) {
      throw std::length_error("iccg/cusparse: 2^31 nonzeros or more (32-bit CSR indices)");
    }
    row_start_ = uploaded(row_start);
    column_ = uploaded(column);
    a_value_ = uploaded(value);
    // What csric02 factors: A, or with a shift A with its diagonal times (1 + shift).
    if (factor_scale_ != 1) {
      for (std::int64_t i = 0; i < n; ++i) {
        for (int e = row_start[i]; e < row_start[i + 1]; ++e) {
          if (column[e] == i) value[e] *= factor_scale_;
        }
      }
      factor_value_ = uploaded(value);
    }
    l_value_ = DeviceArray<double>(value.size());
    b_dev_ = uploaded(b_);
    vectors_ = DeviceArray<double>(6 * std::size_t(n));
    double* v = vectors_.get();
    for (double** at : {&xd_, &rd_, &yd_, &zd_, &pd_, &qd_}) {
      *at = v;
      v += n;
    }
    dots_ = DeviceArray<double>(3);
    bb_ = sum_of_squares(b_);

    CUSPARSE_CHECK(api.create(&handle_));
    CUSPARSE_CHECK(api.set_stream(handle_, stream_->get()));
    CUSPARSE_CHECK(api.create_mat_descr(&descr_));  // general, zero-based: csric02's input
    CUSPARSE_CHECK(api.create_ic0_info(&ic0_info_));
    CUSPARSE_CHECK(api.create_csr(&mat_a_, n, n, nnz_, row_start_.get(), column_.get(),
                                  a_value_.get(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                  CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    CUSPARSE_CHECK(api.create_csr(&mat_l_, n, n, nnz_, row_start_.get(), column_.get(),
                                  l_value_.get(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                  CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    cusparseFillMode_t lower = CUSPARSE_FILL_MODE_LOWER;
    cusparseDiagType_t non_unit = CUSPARSE_DIAG_TYPE_NON_UNIT;
    CUSPARSE_CHECK(
        api.sp_mat_set_attribute(mat_l_, CUSPARSE_SPMAT_FILL_MODE, &lower, sizeof(lower)));
    CUSPARSE_CHECK(
        api.sp_mat_set_attribute(mat_l_, CUSPARSE_SPMAT_DIAG_TYPE, &non_unit, sizeof(non_unit)));
    for (auto [vec, data] : {std::pair{&r_vec_, rd_},
                             {&y_vec_, yd_},
                             {&z_vec_, zd_},
                             {&p_vec_, pd_},
                             {&q_vec_, qd_}}) {
      CUSPARSE_CHECK(api.create_dn_vec(vec, n, data, CUDA_R_64F));
    }
    CUSPARSE_CHECK(api.spsv_create(&spsv_l_));
    CUSPARSE_CHECK(api.spsv_create(&spsv_lt_));
    // A buffer for each call that asks for one (each SpSV's must live until its solves).
    int ic0_bytes = 0;
    CUSPARSE_CHECK(api.ic0_buffer_size(handle_, int(n), int(nnz_), descr_, l_value_.get(),
                                       row_start_.get(), column_.get(), ic0_info_, &ic0_bytes));
    std::size_t l_bytes = 0, lt_bytes = 0, spmv_bytes = 0;
    const double one = 1.0, zero = 0.0;
    CUSPARSE_CHECK(api.spsv_buffer_size(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat_l_,
                                        r_vec_, y_vec_, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT,
                                        spsv_l_, &l_bytes));
    CUSPARSE_CHECK(api.spsv_buffer_size(handle_, CUSPARSE_OPERATION_TRANSPOSE, &one, mat_l_, y_vec_,
                                        z_vec_, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, spsv_lt_,
                                        &lt_bytes));
    CUSPARSE_CHECK(api.spmv_buffer_size(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat_a_,
                                        p_vec_, &zero, q_vec_, CUDA_R_64F,
                                        CUSPARSE_SPMV_ALG_DEFAULT, &spmv_bytes));
    ic0_buffer_ = DeviceArray<char>(std::max<std::size_t>(ic0_bytes, 1));
    l_buffer_ = DeviceArray<char>(std::max<std::size_t>(l_bytes, 1));
    lt_buffer_ = DeviceArray<char>(std::max<std::size_t>(lt_bytes, 1));
    spmv_buffer_ = DeviceArray<char>(std::max<std::size_t>(spmv_bytes, 1));
  }

  void run() override {
    const auto& api = *api_;
    const cudaStream_t stream = stream_->get();
    const std::int64_t n = a_.n;
    const double one = 1.0, zero = 0.0;
    // IC(0) of a fresh copy of A (its diagonal shifted where asked), and the triangular solves'
    // analysis of its factor.
    const double* factored = factor_scale_ != 1 ? factor_value_.get() : a_value_.get();
    CUDA_CHECK(cudaMemcpyAsync(l_value_.get(), factored, sizeof(double) * nnz_,
                               cudaMemcpyDeviceToDevice, stream));
    CUSPARSE_CHECK(api.ic0_analysis(handle_, int(n), int(nnz_), descr_, l_value_.get(),
                                    row_start_.get(), column_.get(), ic0_info_,
                                    CUSPARSE_SOLVE_POLICY_USE_LEVEL, ic0_buffer_.get()));
    CUSPARSE_CHECK(api.ic0(handle_, int(n), int(nnz_), descr_, l_value_.get(), row_start_.get(),
                           column_.get(), ic0_info_, CUSPARSE_SOLVE_POLICY_USE_LEVEL,
                           ic0_buffer_.get()));
    int zero_pivot = -1;
    const cusparseStatus_t pivot = api.ic0_zero_pivot(handle_, ic0_info_, &zero_pivot);
    if (pivot == CUSPARSE_STATUS_ZERO_PIVOT) {
      throw std::runtime_error(fmt::format("cusparse: IC(0) broke down at row {}", zero_pivot));
    }
    CUSPARSE_CHECK(pivot);
    CUSPARSE_CHECK(api.spsv_analysis(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat_l_,
                                     r_vec_, y_vec_, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, spsv_l_,
                                     l_buffer_.get()));
    CUSPARSE_CHECK(api.spsv_analysis(handle_, CUSPARSE_OPERATION_TRANSPOSE, &one, mat_l_, y_vec_,
                                     z_vec_, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, spsv_lt_,
                                     lt_buffer_.get()));
    CUDA_CHECK(cudaMemsetAsync(xd_, 0, sizeof(double) * n, stream));
    CUDA_CHECK(cudaMemsetAsync(pd_, 0, sizeof(double) * n, stream));
    CUDA_CHECK(
        cudaMemcpyAsync(rd_, b_dev_.get(), sizeof(double) * n, cudaMemcpyDeviceToDevice, stream));
    // x.y on the device, brought to the host.
    const auto dot = [&](const double* x, const double* y) {
      CUDA_CHECK(cudaMemsetAsync(dots_.get(), 0, sizeof(double), stream));
      cuda::dot(n, x, y, dots_.get(), stream);
      double result = 0;
      CUDA_CHECK(
          cudaMemcpyAsync(&result, dots_.get(), sizeof(double), cudaMemcpyDeviceToHost, stream));
      CUDA_CHECK(cudaStreamSynchronize(stream));
      return result;
    };
    Solution s;
    double rho_old = 1;
    for (s.iterations = 1; s.iterations <= p_.max_iterations; ++s.iterations) {
      CUSPARSE_CHECK(api.spsv_solve(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat_l_, r_vec_,
                                    y_vec_, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, spsv_l_));
      CUSPARSE_CHECK(api.spsv_solve(handle_, CUSPARSE_OPERATION_TRANSPOSE, &one, mat_l_, y_vec_,
                                    z_vec_, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, spsv_lt_));
      const double rho = dot(rd_, zd_);
      cuda::xpay(n, zd_, s.iterations == 1 ? 0.0 : rho / rho_old, pd_, stream);
      CUSPARSE_CHECK(api.spmv(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat_a_, p_vec_,
                              &zero, q_vec_, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT,
                              spmv_buffer_.get()));
      const double pq = dot(pd_, qd_);
      if (pq <= 0 && std::isfinite(pq)) {  // p != 0 here: A is not positive definite
        s.indefinite = true;
        break;
      }
      const double alpha = rho / pq;
      cuda::update(n, alpha, pd_, qd_, xd_, rd_, stream);
      rho_old = rho;
      s.relative_residual = std::sqrt(dot(rd_, rd_) / bb_);
      if (s.relative_residual < p_.eps) {
        s.converged = true;
        break;
      }
    }
    s.iterations = std::min(s.iterations, p_.max_iterations);
    solution_ = std::move(s);
  }

  void finish() override {
    solution_.x.resize(std::size_t(a_.n));
    CUDA_CHECK(cudaMemcpy(solution_.x.data(), xd_, sizeof(double) * a_.n, cudaMemcpyDeviceToHost));
  }

 private:
  const CusparseApi* api_ = nullptr;
  std::unique_ptr<CudaStream> stream_;  // made in setup: constructing touches no device
  std::int64_t nnz_ = 0;
  DeviceArray<int> row_start_, column_;
  DeviceArray<double> a_value_, factor_value_, l_value_, b_dev_, vectors_, dots_;
  DeviceArray<char> ic0_buffer_, l_buffer_, lt_buffer_, spmv_buffer_;
  double *xd_ = nullptr, *rd_ = nullptr, *yd_ = nullptr, *zd_ = nullptr, *pd_ = nullptr,
         *qd_ = nullptr;
  double bb_ = 0;
  cusparseHandle_t handle_ = nullptr;
  cusparseMatDescr_t descr_ = nullptr;
  csric02Info_t ic0_info_ = nullptr;
  cusparseSpMatDescr_t mat_a_ = nullptr, mat_l_ = nullptr;
  cusparseDnVecDescr_t r_vec_ = nullptr, y_vec_ = nullptr, z_vec_ = nullptr, p_vec_ = nullptr,
                       q_vec_ = nullptr;
  cusparseSpSVDescr_t spsv_l_ = nullptr, spsv_lt_ = nullptr;
};

}  // namespace

std::unique_ptr<Instance> make_cusparse(const Params& params) {
  return std::make_unique<CusparseSolver>(params);
}

}  // namespace acclab::iccg
