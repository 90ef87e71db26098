// The vector workload and its three ladders (ladder.json), with each family's model.
#include "workloads/vector/vector.hpp"

namespace acclab::vector {
namespace {

double n_of(const Params& p) { return static_cast<double>(size_of(p).n()); }
double nt_of(const Params& p) { return static_cast<double>(size_of(p).nt); }

// Course computation: each of nt steps reads a, b, c and writes c (16 B and 2 flops per
// element); initialising b and c writes 8 B and the mean reads 4 B per element.
PerfModel course_model() {
  return {[](const Params& p, const nlohmann::json&) { return 2.0 * nt_of(p) * n_of(p); },
          [](const Params& p, const nlohmann::json&) { return (16.0 * nt_of(p) + 12.0) * n_of(p); },
          Resource::memory_bandwidth, Precision::fp32};
}

// Triad a = b + s*c: each pass reads b and c and writes a (12 B, 2 flops per element).
PerfModel triad_model() {
  return {[](const Params& p, const nlohmann::json&) { return 2.0 * nt_of(p) * n_of(p); },
          [](const Params& p, const nlohmann::json&) { return 12.0 * nt_of(p) * n_of(p); },
          Resource::memory_bandwidth, Precision::fp32};
}

// Dot sum(b*c): each pass reads b and c (8 B, 2 flops per element).
PerfModel dot_model() {
  return {[](const Params& p, const nlohmann::json&) { return 2.0 * nt_of(p) * n_of(p); },
          [](const Params& p, const nlohmann::json&) { return 8.0 * nt_of(p) * n_of(p); },
          Resource::memory_bandwidth, Precision::fp32};
}

// Each family's model: the course computation, the triad or the dot.
PerfModel model_of(const LadderRow& row) {
  if (row.family == "triad") return triad_model();
  if (row.family == "dot") return dot_model();
  return course_model();
}

}  // namespace

void register_variants(Registry& registry) {
  registry.add_workload(make_workload());
  registry.add_ladder("vector", ladder(), model_of);
}

}  // namespace acclab::vector
