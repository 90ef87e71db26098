// data_present (04) in OpenMP target form: every solve maps the matrix and b to the device and x
// back (one `target data` region around the solve, the work vectors allocated in it), as 04
// enters and deletes them inside each solve, and every loop of the solve is a region of its own
// finding them present (omp_target_csr.hpp). The transfers are part of the time, and the xfer
// column shows them alone (transfers_only).
#include "workloads/iccg/omp_target_csr.hpp"

namespace acclab::iccg {
namespace {

class OmpTargetMap : public IccgInstance {
 public:
  using IccgInstance::IccgInstance;
  void setup() override {
    IccgInstance::setup();
    v_.assign(a_.n);
  }
  void run() override {
    const OmpCsr d = v_.arrays(a_, b_);
    map_around(d, [&] {
      solution_ = omp_solve_csr(d, ordering_, factor_scale_, p_.eps, p_.max_iterations);
    });
    solution_.x = v_.x;
  }
  // The same maps around no region: the copies in and out of one solve, alone.
  bool transfers_only() override {
    map_around(v_.arrays(a_, b_), [] {});
    return true;
  }

 private:
  template <class F>
  static void map_around(const OmpCsr& d, F&& body) {
    const std::int64_t n = d.n, nnz = d.nnz;
    const double* diagonal = d.diagonal;
    const std::int64_t* start = d.start;
    const std::int64_t* column = d.column;
    const double* value = d.value;
    const double* b = d.b;
    double *x = d.x, *w = d.w, *r = d.r, *z = d.z, *p = d.p, *q = d.q;
// clang-format off
#pragma omp target data map(to: diagonal[0:n], start[0:n+1], column[0:nnz], value[0:nnz], b[0:n]) \
    map(alloc: w[0:n], r[0:n], z[0:n], p[0:n], q[0:n]) map(from: x[0:n])
    // clang-format on
    { body(); }
  }

  OmpCsrVectors v_;
};

}  // namespace

std::unique_ptr<Instance> make_omp_target_map(const Params& params) {
  return std::make_unique<OmpTargetMap>(params);
}

}  // namespace acclab::iccg
