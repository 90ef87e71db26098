// The seed's one-GPU builds as OpenACC kernels: one kernel per step k, the k loop on the host,
// rows over gangs and columns over vector lanes (the seed's `parallel loop gang worker` /
// `loop vector`). `optimize` keeps the matrix present on the device for all steps;
// `managed` passes a CUDA managed allocation through `deviceptr` and lets the driver migrate
// pages. Row k is read while row k is written: with d[k][k] = 0 the written values equal the
// read ones (apsp.hpp), so every gang sees the same row k. With paths=1 `optimize` keeps the
// successor matrix present beside d and updates it where the step strictly improves d (row i's
// next[i][k] does not change during step k either). Every variant stores an element only where
// the step improves it, which is exactly where the serial loop's max/min takes the new value.
//
// A step reads the whole matrix, so it is bound by memory bandwidth: a lane relaxes U columns of
// its row an iteration (--set unroll, the two steps' own knob, declared here), lane l of a chunk
// of U * lanes columns taking l, l + lanes, ..., each load coalesced across the lanes, all U
// loads issued before the first store (docs/apsp.md); the columns past the last whole chunk go
// one a lane.
#include <string>
#include <type_traits>

#include "workloads/apsp/acc_kernels.hpp"
#include "workloads/apsp/acc_present.hpp"

namespace acclab::apsp {
namespace {

struct UnrollTunings {
  std::string unroll = "auto";  // U, or auto for columns_per_lane's choice
};

const StepTunings<UnrollTunings>& unroll_tunings() {
  static const StepTunings<UnrollTunings> tunings = [] {
    StepTunings<UnrollTunings> t;
    t.text({.key = "unroll",
            .help = "optimize, managed: columns a vector lane relaxes an iteration, its loads "
                    "issued together (auto: 16 from n = 16384 up, fewer on smaller rows)",
            .presets = same_in_all_presets("auto"),
            .choices = {"auto", "1", "2", "4", "8", "16"}},
           &UnrollTunings::unroll);
    return t;
  }();
  return tunings;
}

}  // namespace

TuningSet unroll_tuning_set() { return unroll_tunings().set(); }

}  // namespace acclab::apsp

namespace acclab::apsp::acc {

int lane_columns(const Params& params) {
  const std::string unroll = unroll_tunings().read(params).unroll;
  return columns_per_lane(unroll == "auto" ? 0 : std::stoi(unroll), problem_of(params).n);
}

namespace {

constexpr int lanes = optimize_lanes;  // every kernel's vector_length

// Whether `through` improves `now` under the semiring.
#pragma acc routine seq
template <bool max_plus>
inline bool improves(float now, float through) {
  return max_plus ? now < through : through < now;
}

template <bool max_plus, int U>
void relax_present_t(int n, float* d, int k) {
  const std::int64_t nn = std::int64_t(n) * n;
  constexpr int chunk = U * lanes;
  const int chunked = n / chunk * lanes;  // the lanes' iterations over whole chunks
  const int tail_begin = n / chunk * chunk;  // the columns past them, one a lane
#pragma acc parallel loop gang vector_length(lanes) present(d[0:nn])
  for (int i = 0; i < n; ++i) {
    float* row = d + std::int64_t(i) * n;
    const float* pivot = d + std::int64_t(k) * n;
    const float dik = row[k];
#pragma acc loop vector
    for (int t = 0; t < chunked; ++t) {
      const int j = t / lanes * chunk + t % lanes;
      float now[U], through[U];
#pragma GCC unroll 16
      for (int u = 0; u < U; ++u) {
        now[u] = row[j + u * lanes];
        through[u] = dik + pivot[j + u * lanes];
      }
#pragma GCC unroll 16
      for (int u = 0; u < U; ++u) {
        // Stored only where it improves: late steps change few elements.
        if (improves<max_plus>(now[u], through[u])) row[j + u * lanes] = through[u];
      }
    }
#pragma acc loop vector
    for (int j = tail_begin; j < n; ++j) {
      const float through = dik + pivot[j];
      if (improves<max_plus>(row[j], through)) row[j] = through;
    }
  }
}

// Its own kernel rather than relax_present_t with a successor argument: GCC maps that argument
// at every launch, even as a null deviceptr, and at one launch a step that cost shows
// (bench/results/h200/apsp/NOTES.md, "optimize in one kernel").
template <bool max_plus, int U>
void relax_present_paths_t(int n, float* d, std::int32_t* next, int k) {
  const std::int64_t nn = std::int64_t(n) * n;
  constexpr int chunk = U * lanes;
  const int chunked = n / chunk * lanes, tail_begin = n / chunk * chunk;
#pragma acc parallel loop gang vector_length(lanes) present(d [0:nn], next [0:nn])
  for (int i = 0; i < n; ++i) {
    float* row = d + std::int64_t(i) * n;
    std::int32_t* row_next = next + std::int64_t(i) * n;
    const float* pivot = d + std::int64_t(k) * n;
    const float dik = row[k];
    const std::int32_t nik = row_next[k];
#pragma acc loop vector
    for (int t = 0; t < chunked; ++t) {
      const int j = t / lanes * chunk + t % lanes;
      float now[U], through[U];
#pragma GCC unroll 16
      for (int u = 0; u < U; ++u) {
        now[u] = row[j + u * lanes];
        through[u] = dik + pivot[j + u * lanes];
      }
#pragma GCC unroll 16
      for (int u = 0; u < U; ++u) {
        if (improves<max_plus>(now[u], through[u])) {
          row[j + u * lanes] = through[u];
          row_next[j + u * lanes] = nik;
        }
      }
    }
#pragma acc loop vector
    for (int j = tail_begin; j < n; ++j) {
      const float through = dik + pivot[j];
      if (improves<max_plus>(row[j], through)) {
        row[j] = through;
        row_next[j] = nik;
      }
    }
  }
}

template <bool max_plus, int U>
void relax_deviceptr_t(int n, float* d, int k) {
  constexpr int chunk = U * lanes;
  const int chunked = n / chunk * lanes, tail_begin = n / chunk * chunk;
#pragma acc parallel loop gang vector_length(lanes) deviceptr(d)
  for (int i = 0; i < n; ++i) {
    float* row = d + std::int64_t(i) * n;
    const float* pivot = d + std::int64_t(k) * n;
    const float dik = row[k];
#pragma acc loop vector
    for (int t = 0; t < chunked; ++t) {
      const int j = t / lanes * chunk + t % lanes;
      float now[U], through[U];
#pragma GCC unroll 16
      for (int u = 0; u < U; ++u) {
        now[u] = row[j + u * lanes];
        through[u] = dik + pivot[j + u * lanes];
      }
#pragma GCC unroll 16
      for (int u = 0; u < U; ++u) {
        if (improves<max_plus>(now[u], through[u])) row[j + u * lanes] = through[u];
      }
    }
#pragma acc loop vector
    for (int j = tail_begin; j < n; ++j) {
      const float through = dik + pivot[j];
      if (improves<max_plus>(row[j], through)) row[j] = through;
    }
  }
}

// Calls kernel(max_plus, U) with both as compile-time constants (std::bool_constant,
// std::integral_constant), from the problem's semiring and the columns a lane relaxes.
template <class Kernel>
void dispatch(const Problem& p, int columns, Kernel&& kernel) {
  auto with_semiring = [&](auto u) {
    if (p.semiring == Semiring::max_plus) {
      kernel(std::true_type{}, u);
    } else {
      kernel(std::false_type{}, u);
    }
  };
  switch (columns) {
    case 16: with_semiring(std::integral_constant<int, 16>{}); break;
    case 8: with_semiring(std::integral_constant<int, 8>{}); break;
    case 4: with_semiring(std::integral_constant<int, 4>{}); break;
    case 2: with_semiring(std::integral_constant<int, 2>{}); break;
    default: with_semiring(std::integral_constant<int, 1>{}); break;
  }
}

}  // namespace

void relax_present(const Problem& p, int columns, float* d, int k) {
  dispatch(p, columns, [&](auto max_plus, auto u) { relax_present_t<max_plus, u>(p.n, d, k); });
}

void relax_present_paths(const Problem& p, int columns, float* d, std::int32_t* next, int k) {
  dispatch(p, columns,
           [&](auto max_plus, auto u) { relax_present_paths_t<max_plus, u>(p.n, d, next, k); });
}

void relax_deviceptr(const Problem& p, int columns, float* d, int k) {
  dispatch(p, columns, [&](auto max_plus, auto u) { relax_deviceptr_t<max_plus, u>(p.n, d, k); });
}

namespace {

class Optimize : public PresentInstance {
 public:
  explicit Optimize(const Params& params)
      : PresentInstance(params), columns_(lane_columns(params)) {}
  void run() override {
    if (p_.paths) {
      for (int k = 0; k < p_.n; ++k) relax_present_paths(p_, columns_, d_.data(), next_.data(), k);
    } else {
      for (int k = 0; k < p_.n; ++k) relax_present(p_, columns_, d_.data(), k);
    }
  }

 private:
  int columns_;
};

}  // namespace

}  // namespace acclab::apsp::acc

namespace acclab::apsp {

std::unique_ptr<Instance> make_optimize(const Params& params) {
  return std::make_unique<acc::Optimize>(params);
}

}  // namespace acclab::apsp
