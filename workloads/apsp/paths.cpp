// The paths a result holds: followed along the successor matrix (and checked against the
// distances), or read off the distances and the graph's edges.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/compare.hpp"
#include "workloads/apsp/apsp.hpp"
#include "workloads/apsp/graph_solve.hpp"

namespace acclab::apsp {

std::vector<int> successor_path(const Problem& p, const std::int32_t* next, int u, int v) {
  if (u == v) return {u};
  if (next[std::size_t(u) * p.n + v] < 0) return {};
  std::vector<int> path = {u};
  for (int x = u; x != v && int(path.size()) < p.n;) {
    x = next[std::size_t(x) * p.n + v];
    if (x < 0 || x >= p.n) break;
    path.push_back(x);
  }
  return path;
}

double path_length(const Problem& p, const float* initial, const std::vector<int>& path) {
  return path_length(
      p, [&](int x, int y) { return initial[std::size_t(x) * p.n + y]; }, path);
}

double path_length(const Problem& p, const std::function<float(int, int)>& weight,
                   const std::vector<int>& path) {
  double length = 0;
  for (std::size_t s = 0; s + 1 < path.size(); ++s) {
    const float w = weight(path[s], path[s + 1]);
    if (w == p.none() || path[s] == path[s + 1]) return p.none();
    length += w;
  }
  return length;
}

double rounding_bound(const Problem& p, double sum_abs, float d) {
  return double(p.n) * 0x1p-24 * std::max(sum_abs, double(std::abs(d))) + 1e-30;
}

PathCheck check_successor_paths(const Problem& p, const float* initial, const float* d,
                                const std::int32_t* next, const std::vector<int>& sources) {
  const auto at = [&p](int u, int v) { return std::size_t(u) * p.n + v; };
  const ResultReader read{.distance = [&](int u, int v) { return d[at(u, v)]; },
                          .successor = [&](int u, int v) { return next[at(u, v)]; },
                          .walk = [&](int u, int v) { return successor_path(p, next, u, v); },
                          .weight = [&](int x, int y) { return initial[at(x, y)]; }};
  return check_successor_paths(p, read, sources);
}

PathCheck check_successor_paths(const Problem& p, const ResultReader& read,
                                const std::vector<int>& sources) {
  PathCheck check;
  Difference worst;  // the largest difference over its bound, indexed u n + v
  auto fail = [&](int u, int v, const std::string& what) {
    if (check.broken++ == 0) check.first_broken = fmt::format("path {} -> {}: {}", u, v, what);
  };
  for (int u : sources) {
    if (read.successor(u, u) != u) fail(u, u, "next[u][u] is not u");
    for (int v = 0; v < p.n; ++v) {
      if (v == u) continue;
      const float duv = read.distance(u, v);
      const std::int32_t first = read.successor(u, v);
      if (duv == p.none()) {
        if (first != -1) fail(u, v, fmt::format("unreachable, yet successor {}", first));
        continue;
      }
      ++check.paths;
      const auto path = read.walk(u, v);
      if (path.empty() || path.back() != v) {
        fail(u, v,
             fmt::format("the successors stop at {} after {} edges", path.empty() ? u : path.back(),
                         path.size() - 1));
        continue;
      }
      const double along = path_length(p, read.weight, path);
      if (along == double(p.none())) {
        fail(u, v, "the successors step along a missing edge");
        continue;
      }
      double sum_abs = 0;
      for (std::size_t s = 0; s + 1 < path.size(); ++s) {
        sum_abs += std::abs(read.weight(path[s], path[s + 1]));
      }
      const double over = std::abs(along - double(duv)) / rounding_bound(p, sum_abs, duv);
      fold_difference(worst, over, std::int64_t(u) * p.n + v);
      check.worst_over_bound = worst.value;
      if (!(over <= 1.0)) {
        fail(u, v, fmt::format("length {} along the path, {} in the matrix", along, duv));
      }
    }
  }
  return check;
}

std::vector<int> best_path(const Problem& p, const float* d, const std::vector<Edge>& edges, int u,
                           int v) {
  std::vector<float> column(static_cast<std::size_t>(p.n));
  for (int x = 0; x < p.n; ++x) column[x] = d[std::size_t(x) * p.n + v];
  return best_path_to(p, column, edges, u, v);
}

std::vector<int> best_path_to(const Problem& p, std::span<const float> column,
                              const std::vector<Edge>& edges, int u, int v) {
  if (u == v) return {u};
  // Every distance read is one to v: column[x] = d[x][v].
  if (column[u] == p.none()) return {};
  // Tight edges: (x, w) whose weight plus d[w][v] gives d[x][v], to float rounding (the matrix
  // summed the same weights in another order). A breadth-first search over them from u finds a
  // path to v whenever one exists, zero-weight cycles included.
  const auto tight = [&](const Edge& e) {
    const float dwv = column[e.to], dxv = column[e.from];
    if (dwv == p.none() || dxv == p.none()) return false;
    const float slack = 1e-5f * std::max({1.0f, std::abs(dxv), std::abs(e.weight)});
    return std::abs(e.weight + dwv - dxv) <= slack;
  };
  std::vector<std::vector<int>> out(static_cast<std::size_t>(p.n));
  for (const Edge& e : edges) {
    if (tight(e)) out[e.from].push_back(e.to);
  }
  std::vector<int> parent(static_cast<std::size_t>(p.n), -1);
  std::vector<int> queue = {u};
  parent[u] = u;
  for (std::size_t head = 0; head < queue.size() && parent[v] < 0; ++head) {
    const int x = queue[head];
    for (int w : out[x]) {
      if (parent[w] >= 0) continue;
      parent[w] = x;
      queue.push_back(w);
    }
  }
  if (parent[v] < 0) return {};
  std::vector<int> path;
  for (int x = v; x != u; x = parent[x]) path.push_back(x);
  path.push_back(u);
  std::reverse(path.begin(), path.end());
  return path;
}

}  // namespace acclab::apsp
