// OpenACC steps beyond the seed, both with the grids resident on the device for the whole
// measurement (entered in setup, the result brought back in finish), so that a run is the
// sweeps alone, as the seed's 16 us-per-sweep goal counts them.
//   acc_gang_vector  explicit `parallel loop gang` over rows and `loop vector` over columns,
//                    one synchronous launch per sweep; the check a second reduction kernel.
//   acc_tuned        the interior as one flat loop of `gang vector` lanes with 32-bit indices
//                    (one level of parallelism: no hand-over between gang-redundant and
//                    vector-partitioned code), the max-change reduction fused into the check
//                    sweep, and the sweeps queued on an async queue unless async=0.
#include <openacc.h>


#include "kit/acc_resident.hpp"
#include "workloads/jacobi2d/jacobi2d.hpp"

namespace acclab::jacobi2d {
namespace {

class AccResident : public JacobiInstance {
 public:
  using JacobiInstance::JacobiInstance;

  void setup() override {
    JacobiInstance::setup();
    device_.enter(initial_.data(), u0_.data(), u1_.data(), p_.points());
  }
  void reset() override { device_.reset(); }
  void finish() override {
    device_.fetch(const_cast<float*>(result_));
    device_.release();
  }

 private:
  AccResidentPair device_;
};

class AccGangVector : public AccResident {
 public:
  using AccResident::AccResident;
  void run() override {
    const std::int64_t rows = p_.rows, cols = p_.cols, n = p_.points();
    const float c1f = p_.c1f, wy2 = p_.wy2, hx2 = p_.hx2, c2 = p_.c2;
    iterate(u0_.data(), u1_.data(), [&](float* in, float* out, bool check) {
#pragma acc parallel loop gang vector_length(128) present(in[0:n], out[0:n])
      for (std::int64_t ix = 1; ix < rows - 1; ++ix) {
#pragma acc loop vector
        for (std::int64_t jy = 1; jy < cols - 1; ++jy) {
          const std::int64_t k = ix * cols + jy;
          out[k] = (c1f + wy2 * (in[k - cols] + in[k + cols]) + hx2 * (in[k - 1] + in[k + 1])) * c2;
        }
      }
      float change = 0.0f;
      if (check) {
#pragma acc parallel loop gang vector_length(128) reduction(max:change) present(in[0:n], out[0:n])
        for (std::int64_t ix = 1; ix < rows - 1; ++ix) {
#pragma acc loop vector reduction(max:change)
          for (std::int64_t jy = 1; jy < cols - 1; ++jy) {
            const std::int64_t k = ix * cols + jy;
            // Not std::fabs: a call at -O0, and offloaded code has no callee.
            const float d = __builtin_fabsf(out[k] - in[k]);
            change = d > change ? d : change;  // fmaxf is not in nvptx's default libraries
          }
        }
      }
      return change;
    });
  }
};

struct QueueTunings {
  bool async = true;  // queue the sweeps asynchronously
};

const StepTunings<QueueTunings>& queue_tunings() {
  static const StepTunings<QueueTunings> tunings = StepTunings<QueueTunings>().flag(
      {.key = "async",
       .help = "acc_tuned only: 1 queues the sweeps asynchronously, 0 waits for each",
       .presets = same_in_all_presets("1")},
      &QueueTunings::async);
  return tunings;
}

class AccTuned : public AccResident {
 public:
  explicit AccTuned(const Params& params)
      : AccResident(params), tunings_(queue_tunings().read(params)) {}
  void run() override {
    const int cols = static_cast<int>(p_.cols);
    const int n = static_cast<int>(p_.points());
    // Interior rows only; the boundary columns are skipped inside.
    const int first = cols, last = n - cols;
    const float c1f = p_.c1f, wy2 = p_.wy2, hx2 = p_.hx2, c2 = p_.c2;
    const int queue = tunings_.async ? 1 : acc_async_sync;
    iterate(u0_.data(), u1_.data(), [&](float* in, float* out, bool check) {
      float change = 0.0f;
      if (!check) {
#pragma acc parallel loop gang vector vector_length(256) present(in[0:n], out[0:n]) async(queue)
        for (int k = first; k < last; ++k) {
          const int jy = k % cols;
          if (jy != 0 && jy != cols - 1) {
            out[k] = (c1f + wy2 * (in[k - cols] + in[k + cols]) + hx2 * (in[k - 1] + in[k + 1])) * c2;
          }
        }
      } else {
#pragma acc parallel loop gang vector vector_length(256) present(in[0:n], out[0:n]) \
    reduction(max:change) async(queue)
        for (int k = first; k < last; ++k) {
          const int jy = k % cols;
          if (jy != 0 && jy != cols - 1) {
            const float v =
                (c1f + wy2 * (in[k - cols] + in[k + cols]) + hx2 * (in[k - 1] + in[k + 1])) * c2;
            const float d = __builtin_fabsf(v - in[k]);
            change = d > change ? d : change;  // fmaxf is not in nvptx's default libraries
            out[k] = v;
          }
        }
#pragma acc wait
      }
      return change;
    });
#pragma acc wait
  }

 private:
  QueueTunings tunings_;
};

}  // namespace

TuningSet acc_queue_tuning_set() { return queue_tunings().set(); }

std::unique_ptr<Instance> make_acc_gang_vector(const Params& params) {
  return std::make_unique<AccGangVector>(params);
}
std::unique_ptr<Instance> make_acc_tuned(const Params& params) {
  return std::make_unique<AccTuned>(params);
}

}  // namespace acclab::jacobi2d
