// The multicolour orderings of the course (CM, RCM, CM-RCM, greedy multicolour), their check,
// and the system renumbered by one.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <queue>
#include <utility>
#include <vector>

#include "workloads/iccg/iccg.hpp"

namespace acclab::iccg {

namespace {

// Breadth-first levels from the least-coupled unvisited row, component after component, the
// levels numbered on across components so that level sets stay uncoupled.
std::vector<std::int64_t> levels_of(const Csr& a, std::int64_t& count) {
  std::vector<std::int64_t> level(static_cast<std::size_t>(a.n), -1);
  std::vector<std::int64_t> by_degree(static_cast<std::size_t>(a.n));
  std::iota(by_degree.begin(), by_degree.end(), 0);
  std::stable_sort(by_degree.begin(), by_degree.end(), [&](std::int64_t x, std::int64_t y) {
    return a.start[x + 1] - a.start[x] < a.start[y + 1] - a.start[y];
  });
  count = 0;
  std::queue<std::int64_t> queue;
  for (std::int64_t root : by_degree) {
    if (level[root] >= 0) continue;
    const std::int64_t base = count;
    level[root] = base;
    queue.push(root);
    while (!queue.empty()) {
      const std::int64_t v = queue.front();
      queue.pop();
      count = std::max(count, level[v] + 1);
      for (std::int64_t e = a.start[v]; e < a.start[v + 1]; ++e) {
        const std::int64_t w = a.column[e];
        if (level[w] < 0) {
          level[w] = level[v] + 1;
          queue.push(w);
        }
      }
    }
  }
  return level;
}

}  // namespace

Ordering order_rows(const Csr& a, int colors) {
  std::vector<std::int64_t> color(static_cast<std::size_t>(a.n), 0);
  std::int64_t count = 0;
  if (colors <= 0) {
    std::int64_t levels = 0;
    const auto level = levels_of(a, levels);
    for (std::int64_t v = 0; v < a.n; ++v) {
      const std::int64_t rcm = levels - 1 - level[v];
      color[v] = colors == 0 ? level[v] : colors == -1 ? rcm : rcm % -colors;
    }
    count = colors <= -2 ? std::min<std::int64_t>(-colors, levels) : levels;
  } else {
    // Greedy in row order, each row trying colour (row mod c) first, then the others.
    count = colors;
    std::vector<std::int64_t> mark;
    for (std::int64_t v = 0; v < a.n; ++v) {
      mark.assign(static_cast<std::size_t>(count), 0);
      for (std::int64_t e = a.start[v]; e < a.start[v + 1]; ++e) {
        if (a.column[e] < v) mark[color[a.column[e]]] = 1;
      }
      std::int64_t chosen = -1;
      for (int t = 0; t < colors && chosen < 0; ++t) {
        const std::int64_t c = (v + t) % colors;
        if (!mark[c]) chosen = c;
      }
      for (std::int64_t c = colors; c < count && chosen < 0; ++c) {
        if (!mark[c]) chosen = c;
      }
      if (chosen < 0) chosen = count++;
      color[v] = chosen;
    }
  }
  // Coupled rows in one colour (a graph whose levels are not independent): the later row moves
  // to the first extra colour none of its neighbours has.
  std::vector<char> used;
  for (std::int64_t v = 0; v < a.n; ++v) {
    bool clash = false;
    for (std::int64_t e = a.start[v]; e < a.start[v + 1] && !clash; ++e) {
      clash = a.column[e] < v && color[a.column[e]] == color[v];
    }
    if (!clash) continue;
    used.assign(static_cast<std::size_t>(count) + 1, 0);
    for (std::int64_t e = a.start[v]; e < a.start[v + 1]; ++e) used[color[a.column[e]]] = 1;
    std::int64_t c = count;
    for (std::int64_t extra = count; extra-- > 0;) {
      if (!used[extra]) c = extra;
    }
    if (c == count) ++count;
    color[v] = c;
  }
  // Colours renumbered without gaps, rows grouped by colour in their old order.
  std::vector<std::int64_t> size(static_cast<std::size_t>(count), 0);
  for (std::int64_t v = 0; v < a.n; ++v) ++size[color[v]];
  std::vector<std::int64_t> renumber(static_cast<std::size_t>(count), -1);
  Ordering o;
  o.color_start.push_back(0);
  for (std::int64_t c = 0; c < count; ++c) {
    if (size[c] == 0) continue;
    renumber[c] = std::int64_t(o.color_start.size()) - 1;
    o.color_start.push_back(o.color_start.back() + size[c]);
  }
  o.colors = int(o.color_start.size()) - 1;
  std::vector<std::int64_t> next(o.color_start.begin(), o.color_start.end() - 1);
  o.new_of_old.resize(static_cast<std::size_t>(a.n));
  o.old_of_new.resize(static_cast<std::size_t>(a.n));
  for (std::int64_t v = 0; v < a.n; ++v) {
    const std::int64_t at = next[renumber[color[v]]]++;
    o.new_of_old[v] = at;
    o.old_of_new[at] = v;
  }
  return o;
}

void group_rows_by_width(const Csr& a, Ordering& o) {
  for (int c = 0; c < o.colors; ++c) {
    const auto first = o.old_of_new.begin() + o.color_start[c];
    const auto last = o.old_of_new.begin() + o.color_start[c + 1];
    std::stable_sort(first, last, [&](std::int64_t x, std::int64_t y) {
      return a.start[x + 1] - a.start[x] > a.start[y + 1] - a.start[y];
    });
  }
  for (std::int64_t r = 0; r < a.n; ++r) o.new_of_old[o.old_of_new[r]] = r;
}

bool coupled_rows_share_a_color(const Csr& a, const Ordering& o) {
  std::vector<int> color_of_new(static_cast<std::size_t>(a.n));
  for (int c = 0; c < o.colors; ++c) {
    for (std::int64_t r = o.color_start[c]; r < o.color_start[c + 1]; ++r) color_of_new[r] = c;
  }
  for (std::int64_t v = 0; v < a.n; ++v) {
    for (std::int64_t e = a.start[v]; e < a.start[v + 1]; ++e) {
      if (color_of_new[o.new_of_old[v]] == color_of_new[o.new_of_old[a.column[e]]]) return true;
    }
  }
  return false;
}

Csr permuted(const Csr& a, const Ordering& o) {
  Csr p;
  p.n = a.n;
  p.diagonal.resize(static_cast<std::size_t>(a.n));
  p.start.assign(static_cast<std::size_t>(a.n) + 1, 0);
  p.column.reserve(a.column.size());
  p.value.reserve(a.value.size());
  std::vector<std::pair<std::int64_t, double>> row;
  for (std::int64_t r = 0; r < a.n; ++r) {
    const std::int64_t v = o.old_of_new[r];
    p.diagonal[r] = a.diagonal[v];
    row.clear();
    for (std::int64_t e = a.start[v]; e < a.start[v + 1]; ++e) {
      row.push_back({o.new_of_old[a.column[e]], a.value[e]});
    }
    std::sort(row.begin(), row.end());
    for (const auto& [c, x] : row) {
      p.column.push_back(c);
      p.value.push_back(x);
    }
    p.start[r + 1] = std::int64_t(p.column.size());
  }
  return p;
}

}  // namespace acclab::iccg
