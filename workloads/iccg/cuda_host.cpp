// iccg's cuda step: our kernels (cuda_kernels.cu) on the colour slabs, the layout `optimized`
// uses: an iteration is the two sweeps (a kernel a colour), the fused product and the update; the
// scalars stay on the device, and batches of iterations are replayed as one CUDA graph, so that a
// launch costs the GPU's few microseconds and the host waits once a batch, for the residuals;
// with cuda_overlap=1 each kernel is a programmatic dependent launch that loads its couplings
// while the previous kernel finishes. The system is uploaded in setup and x brought back in
// finish: the time is the solve alone, factorisation included. cusparse.cpp is the library's
// counterpart.
#include "workloads/iccg/cuda_host.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <utility>

#include "kit/cuda_check.hpp"
#include "kit/cuda_memory.hpp"
#include "workloads/iccg/color_ell.hpp"
#include "workloads/iccg/cuda_kernels.hpp"
#include "workloads/iccg/iccg.hpp"

namespace acclab::iccg {
namespace {

// Iterations replayed per graph launch (even: p's two arrays alternate by iteration parity). The
// host checks the residuals after each batch; iterations queued past convergence do nothing.
constexpr int batch = 8;

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
}  // namespace

TuningSet cuda_tuning_set() { return cuda_tunings().set(); }

std::unique_ptr<Instance> make_cuda(const Params& params) {
  return std::make_unique<CudaSolver>(params);
}

}  // namespace acclab::iccg
