// Dense vectors of doubles as text: the right-hand side `acclab iccg --rhs` reads and the
// solution its --out writes.
//
// Read, in one of three layouts, blank lines and '%' or '#' comment lines allowed in each:
// - whitespace-separated finite numbers on any number of lines, exactly as many as the matrix
//   has rows;
// - a Matrix Market array ("%%MatrixMarket matrix array real general" on line 1, the size line
//   "ROWS 1" with ROWS the matrix's rows, then the ROWS values);
// - a Matrix Market coordinate vector ("%%MatrixMarket matrix coordinate real general" on line 1,
//   the size line "ROWS 1 ENTRIES", then ENTRIES lines "ROW 1 VALUE" with ROW 1-based in
//   1..ROWS, each row at most once; rows not given are 0).
// "integer" may stand for "real". Any other banner, a banner below line 1, a size line of
// another shape, more than one column or another row count is refused.
// A vector may be written as one line of n numbers, so its lines may be far longer than other
// formats' (kMaxVectorLineBytes); a file without line ends still stops at that limit.
//
// Written: a Matrix Market array file of one column, each value with 17 significant digits (it
// reads back bitwise), whole or not at all (core/atomic_file.hpp).
//
// Every error is a UsageError "FILE:LINE: what is wrong" or "FILE: what is wrong".
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace acclab::io {

// 64 MiB: a million numbers on one line, with room to spare.
inline constexpr std::size_t kMaxVectorLineBytes = std::size_t(64) << 20;

// Exactly `rows` values, the right-hand side of a matrix of that many rows: fewer or more is an
// error naming the count.
std::vector<double> read_text_vector(const std::filesystem::path& path, std::int64_t rows);

// Writes `values` as a Matrix Market array with `comment` on its '%' line (one line, without
// the '%'). `option` ("--out", or empty) comes before the path in error messages.
void write_matrix_market_vector(const std::filesystem::path& path, const std::string& option,
                                std::span<const double> values, const std::string& comment);

}  // namespace acclab::io
