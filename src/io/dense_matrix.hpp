// Dense float matrices written to users' files (the distance matrix of `acclab apsp --out`) and
// read back (tests, later tools).
//
// Binary layout, version 1 (all fields little-endian, 32-byte header):
//
//   offset  size  field
//        0     8  magic bytes "ACCLABDM"
//        8     8  version, uint64 = 1
//       16     8  rows, uint64
//       24     8  cols, uint64
//       32  4*rows*cols  the values, IEEE-754 binary32, row-major (row 0 first)
//
// Nothing follows the values, so the file is exactly 32 + 4*rows*cols bytes. Infinities (an
// unreachable pair in min-plus, -inf in max-plus) and NaN are stored as they are. NumPy reads it
// with np.fromfile(f, dtype='<f4', offset=32).reshape(rows, cols).
//
// CSV: one line per row, values separated by ',', no header, each value in the shortest decimal
// form that reads back to the same float ("0.1", "457", "1e-07"), infinities as "inf" and
// "-inf", NaN as "nan". About 2.5 times the binary size and slower: meant for small n.
//
// Writing is all or nothing: the bytes go to a temporary file in the target's directory
// (".NAME.tmp-PID-COUNT"), which is flushed to disk and then renamed over the target. On any
// failure the temporary file is removed, the target is left as it was (absent, or its previous
// content), and a UsageError "FILE: cannot write (reason)" is thrown.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace acclab::io {

enum class DenseFormat { binary, csv };

inline constexpr std::string_view kDenseMagic = "ACCLABDM";
inline constexpr std::uint64_t kDenseVersion = 1;
inline constexpr std::size_t kDenseHeaderBytes = 32;

struct DenseMatrix {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::vector<float> values;  // row-major, rows * cols
};

// Writes the row-major rows x cols matrix `values` to `path` in `format`, replacing any file
// there. Throws std::invalid_argument if values.size() != rows * cols, UsageError on I/O failure
// ("OPTION FILE: reason", `option` being the command-line option that named the file, or "").
void write_dense_matrix(const std::filesystem::path& path, std::span<const float> values,
                        std::int64_t rows, std::int64_t cols, DenseFormat format,
                        const std::string& option = "");

// Reads a binary file written by write_dense_matrix. Throws UsageError "FILE: what is wrong"
// for an unreadable file, bad magic bytes, an unknown version, or a size other than the header's
// rows and cols imply (truncated or with trailing bytes).
DenseMatrix read_dense_matrix(const std::filesystem::path& path);

}  // namespace acclab::io
