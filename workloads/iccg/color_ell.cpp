// The colour-slab layout of a permuted system (color_ell.hpp).
#include "workloads/iccg/color_ell.hpp"

#include <algorithm>
#include <stdexcept>

namespace acclab::iccg {

ColorEll color_ell(const Csr& a, const Ordering& o) {
  if (a.n >= (std::int64_t(1) << 31)) throw std::length_error("iccg: 2^31 rows or more");
  ColorEll m;
  m.n = a.n;
  m.colors = o.colors;
  m.color_start = o.color_start;
  m.diagonal = a.diagonal;
  m.lower_start.assign(static_cast<std::size_t>(o.colors) + 1, 0);
  m.upper_start.assign(static_cast<std::size_t>(o.colors) + 1, 0);
  m.lower_width.assign(static_cast<std::size_t>(o.colors), 0);
  m.upper_width.assign(static_cast<std::size_t>(o.colors), 0);
  // Each row's columns are sorted, so its lower couplings come first.
  const auto lower_count = [&](std::int64_t i) {
    std::int64_t e = a.start[i];
    while (e < a.start[i + 1] && a.column[e] < i) ++e;
    return e - a.start[i];
  };
  for (int c = 0; c < o.colors; ++c) {
    const std::int64_t first = o.color_start[c], last = o.color_start[c + 1];
    for (std::int64_t i = first; i < last; ++i) {
      const std::int64_t lower = lower_count(i), upper = a.start[i + 1] - a.start[i] - lower;
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
  for (int c = 0; c < o.colors; ++c) {
    const std::int64_t first = o.color_start[c], rows = o.color_start[c + 1] - first;
    for (std::int64_t e = 0; e < m.lower_width[c] * rows; ++e) {
      m.lower_column[m.lower_start[c] + e] = std::int32_t(first + e % rows);
    }
    for (std::int64_t e = 0; e < m.upper_width[c] * rows; ++e) {
      m.upper_column[m.upper_start[c] + e] = std::int32_t(first + e % rows);
    }
  }
  for (int c = 0; c < o.colors; ++c) {
    const std::int64_t first = o.color_start[c], rows = o.color_start[c + 1] - first;
    for (std::int64_t k = 0; k < rows; ++k) {
      const std::int64_t i = first + k, lower = lower_count(i);
      for (std::int64_t e = a.start[i]; e < a.start[i + 1]; ++e) {
        const bool below = e - a.start[i] < lower;
        const std::int64_t slot = below ? e - a.start[i] : e - a.start[i] - lower;
        const std::int64_t at =
            (below ? m.lower_start[c] : m.upper_start[c]) + slot * rows + k;
        (below ? m.lower_column : m.upper_column)[at] = std::int32_t(a.column[e]);
        (below ? m.lower_value : m.upper_value)[at] = a.value[e];
      }
    }
  }
  return m;
}

}  // namespace acclab::iccg
