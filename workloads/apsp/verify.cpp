// The checks of an apsp result: bitwise against the serial loop, rows against Dijkstra, and
// with paths the successors; the digest and the cycle test acclab apsp reports.
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <queue>
#include <utility>

#include "core/compare.hpp"
#include "workloads/apsp/apsp.hpp"

namespace acclab::apsp {

std::uint64_t digest_sum(std::int64_t n, const float* d) {
  std::uint64_t sum = 0;
  for (std::int64_t e = 0; e < n * n; ++e) sum += digest_term(e, d[e]);
  return sum;
}

std::string digest_text(std::uint64_t sum) { return fmt::format("{:016x}", sum); }

std::string matrix_digest(const Problem& p, const float* d) {
  return digest_text(digest_sum(p.n, d));
}

std::optional<int> cycle_vertex(const Problem& p, const float* d) {
  for (int i = 0; i < p.n; ++i) {
    const float dii = d[std::size_t(i) * p.n + i];
    if (p.semiring == Semiring::max_plus ? dii > 0.0f : dii < 0.0f) return i;
  }
  return std::nullopt;
}

namespace {

// Dijkstra from `source` on costs >= 0 (max-plus weights negated), in double: the best path
// lengths, +inf where unreachable.
std::vector<double> dijkstra(const Problem& p,
                             const std::vector<std::vector<std::pair<int, double>>>& out,
                             int source) {
  std::vector<double> dist(static_cast<std::size_t>(p.n), std::numeric_limits<double>::infinity());
  using Item = std::pair<double, int>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> queue;
  dist[source] = 0;
  queue.push({0.0, source});
  while (!queue.empty()) {
    const auto [du, u] = queue.top();
    queue.pop();
    if (du > dist[u]) continue;
    for (const auto& [v, cost] : out[u]) {
      if (du + cost < dist[v]) {
        dist[v] = du + cost;
        queue.push({dist[v], v});
      }
    }
  }
  return dist;
}

}  // namespace

Verification ApspInstance::verify() {
  Verification v;
  // Until a check below runs: nothing compared, nothing verified.
  v.outputs["tolerance"] = 0;
  v.outputs["difference"] = std::numeric_limits<double>::infinity();
  if (const auto cycle = cycle_vertex(p_, d_.data())) {
    v.detail = fmt::format("vertex {} lies on a {} cycle (d[{}][{}] = {})", *cycle,
                           p_.semiring == Semiring::max_plus ? "positive" : "negative", *cycle,
                           *cycle, d_[std::size_t(*cycle) * p_.n + *cycle]);
    return v;
  }
  std::string serial =
      fmt::format("not compared with the serial loop (n > {})", serial_check_limit);
  std::int64_t differ = 0;
  if (graph_) {
    // reference_result() and the check below draw the generated graph, not this one.
    v.detail = "not verified: a user's graph (acclab apsp checks cycles and overflow instead)";
    return v;
  }
  if (p_.n <= serial_check_limit) {
    const auto& reference = reference_result(p_);
    std::int64_t first = -1;
    for (std::int64_t e = 0; e < p_.elements(); ++e) {
      if (std::memcmp(&d_[e], &reference[e], sizeof(float)) != 0) {
        if (first < 0) first = e;
        ++differ;
      }
    }
    serial = differ == 0 ? "bitwise equal to the serial loop"
                         : fmt::format(
                               "{} elements differ from the serial loop, first ({}, {}): {} "
                               "against {}",
                               differ, first / p_.n, first % p_.n, d_[first], reference[first]);
  }
  // Sampled sources against Dijkstra on the same graph (costs -w for max-plus, w for min-plus,
  // all >= 0 for the generated graphs). Float sums of a path's L weights of one sign are within
  // L u sum|w| = L u |length| of the exact length (u = 2^-24), and L < n.
  std::vector<std::vector<std::pair<int, double>>> out(static_cast<std::size_t>(p_.n));
  for (const Edge& e : generate_graph(p_)) {
    out[e.from].push_back(
        {e.to, p_.semiring == Semiring::max_plus ? -double(e.weight) : double(e.weight)});
  }
  // Every row up to dijkstra_all_rows_limit (so that the serial loop, the reference of the
  // bitwise check, is itself checked whole), 8 sampled rows above.
  const int sources = p_.n <= dijkstra_all_rows_limit ? p_.n : std::min(p_.n, 8);
  std::vector<int> rows;
  for (int s = 0; s < sources; ++s) rows.push_back(int(std::int64_t(s) * p_.n / sources));
  Difference worst;  // the largest difference over its bound, indexed source n + j
  std::int64_t mismatched = 0;
  for (const int source : rows) {
    const auto dist = dijkstra(p_, out, source);
    for (int j = 0; j < p_.n; ++j) {
      const double expected = p_.semiring == Semiring::max_plus ? -dist[j] : dist[j];
      const double got = d_[std::size_t(source) * p_.n + j];
      if (std::isinf(expected) || std::isinf(got)) {
        mismatched += expected != got;
        continue;
      }
      const double diff = std::abs(got - expected);
      const double bound = double(p_.n) * 0x1p-24 * std::abs(expected) + 1e-30;
      mismatched += !(diff <= bound);
      fold_difference(worst, diff / bound, std::int64_t(source) * p_.n + j);
    }
  }
  v.ok = differ == 0 && mismatched == 0;
  // The primary check: bitwise against the serial loop (tolerance 0, the count of differing
  // elements); above serial_check_limit the Dijkstra rows (their worst difference over its
  // bound, tolerance 1).
  if (p_.n <= serial_check_limit) {
    v.outputs["tolerance"] = 0;
    v.outputs["difference"] = differ;
  } else {
    v.outputs["tolerance"] = 1.0;
    v.outputs["difference"] =
        mismatched > 0 && worst.value <= 1 ? std::numeric_limits<double>::infinity() : worst.value;
  }
  v.outputs["rows_checked_by_dijkstra"] = sources;
  v.outputs["matrix_digest"] = matrix_digest(p_, d_.data());
  v.outputs["dijkstra_worst_over_bound"] = worst.value;
  v.detail = fmt::format("{}; {} {} rows {} Dijkstra within n u |length|{}", serial,
                         sources == p_.n ? "all" : "sampled", sources,
                         mismatched == 0 ? "match" : "do not match",
                         mismatched == 0 ? "" : fmt::format(" ({} elements)", mismatched));
  if (p_.paths) {
    std::string successors =
        fmt::format("successors not compared with the serial loop's (n > {})", serial_check_limit);
    std::int64_t next_differ = 0;
    if (p_.n <= serial_check_limit) {
      const auto& reference = reference_successors(p_);
      std::int64_t first = -1;
      for (std::int64_t e = 0; e < p_.elements(); ++e) {
        if (next_[e] != reference[e]) {
          if (first < 0) first = e;
          ++next_differ;
        }
      }
      successors =
          next_differ == 0
              ? "successors equal to the serial loop's"
              : fmt::format(
                    "{} successors differ from the serial loop's, first ({}, {}): "
                    "{} against {}",
                    next_differ, first / p_.n, first % p_.n, next_[first], reference[first]);
    }
    const PathCheck paths =
        check_successor_paths(p_, initial_.data(), d_.data(), next_.data(), rows);
    v.ok = v.ok && next_differ == 0 && paths.broken == 0;
    v.outputs["paths_checked"] = paths.paths;
    v.outputs["paths_worst_over_bound"] = paths.worst_over_bound;
    v.detail += fmt::format("; {}; {} paths from the Dijkstra rows {}", successors, paths.paths,
                            paths.broken == 0 ? "re-sum to their distances"
                                              : fmt::format("checked, {} broken, first {}",
                                                            paths.broken, paths.first_broken));
  }
  return v;
}

void ApspInstance::corrupt_result() {
  float& x = d_[std::size_t(p_.n / 2) * p_.n + (p_.n / 2 + 1) % p_.n];
  x = std::isinf(x) ? 0.0f : x + 0.5f;
  // Row 0 is a sampled source: its path to 1 now goes nowhere.
  if (p_.paths) next_[1] = -1;
}

}  // namespace acclab::apsp
