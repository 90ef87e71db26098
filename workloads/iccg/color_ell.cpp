// The colour-slab layout of a permuted system (color_ell.hpp).
#include "workloads/iccg/color_ell.hpp"

#include <algorithm>
#include <stdexcept>

namespace acclab::iccg {
namespace {

// Each row's columns are sorted, so its lower couplings come first.
std::int64_t lower_count(const Csr& a, std::int64_t i) {
  std::int64_t e = a.start[i];
  while (e < a.start[i + 1] && a.column[e] < i) ++e;
  return e - a.start[i];
}

// Splits rows [first, last) of one colour (lower[k], upper[k]: row first + k's couplings) into
// at most `runs_left` runs, at the row that saves the most slots each time, while a split saves
// at least min_saved_slots; appends the runs' starts after `first` to `starts`.
void split_runs(const std::vector<std::int64_t>& lower, const std::vector<std::int64_t>& upper,
                std::int64_t base, std::int64_t first, std::int64_t last, int runs_left,
                std::int64_t min_saved_slots, std::vector<std::int64_t>& starts) {
  const std::int64_t rows = last - first;
  if (runs_left < 2 || rows < 2) return;
  // The widest lower and upper parts of the rows before each point, and from each point on.
  std::vector<std::int64_t> head_lower(rows + 1, 0), head_upper(rows + 1, 0);
  std::vector<std::int64_t> tail_lower(rows + 1, 0), tail_upper(rows + 1, 0);
  for (std::int64_t k = 0; k < rows; ++k) {
    head_lower[k + 1] = std::max(head_lower[k], lower[first - base + k]);
    head_upper[k + 1] = std::max(head_upper[k], upper[first - base + k]);
  }
  for (std::int64_t k = rows; k-- > 0;) {
    tail_lower[k] = std::max(tail_lower[k + 1], lower[first - base + k]);
    tail_upper[k] = std::max(tail_upper[k + 1], upper[first - base + k]);
  }
  const std::int64_t whole = (head_lower[rows] + head_upper[rows]) * rows;
  std::int64_t best_saved = 0, best = 0;
  for (std::int64_t k = 1; k < rows; ++k) {
    const std::int64_t split =
        (head_lower[k] + head_upper[k]) * k + (tail_lower[k] + tail_upper[k]) * (rows - k);
    if (whole - split > best_saved) {
      best_saved = whole - split;
      best = k;
    }
  }
  if (best == 0 || best_saved < std::max<std::int64_t>(min_saved_slots, 1)) return;
  const int head_runs = runs_left / 2;
  split_runs(lower, upper, base, first, first + best, head_runs, min_saved_slots, starts);
  starts.push_back(first + best);
  split_runs(lower, upper, base, first + best, last, runs_left - head_runs, min_saved_slots,
             starts);
}

}  // namespace

ColorEll color_ell(const Csr& a, const Ordering& o, std::int64_t min_saved_slots) {
  if (a.n >= (std::int64_t(1) << 31)) throw std::length_error("iccg: 2^31 rows or more");
  ColorEll m;
  m.n = a.n;
  m.diagonal = a.diagonal;
  // The ordering's colours, each split into runs where that saves enough padding.
  m.color_start = {0};
  for (int c = 0; c < o.colors; ++c) {
    const std::int64_t first = o.color_start[c], last = o.color_start[c + 1];
    std::vector<std::int64_t> lower(last - first), upper(last - first);
    for (std::int64_t i = first; i < last; ++i) {
      lower[i - first] = lower_count(a, i);
      upper[i - first] = a.start[i + 1] - a.start[i] - lower[i - first];
    }
    split_runs(lower, upper, first, first, last, max_runs_per_color, min_saved_slots,
               m.color_start);
    m.color_start.push_back(last);
  }
  m.colors = int(m.color_start.size()) - 1;
  m.lower_start.assign(static_cast<std::size_t>(m.colors) + 1, 0);
  m.upper_start.assign(static_cast<std::size_t>(m.colors) + 1, 0);
  m.lower_width.assign(static_cast<std::size_t>(m.colors), 0);
  m.upper_width.assign(static_cast<std::size_t>(m.colors), 0);
  for (int c = 0; c < m.colors; ++c) {
    const std::int64_t first = m.color_start[c], last = m.color_start[c + 1];
    for (std::int64_t i = first; i < last; ++i) {
      const std::int64_t lower = lower_count(a, i), upper = a.start[i + 1] - a.start[i] - lower;
      m.lower_width[c] = std::max(m.lower_width[c], int(lower));
      m.upper_width[c] = std::max(m.upper_width[c], int(upper));
    }
    m.lower_start[c + 1] = m.lower_start[c] + m.lower_width[c] * (last - first);
    m.upper_start[c + 1] = m.upper_start[c] + m.upper_width[c] * (last - first);
  }
  m.lower_column.resize(static_cast<std::size_t>(m.lower_start.back()));
  m.lower_value.assign(static_cast<std::size_t>(m.lower_start.back()), 0.0);
  m.upper_column.resize(static_cast<std::size_t>(m.upper_start.back()));
  m.upper_value.assign(static_cast<std::size_t>(m.upper_start.back()), 0.0);
  // Padding points at the row itself: a slot no other thread writes.
  for (int c = 0; c < m.colors; ++c) {
    const std::int64_t first = m.color_start[c], rows = m.color_start[c + 1] - first;
    for (std::int64_t e = 0; e < m.lower_width[c] * rows; ++e) {
      m.lower_column[m.lower_start[c] + e] = std::int32_t(first + e % rows);
    }
    for (std::int64_t e = 0; e < m.upper_width[c] * rows; ++e) {
      m.upper_column[m.upper_start[c] + e] = std::int32_t(first + e % rows);
    }
  }
  for (int c = 0; c < m.colors; ++c) {
    const std::int64_t first = m.color_start[c], rows = m.color_start[c + 1] - first;
    for (std::int64_t k = 0; k < rows; ++k) {
      const std::int64_t i = first + k, lower = lower_count(a, i);
      for (std::int64_t e = a.start[i]; e < a.start[i + 1]; ++e) {
        const bool below = e - a.start[i] < lower;
        const std::int64_t slot = below ? e - a.start[i] : e - a.start[i] - lower;
        const std::int64_t at = (below ? m.lower_start[c] : m.upper_start[c]) + slot * rows + k;
        (below ? m.lower_column : m.upper_column)[at] = std::int32_t(a.column[e]);
        (below ? m.lower_value : m.upper_value)[at] = a.value[e];
      }
    }
  }
  return m;
}

}  // namespace acclab::iccg
