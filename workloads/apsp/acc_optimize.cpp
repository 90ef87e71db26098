// The seed's one-GPU builds as OpenACC kernels: one kernel per step k, the k loop on the host,
// rows over gangs and columns over vector lanes (the seed's `parallel loop gang worker` /
// `loop vector`). `optimize` keeps the matrix present on the device for all steps;
// `managed` passes a CUDA managed allocation through `deviceptr` and lets the driver migrate
// pages. Row k is read while row k is written: with d[k][k] = 0 the written values equal the
// read ones (apsp.hpp), so every gang sees the same row k. With paths=1 `optimize` keeps the
// successor matrix present beside d and updates it where the step strictly improves d (row i's
// next[i][k] does not change during step k either). Every variant stores an element only where
// the step improves it, which is exactly where the serial loop's max/min takes the new value.
#include "workloads/apsp/acc_kernels.hpp"

namespace acclab::apsp::acc {
namespace {

template <bool max_plus>
void relax_present_t(int n, float* d, int k) {
  const std::int64_t nn = std::int64_t(n) * n;
#pragma acc parallel loop gang vector_length(256) present(d[0:nn])
  for (int i = 0; i < n; ++i) {
    const float dik = d[i * n + k];
#pragma acc loop vector
    for (int j = 0; j < n; ++j) {
      const float through = dik + d[k * n + j];
      // Stored only where it improves: late steps change few elements, and the write is half
      // of each step's traffic.
      if (max_plus ? d[i * n + j] < through : through < d[i * n + j]) d[i * n + j] = through;
    }
  }
}

template <bool max_plus>
void relax_present_paths_t(int n, float* d, std::int32_t* next, int k) {
  const std::int64_t nn = std::int64_t(n) * n;
#pragma acc parallel loop gang vector_length(256) present(d [0:nn], next [0:nn])
  for (int i = 0; i < n; ++i) {
    const float dik = d[i * n + k];
    const std::int32_t nik = next[i * n + k];
#pragma acc loop vector
    for (int j = 0; j < n; ++j) {
      const float through = dik + d[k * n + j];
      const float now = d[i * n + j];
      if (max_plus ? now < through : through < now) {
        d[i * n + j] = through;
        next[i * n + j] = nik;
      }
    }
  }
}

template <bool max_plus>
void relax_deviceptr_t(int n, float* d, int k) {
#pragma acc parallel loop gang vector_length(256) deviceptr(d)
  for (int i = 0; i < n; ++i) {
    const float dik = d[i * n + k];
#pragma acc loop vector
    for (int j = 0; j < n; ++j) {
      const float through = dik + d[k * n + j];
      // Stored only where it improves: late steps change few elements, and the write is half
      // of each step's traffic.
      if (max_plus ? d[i * n + j] < through : through < d[i * n + j]) d[i * n + j] = through;
    }
  }
}

}  // namespace

void relax_present(const Problem& p, float* d, int k) {
  if (p.semiring == Semiring::max_plus) {
    relax_present_t<true>(p.n, d, k);
  } else {
    relax_present_t<false>(p.n, d, k);
  }
}

void relax_present_paths(const Problem& p, float* d, std::int32_t* next, int k) {
  if (p.semiring == Semiring::max_plus) {
    relax_present_paths_t<true>(p.n, d, next, k);
  } else {
    relax_present_paths_t<false>(p.n, d, next, k);
  }
}

void relax_deviceptr(const Problem& p, float* d, int k) {
  if (p.semiring == Semiring::max_plus) {
    relax_deviceptr_t<true>(p.n, d, k);
  } else {
    relax_deviceptr_t<false>(p.n, d, k);
  }
}

namespace {

class Optimize : public ApspInstance {
 public:
  using ApspInstance::ApspInstance;
  ~Optimize() override { release(); }
  void setup() override {
    ApspInstance::setup();
    float* d = d_.data();
    const std::int64_t nn = p_.elements();
#pragma acc enter data create(d[0:nn])
    resident_ = true;
    if (p_.paths) {
      std::int32_t* next = next_.data();
#pragma acc enter data create(next [0:nn])
      next_resident_ = true;
    }
  }
  void reset() override {
    ApspInstance::reset();
    float* d = d_.data();
    const std::int64_t nn = p_.elements();
#pragma acc update device(d[0:nn])
    if (p_.paths) {
      std::int32_t* next = next_.data();
#pragma acc update device(next [0:nn])
    }
  }
  void run() override {
    if (p_.paths) {
      for (int k = 0; k < p_.n; ++k) relax_present_paths(p_, d_.data(), next_.data(), k);
    } else {
      for (int k = 0; k < p_.n; ++k) relax_present(p_, d_.data(), k);
    }
  }
  void finish() override {
    float* d = d_.data();
    const std::int64_t nn = p_.elements();
#pragma acc update self(d[0:nn])
    if (p_.paths) {
      std::int32_t* next = next_.data();
#pragma acc update self(next [0:nn])
    }
    release();
  }

 private:
  void release() {
    const std::int64_t nn = p_.elements();
    if (next_resident_) {
      std::int32_t* next = next_.data();
#pragma acc exit data delete (next [0:nn])
      next_resident_ = false;
    }
    if (!resident_) return;
    float* d = d_.data();
#pragma acc exit data delete(d[0:nn])
    resident_ = false;
  }
  bool resident_ = false, next_resident_ = false;
};

}  // namespace

}  // namespace acclab::apsp::acc

namespace acclab::apsp {

std::unique_ptr<Instance> make_optimize(const Params& params) {
  return std::make_unique<acc::Optimize>(params);
}

}  // namespace acclab::apsp
