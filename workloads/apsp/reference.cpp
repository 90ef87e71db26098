// The serial Floyd-Warshall loop (`serial`, the reference), and the seed's multicore build
// (`multicore`: the rows of each step over OpenMP threads, one thread for small graphs). Both keep
// the successor matrix with paths=1.
#include <omp.h>

#include <algorithm>
#include <stdexcept>
#include <tuple>

#include "core/reference_memo.hpp"
#include "workloads/apsp/apsp.hpp"

namespace acclab::apsp {

void relax_rows(const Problem& p, float* d, int k, int row_begin, int row_end) {
  relax_rows(p, d, nullptr, k, row_begin, row_end);
}

void relax_rows(const Problem& p, float* d, std::int32_t* next, int k, int row_begin, int row_end) {
  const int n = p.n;
  const float* dk = d + std::size_t(k) * n;
  for (int i = row_begin; i < row_end; ++i) {
    float* di = d + std::size_t(i) * n;
    const float dik = di[k];
    if (next) {
      // std::max(a, b) takes b exactly when a < b, std::min(a, b) when b < a: the same
      // distances as below, and the successor follows the distance.
      std::int32_t* ni = next + std::size_t(i) * n;
      const std::int32_t nik = ni[k];
      // Selects rather than branches, so that the loop vectorises.
      const bool max_plus = p.semiring == Semiring::max_plus;
      for (int j = 0; j < n; ++j) {
        const float through = dik + dk[j], now = di[j];
        const bool better = max_plus ? now < through : through < now;
        di[j] = better ? through : now;
        ni[j] = better ? nik : ni[j];
      }
    } else if (p.semiring == Semiring::max_plus) {
      for (int j = 0; j < n; ++j) di[j] = std::max(di[j], dik + dk[j]);
    } else {
      for (int j = 0; j < n; ++j) di[j] = std::min(di[j], dik + dk[j]);
    }
  }
}

int multicore_team(const Problem& p) {
  return p.n < multicore_team_min_n ? 1 : omp_get_max_threads();
}

namespace {

// The rows of each step split over the threads of one team, a barrier between steps (each
// step reads the pivot row the step before wrote): one parallel region for the whole run
// instead of one per step, which halves the synchronisation.
void floyd_warshall_threads(const Problem& p, float* d, std::int32_t* next) {
  const int team = multicore_team(p);
  if (team == 1) {
    for (int k = 0; k < p.n; ++k) relax_rows(p, d, next, k, 0, p.n);
    return;
  }
#pragma omp parallel num_threads(team)
  {
    const int threads = omp_get_num_threads(), t = omp_get_thread_num();
    const int begin = int(std::int64_t(p.n) * t / threads);
    const int end = int(std::int64_t(p.n) * (t + 1) / threads);
    for (int k = 0; k < p.n; ++k) {
      relax_rows(p, d, next, k, begin, end);
#pragma omp barrier
    }
  }
}

class Serial : public ApspInstance {
 public:
  using ApspInstance::ApspInstance;
  void run() override {
    std::int32_t* next = p_.paths ? next_.data() : nullptr;
    for (int k = 0; k < p_.n; ++k) relax_rows(p_, d_.data(), next, k, 0, p_.n);
  }
};

class Multicore : public ApspInstance {
 public:
  using ApspInstance::ApspInstance;
  void run() override { floyd_warshall_threads(p_, d_.data(), p_.paths ? next_.data() : nullptr); }
};

struct Reference {
  std::vector<float> d;
  std::vector<std::int32_t> next;  // empty unless asked for with paths
  template <typename Visit>
  void fields(Visit&& visit) {
    visit(d);
    visit(next);
  }
};

// The serial result for p, its successors too when p.paths (the distances are the same).
Reference compute_reference(const Problem& p) {
  Reference r;
  r.d = initial_matrix(p, generate_graph(p));
  if (p.paths) {
    r.next.resize(r.d.size());
    initial_successors(p, r.d.data(), r.next.data());
  }
  floyd_warshall_threads(p, r.d.data(), p.paths ? r.next.data() : nullptr);
  return r;
}

// The serial result for p, kept for the last problem asked. Keyed by paths too: a result kept
// without successors cannot serve a run with them.
const Reference& reference(const Problem& p) {
  using Key = std::tuple<int, Semiring, Generator, int, std::uint64_t, bool>;
  static ReferenceMemo<Key, Reference> memo("apsp");
  const Key key{p.n, p.semiring, p.generator, p.edges_per_vertex, p.random_seed, p.paths};
  return memo.get(key, [&] { return compute_reference(p); });
}

}  // namespace

const std::vector<float>& reference_result(const Problem& p) { return reference(p).d; }

const std::vector<std::int32_t>& reference_successors(const Problem& p) {
  if (!p.paths) throw std::logic_error("apsp::reference_successors without paths");
  return reference(p).next;
}

std::unique_ptr<Instance> make_serial(const Params& params) {
  return std::make_unique<Serial>(params);
}

std::unique_ptr<Instance> make_multicore(const Params& params) {
  return std::make_unique<Multicore>(params);
}

}  // namespace acclab::apsp
