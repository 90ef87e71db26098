// Matrix Market coordinate files (https://math.nist.gov/MatrixMarket/formats.html): the sparse
// matrices of `acclab iccg` and one of the graph formats of `acclab apsp`.
//
// Read: banner "%%MatrixMarket matrix coordinate FIELD SYMMETRY" on line 1 (words compared
// without case), then `%` comment lines, then the size line "ROWS COLS ENTRIES", then ENTRIES
// lines "ROW COL [VALUE]" with 1-based indices. Blank lines may appear anywhere after the banner;
// `%` lines among the entries are skipped too (the format places comments before the size line,
// but such lines carry no data). FIELD is real, integer or pattern; SYMMETRY is general or
// symmetric. Not read: the dense `array` format, complex values, hermitian and skew-symmetric
// storage. A gzip'd file (SuiteSparse's .mtx.gz) is read as it is, told by its first bytes
// (line_reader.hpp).
//
// Every error is a UsageError "FILE:LINE: what is wrong" ("FILE: what is wrong" where no line
// applies, such as a file that cannot be opened).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

namespace acclab::io {

enum class MatrixField { real, integer, pattern };
enum class MatrixSymmetry { general, symmetric };

std::string_view to_string(MatrixField field);
std::string_view to_string(MatrixSymmetry symmetry);

// One stored entry, with 0-based indices.
struct MatrixEntry {
  std::int64_t row = 0;
  std::int64_t col = 0;
  double value = 0;  // 1 for a pattern file; integer values converted exactly up to 2^53

  bool operator==(const MatrixEntry&) const = default;
};

struct MatrixMarket {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  MatrixField field = MatrixField::real;
  MatrixSymmetry symmetry = MatrixSymmetry::general;
  // The entries as the file stores them, in file order. With symmetric storage only one
  // triangle is stored; either triangle is accepted (some files, such as USPowerGrid.mtx, store
  // the upper one), and a file that stores both (i, j) and (j, i) keeps both. Duplicate entries
  // are kept as they are: their meaning (sum, last wins, error) is the caller's to choose.
  std::vector<MatrixEntry> entries;
  // The number of the size line, so that callers can name it in their own errors
  // ("FILE:LINE: the matrix is not square").
  std::int64_t size_line = 0;
};

// Whether `line` starts with the banner's first word "%%MatrixMarket" (compared without case).
bool starts_with_banner(std::string_view line);

// Reads a coordinate file; throws UsageError as described above. A symmetric file must be square.
MatrixMarket read_matrix_market(const std::filesystem::path& path);

// Both triangles: for symmetric storage every stored entry (i, j, v) and, when i != j, its mirror
// (j, i, v) right after it, so 2 * entries - (diagonal entries) in all; general storage is
// returned as stored.
std::vector<MatrixEntry> expand_symmetric(const MatrixMarket& matrix);

}  // namespace acclab::io
