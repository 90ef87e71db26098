#include "io/matrix_market.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>

#include "core/enum_names.hpp"
#include "io/line_reader.hpp"

namespace acclab::io {
namespace {

// Entries reserved before they are read: the declared count is only a promise.
constexpr std::int64_t kReservedUpFront = std::int64_t(1) << 20;

constexpr std::string_view kBannerWord = "%%MatrixMarket";
constexpr std::string_view kBannerForm = "'%%MatrixMarket matrix coordinate FIELD SYMMETRY'";

// The banner's words, as it is written and as to_string prints them.
constexpr auto kMatrixFieldNames = std::to_array<EnumName<MatrixField>>({
    {MatrixField::real, "real"},
    {MatrixField::integer, "integer"},
    {MatrixField::pattern, "pattern"},
});
constexpr auto kMatrixSymmetryNames = std::to_array<EnumName<MatrixSymmetry>>({
    {MatrixSymmetry::general, "general"},
    {MatrixSymmetry::symmetric, "symmetric"},
});

std::string lower(std::string_view word) {
  std::string text(word);
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// Fills field and symmetry from line 1, or throws naming what is wrong with it.
void parse_banner(LineReader& reader, MatrixMarket& matrix) {
  std::string line;
  if (!reader.next(line)) {
    fail_file(reader.path(),
              fmt::format("empty file; a Matrix Market file starts with {}", kBannerForm));
  }
  if (!starts_with_banner(line)) {
    reader.fail(
        fmt::format("missing Matrix Market banner; the first line must be {}", kBannerForm));
  }
  const auto words = split_tokens(line);
  if (words.size() != 5 || lower(words[0]) != lower(kBannerWord)) {
    reader.fail(fmt::format("garbled Matrix Market banner '{}'; expected {}", line, kBannerForm));
  }
  const std::string object = lower(words[1]);
  const std::string format = lower(words[2]);
  const std::string field = lower(words[3]);
  const std::string symmetry = lower(words[4]);
  if (object != "matrix") {
    reader.fail(fmt::format("object '{}' is not supported; only 'matrix' is", words[1]));
  }
  if (format == "array") {
    reader.fail("the dense 'array' format is not supported; only 'coordinate' (sparse) is");
  }
  if (format != "coordinate") {
    reader.fail(fmt::format("unknown format '{}'; expected 'coordinate'", words[2]));
  }
  if (const auto named = value_named(kMatrixFieldNames, field)) {
    matrix.field = *named;
  } else if (field == "complex") {
    reader.fail("complex values are not supported; the field must be real, integer or pattern");
  } else {
    reader.fail(fmt::format("unknown field '{}'; expected real, integer or pattern", words[3]));
  }
  if (const auto named = value_named(kMatrixSymmetryNames, symmetry)) {
    matrix.symmetry = *named;
  } else if (symmetry == "hermitian" || symmetry == "skew-symmetric") {
    reader.fail(fmt::format(
        "'{}' storage is not supported; the symmetry must be general or symmetric", words[4]));
  } else {
    reader.fail(fmt::format("unknown symmetry '{}'; expected general or symmetric", words[4]));
  }
}

bool is_comment(std::string_view line) {
  const auto first = line.find_first_not_of(" \t");
  return first != std::string_view::npos && line[first] == '%';
}

// rows * cols >= count, without overflow.
bool can_hold(std::int64_t rows, std::int64_t cols, std::int64_t count) {
  if (rows == 0 || cols == 0) return count == 0;
  const std::int64_t whole_rows = count / cols;
  return whole_rows < rows || (whole_rows == rows && count % cols == 0);
}

// Fills rows and cols from the size line and returns the declared entry count.
std::int64_t parse_size_line(LineReader& reader, MatrixMarket& matrix) {
  std::string line;
  for (;;) {
    if (!reader.next(line)) {
      reader.fail("file ends before the size line 'ROWS COLS ENTRIES'");
    }
    if (!is_blank(line) && !is_comment(line)) break;
  }
  matrix.size_line = reader.line_number();
  const auto words = split_tokens(line);
  std::optional<std::int64_t> numbers[3];
  if (words.size() == 3) {
    for (int i = 0; i < 3; ++i) numbers[i] = parse_integer(words[i]);
  }
  if (words.size() != 3 || !numbers[0] || !numbers[1] || !numbers[2]) {
    reader.fail(
        fmt::format("bad size line '{}'; expected 'ROWS COLS ENTRIES' (three integers)", line));
  }
  matrix.rows = *numbers[0];
  matrix.cols = *numbers[1];
  const std::int64_t count = *numbers[2];
  if (matrix.rows < 0 || matrix.cols < 0 || count < 0) {
    reader.fail(fmt::format("bad size line '{}'; sizes must not be negative", line));
  }
  if (matrix.symmetry == MatrixSymmetry::symmetric && matrix.rows != matrix.cols) {
    reader.fail(fmt::format("a symmetric matrix must be square; this one is {} x {}", matrix.rows,
                            matrix.cols));
  }
  if (!can_hold(matrix.rows, matrix.cols, count)) {
    reader.fail(fmt::format("{} entries declared, more than a {} x {} matrix has", count,
                            matrix.rows, matrix.cols));
  }
  // The shortest entry line is "1 1" (pattern) or "1 1 1", each but the last ended by a newline.
  // A count beyond what is reserved up front that the rest of the file cannot hold is refused
  // here, before a caller sizes anything by it; a smaller shortfall is reported at the end of
  // the file, with the number of entries found (a truncated file).
  const std::uint64_t shortest_entry = matrix.field == MatrixField::pattern ? 4 : 6;
  if (const auto left = reader.bytes_left();
      left && count > kReservedUpFront && std::uint64_t(count) > (*left + 1) / shortest_entry) {
    reader.fail(fmt::format("{} entries declared, more than the {} bytes left in the file can hold",
                            count, *left));
  }
  return count;
}

std::int64_t parse_index(const LineReader& reader, std::string_view token, std::string_view what,
                         std::int64_t size) {
  const auto index = parse_integer(token);
  if (!index) reader.fail(fmt::format("{} index '{}' is not an integer", what, token));
  if (*index < 1 || *index > size) {
    reader.fail(fmt::format("{} index {} is out of range 1..{}", what, *index, size));
  }
  return *index - 1;
}

}  // namespace

bool starts_with_banner(std::string_view line) {
  if (line.size() < kBannerWord.size()) return false;
  for (std::size_t i = 0; i < kBannerWord.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(line[i])) !=
        std::tolower(static_cast<unsigned char>(kBannerWord[i]))) {
      return false;
    }
  }
  return true;
}

std::string_view to_string(MatrixField field) { return name_of(kMatrixFieldNames, field); }

std::string_view to_string(MatrixSymmetry symmetry) {
  return name_of(kMatrixSymmetryNames, symmetry);
}

MatrixMarket read_matrix_market(const std::filesystem::path& path) {
  LineReader reader(path);
  MatrixMarket matrix;
  parse_banner(reader, matrix);
  const std::int64_t declared = parse_size_line(reader, matrix);
  matrix.entries.reserve(static_cast<std::size_t>(std::min(declared, kReservedUpFront)));

  const std::size_t values_per_line = matrix.field == MatrixField::pattern ? 2 : 3;
  const std::string_view line_form =
      matrix.field == MatrixField::pattern ? "'ROW COL'" : "'ROW COL VALUE'";
  std::string line;
  while (reader.next(line)) {
    if (is_blank(line) || is_comment(line)) continue;
    if (static_cast<std::int64_t>(matrix.entries.size()) == declared) {
      reader.fail(
          fmt::format("more entries than the {} declared on line {}", declared, matrix.size_line));
    }
    const auto words = split_tokens(line);
    if (words.size() != values_per_line) {
      reader.fail(fmt::format("expected {} values {} for a {} entry, found {}", values_per_line,
                              line_form, to_string(matrix.field), count_of(words.size(), "value")));
    }
    MatrixEntry entry;
    entry.row = parse_index(reader, words[0], "row", matrix.rows);
    entry.col = parse_index(reader, words[1], "column", matrix.cols);
    if (matrix.field == MatrixField::pattern) {
      entry.value = 1;
    } else if (matrix.field == MatrixField::integer) {
      const auto value = parse_integer(words[2]);
      if (!value) {
        reader.fail(
            fmt::format("value '{}' is not an integer (the banner says integer)", words[2]));
      }
      entry.value = static_cast<double>(*value);
    } else {
      const auto value = parse_finite(words[2]);
      if (!value) reader.fail(fmt::format("value '{}' is not a finite number", words[2]));
      entry.value = *value;
    }
    matrix.entries.push_back(entry);
  }
  if (static_cast<std::int64_t>(matrix.entries.size()) < declared) {
    reader.fail(fmt::format("file ends after {} of the {} entries declared on line {} (truncated?)",
                            matrix.entries.size(), declared, matrix.size_line));
  }
  return matrix;
}

std::vector<MatrixEntry> expand_symmetric(const MatrixMarket& matrix) {
  if (matrix.symmetry == MatrixSymmetry::general) return matrix.entries;
  std::vector<MatrixEntry> full;
  full.reserve(2 * matrix.entries.size());
  for (const MatrixEntry& entry : matrix.entries) {
    full.push_back(entry);
    if (entry.row != entry.col) full.push_back({entry.col, entry.row, entry.value});
  }
  return full;
}

}  // namespace acclab::io
