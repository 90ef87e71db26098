// The permuted system by colour, in the layout GPU kernels read best, shared by `optimized`
// (OpenACC) and `cuda`. In a multicolour ordering a row's couplings are either to earlier
// colours (lower: columns below the row) or to later ones (upper). Each colour keeps both kinds
// as ELL slabs, slot-major: slot s of the colour's k-th row sits at offset + s * rows + k, so
// that neighbouring rows (threads) read neighbouring addresses. A row with fewer couplings than
// its colour's widest is padded with value 0 and its own row as column (finite, and written by
// no other thread: the padding adds exactly 0).
//
// Where a colour's rows differ much in width (real matrices: tens of couplings in a few rows, a
// handful in most), padding every row to the widest multiplies the slab. A colour whose rows
// come widest first (group_rows_by_width) is then split into runs of rows, each a slab of its
// own width: to the kernels a run is a colour like any other (its rows are uncoupled, and depend
// only on earlier colours), at the cost of one more kernel launch or barrier in each sweep.
#pragma once

#include <cstdint>
#include <vector>

#include "workloads/iccg/iccg.hpp"

namespace acclab::iccg {

struct ColorEll {
  std::int64_t n = 0;
  int colors = 0;  // slabs: the ordering's colours, some split into runs of rows
  std::vector<std::int64_t> color_start;  // colors + 1 row offsets (the ordering's, refined)
  std::vector<std::int64_t> lower_start;  // colors + 1 offsets into lower_column/value
  std::vector<std::int64_t> upper_start;  // colors + 1 offsets into upper_column/value
  std::vector<int> lower_width;           // slots of each colour's lower slab
  std::vector<int> upper_width;
  std::vector<std::int32_t> lower_column, upper_column;
  std::vector<double> lower_value, upper_value;
  std::vector<double> diagonal;
};

// A run split off a colour costs a launch (cuda) or a barrier across gangs (optimized) in each
// sweep, a few microseconds on a GPU; it pays where it saves more slab slots (12 bytes, read
// about twice an iteration) than the device reads in that time: about 2^19 at 4 TB/s. An
// estimate, not a measurement.
constexpr std::int64_t default_min_saved_slots = std::int64_t(1) << 19;
// At most this many runs a colour.
constexpr int max_runs_per_color = 4;

// `a` permuted by `o` (rows grouped by colour, no coupling inside a colour), each colour split
// where a split saves at least `min_saved_slots` slots of padding.
ColorEll color_ell(const Csr& a, const Ordering& o, std::int64_t min_saved_slots = no_split);

}  // namespace acclab::iccg
