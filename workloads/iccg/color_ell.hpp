// The permuted system by colour, in the layout GPU kernels read best, shared by `optimized`
// (OpenACC) and `cuda`. In a multicolour ordering a row's couplings are either to earlier
// colours (lower: columns below the row) or to later ones (upper). Each colour keeps both kinds
// as ELL slabs, slot-major: slot s of the colour's k-th row sits at offset + s * rows + k, so
// that neighbouring rows (threads) read neighbouring addresses. A row with fewer couplings than
// its colour's widest is padded with value 0 and its own row as column (finite, and written by
// no other thread: the padding adds exactly 0).
#pragma once

#include <cstdint>
#include <vector>

#include "workloads/iccg/iccg.hpp"

namespace acclab::iccg {

struct ColorEll {
  std::int64_t n = 0;
  int colors = 0;
  std::vector<std::int64_t> color_start;  // colors + 1 row offsets (the ordering's)
  std::vector<std::int64_t> lower_start;  // colors + 1 offsets into lower_column/value
  std::vector<std::int64_t> upper_start;  // colors + 1 offsets into upper_column/value
  std::vector<int> lower_width;           // slots of each colour's lower slab
  std::vector<int> upper_width;
  std::vector<std::int32_t> lower_column, upper_column;
  std::vector<double> lower_value, upper_value;
  std::vector<double> diagonal;
};

// `a` permuted by `o` (rows grouped by colour, no coupling inside a colour).
ColorEll color_ell(const Csr& a, const Ordering& o);

}  // namespace acclab::iccg
