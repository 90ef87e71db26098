// iccg's CUDA variants.
//   cuda:     our kernels (cuda_kernels.cu) on the colour slabs, the layout `optimized` uses: an
//             iteration is the two sweeps (a kernel a colour), the fused product and the update;
//             the scalars stay on the device, and batches of iterations are replayed as one CUDA
//             graph, so that a launch costs the GPU's few microseconds and the host waits once a
//             batch, for the residuals; with cuda_overlap=1 each kernel is a programmatic
//             dependent launch that loads its couplings while the previous kernel finishes.
//   cusparse: what a GPU user would pick instead: cuSPARSE's IC(0) (csric02) and triangular
//             solves (SpSV with L and L^T), its SpMV, on the same permuted matrix in CSR; the
//             scalars come to the host three times an iteration, as a straightforward user's
//             loop does. On the 7-point mesh the full IC(0) equals the course's diagonal-only
//             one (no two neighbours of a cell are neighbours), so the iterations are the same.
// Both upload the system in setup and bring x back in finish: the time is the solve alone,
// factorisation (and cuSPARSE's analysis) included.
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
#include "workloads/iccg/color_ell.hpp"
#include "workloads/iccg/cuda_kernels.hpp"
#include "workloads/iccg/iccg.hpp"

namespace acclab::iccg {
namespace {

// Iterations replayed per graph launch (even: p's two arrays alternate by iteration parity). The
// host checks the residuals after each batch; iterations queued past convergence do nothing.
constexpr int batch = 8;

template <typename T>
DeviceArray<T> uploaded(const std::vector<T>& host) {
  DeviceArray<T> device(std::max<std::size_t>(host.size(), 1));
  if (!host.empty()) {
    copy_to_device(device.get(), host.data(), sizeof(T) * host.size());
  }
  return device;
}

double sum_of_squares(const std::vector<double>& b) {
  double sum = 0;
  for (double v : b) sum += v * v;
  return sum;
}

struct CudaTunings {
  bool overlap = true;  // each kernel a programmatic dependent launch
  std::int64_t sweep_block = 256;
  std::int64_t vector_block = 256;
};

const StepTunings<CudaTunings>& cuda_tunings() {
  static const StepTunings<CudaTunings> tunings = [] {
    StepTunings<CudaTunings> t;
    t.flag({.key = "cuda_overlap",
            .help = "cuda only: 1 launches each kernel as a programmatic dependent launch of the "
                    "one before (it loads its couplings while that one finishes), 0 one after "
                    "the other",
            .presets = same_in_all_presets("1")},
           &CudaTunings::overlap);
    t.integer({.key = "cuda_sweep_block",
               .help = "cuda only: threads a block of the forward and backward sweeps (a thread "
                       "a row of a colour): 64, 128, 256, 512 or 1024",
               .presets = same_in_all_presets("256"),
               .minimum = 64,
               .maximum = 1024},
              &CudaTunings::sweep_block);
    t.integer({.key = "cuda_vector_block",
               .help = "cuda only: threads a block of the product and update kernels (a thread a "
                       "row): 64, 128, 256, 512 or 1024",
               .presets = same_in_all_presets("256"),
               .minimum = 64,
               .maximum = 1024},
              &CudaTunings::vector_block);
    // The block sizes cuda_kernels.cu compiles its iteration's kernels for.
    t.check([](const CudaTunings& c) {
      for (const auto& [key, value] : {std::pair{"cuda_sweep_block", c.sweep_block},
                                       std::pair{"cuda_vector_block", c.vector_block}}) {
        if (value < 64 || value > 1024 || (value & (value - 1)) != 0) {
          throw UsageError(
              fmt::format("--set {}={}: expected 64, 128, 256, 512 or 1024", key, value));
        }
      }
    });
    return t;
  }();
  return tunings;
}

class CudaSolver : public IccgInstance {
 public:
  explicit CudaSolver(const Params& params)
      : IccgInstance(params), tunings_(cuda_tunings().read(params)) {}
  ~CudaSolver() override {
    if (exec_) cudaGraphExecDestroy(exec_);
    if (graph_) cudaGraphDestroy(graph_);
  }

  void setup() override {
    IccgInstance::setup();
    stream_ = std::make_unique<CudaStream>();
    overlap_ = tunings_.overlap && cuda::overlap_supported();
    const ColorEll m = color_ell(a_, ordering_, min_saved_slots_);
    const std::size_t n = std::size_t(m.n);
    color_start_ = uploaded(m.color_start);
    lower_start_ = uploaded(m.lower_start);
    upper_start_ = uploaded(m.upper_start);
    lower_width_ = uploaded(m.lower_width);
    upper_width_ = uploaded(m.upper_width);
    lower_column_ = uploaded(m.lower_column);
    upper_column_ = uploaded(m.upper_column);
    lower_value_ = uploaded(m.lower_value);
    upper_value_ = uploaded(m.upper_value);
    diagonal_ = uploaded(m.diagonal);
    b_dev_ = uploaded(b_);
    vectors_ = DeviceArray<double>(7 * n);
    scalars_ = DeviceArray<double>(3 * scalar_count());
    iteration_ = DeviceArray<int>(1);

    s_.n = m.n;
    s_.colors = m.colors;
    s_.factor_scale = factor_scale_;
    s_.color_start = m.color_start;
    s_.lower_start = m.lower_start;
    s_.upper_start = m.upper_start;
    s_.lower_width = m.lower_width;
    s_.upper_width = m.upper_width;
    s_.color_start_d = color_start_.get();
    s_.lower_start_d = lower_start_.get();
    s_.upper_start_d = upper_start_.get();
    s_.lower_width_d = lower_width_.get();
    s_.upper_width_d = upper_width_.get();
    s_.lower_column = lower_column_.get();
    s_.upper_column = upper_column_.get();
    s_.lower_value = lower_value_.get();
    s_.upper_value = upper_value_.get();
    s_.diagonal = diagonal_.get();
    s_.b = b_dev_.get();
    double* v = vectors_.get();
    for (double** at : {&s_.x, &s_.w, &s_.r, &s_.z, &s_.p[0], &s_.p[1], &s_.q}) {
      *at = v;
      v += n;
    }
    bb_ = sum_of_squares(b_);
    k_.rho = scalars_.get();
    k_.pq = k_.rho + scalar_count();
    k_.rr = k_.pq + scalar_count();
    k_.iteration = iteration_.get();
    k_.tol2 = p_.eps * p_.eps * bb_;
    k_.max_iterations = p_.max_iterations;

    // One batch of iterations, captured once and replayed by every solve.
    CUDA_CHECK(cudaStreamBeginCapture(stream_->get(), cudaStreamCaptureModeThreadLocal));
    cuda::iterate(s_, k_, batch, overlap_, {int(tunings_.sweep_block), int(tunings_.vector_block)},
                  stream_->get());
    CUDA_CHECK(cudaStreamEndCapture(stream_->get(), &graph_));
    CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
  }

  void run() override {
    const cudaStream_t stream = stream_->get();
    CUDA_CHECK(cudaMemsetAsync(scalars_.get(), 0, sizeof(double) * 3 * scalar_count(), stream));
    CUDA_CHECK(cudaMemcpyAsync(k_.rr, &bb_, sizeof(double), cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemsetAsync(k_.iteration, 0, sizeof(int), stream));
    cuda::factor(s_, stream);
    cuda::start(s_, stream);
    Solution s;
    std::vector<double> rr(batch);
    for (int done = 0; !s.converged && !s.indefinite && done < p_.max_iterations; done += batch) {
      CUDA_CHECK(cudaGraphLaunch(exec_, stream));
      CUDA_CHECK(cudaMemcpyAsync(rr.data(), k_.rr + done + 1, sizeof(double) * batch,
                                 cudaMemcpyDeviceToHost, stream));
      CUDA_CHECK(cudaStreamSynchronize(stream));
      for (int offset = 1; offset <= batch && done + offset <= p_.max_iterations; ++offset) {
        s.iterations = done + offset;
        if (rr[offset - 1] == cuda::indefinite_rr) {
          s.indefinite = true;
          break;
        }
        s.relative_residual = std::sqrt(rr[offset - 1] / bb_);
        if (rr[offset - 1] < k_.tol2) {
          s.converged = true;
          break;
        }
      }
    }
    solution_ = std::move(s);
  }

  void finish() override {
    solution_.x.resize(std::size_t(a_.n));
    CUDA_CHECK(cudaMemcpy(solution_.x.data(), s_.x, sizeof(double) * a_.n, cudaMemcpyDeviceToHost));
  }

 private:
  // Scalars per kind: index 0 (before the first iteration) to the last a batch can reach.
  std::size_t scalar_count() const { return std::size_t(p_.max_iterations) + batch + 1; }

  CudaTunings tunings_;
  bool overlap_ = false;                // cuda_overlap, where the device has it
  std::unique_ptr<CudaStream> stream_;  // made in setup: constructing touches no device
  DeviceArray<std::int64_t> color_start_, lower_start_, upper_start_;
  DeviceArray<int> lower_width_, upper_width_;
  DeviceArray<std::int32_t> lower_column_, upper_column_;
  DeviceArray<double> lower_value_, upper_value_, diagonal_, b_dev_, vectors_, scalars_;
  DeviceArray<int> iteration_;
  cuda::Slabs s_;
  cuda::Scalars k_{};
  double bb_ = 0;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

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

TuningSet cuda_tuning_set() { return cuda_tunings().set(); }

std::unique_ptr<Instance> make_cuda(const Params& params) {
  return std::make_unique<CudaSolver>(params);
}

std::unique_ptr<Instance> make_cusparse(const Params& params) {
  return std::make_unique<CusparseSolver>(params);
}

}  // namespace acclab::iccg
