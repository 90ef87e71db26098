#include "io/text_vector.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <iterator>
#include <optional>
#include <string_view>

#include "core/atomic_file.hpp"
#include "io/line_reader.hpp"
#include "io/matrix_market.hpp"

namespace acclab::io {
namespace {

enum class Layout { plain, array, coordinate };

constexpr std::string_view kLateBanner =
    "Matrix Market banner below line 1; it must be the first line of the file";

std::string lowered(std::string_view word) {
  std::string out(word);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// The layout line 1's banner names. Anything but a real or integer general matrix is refused
// rather than guessed at: a pattern, complex or symmetric "vector" has no one meaning here.
Layout banner_layout(const LineReader& reader, const std::string& line) {
  std::vector<std::string> w;
  for (const auto word : split_tokens(line)) w.push_back(lowered(word));
  if (w.size() != 5 || w[0] != "%%matrixmarket" || w[1] != "matrix" ||
      (w[2] != "array" && w[2] != "coordinate") || (w[3] != "real" && w[3] != "integer") ||
      w[4] != "general") {
    reader.fail(fmt::format(
        "unsupported Matrix Market banner '{}'; a vector is read from '%%MatrixMarket matrix "
        "array real general' or '%%MatrixMarket matrix coordinate real general'",
        line));
  }
  return w[2] == "array" ? Layout::array : Layout::coordinate;
}

bool skipped(std::string_view line) { return is_blank(line) || line[0] == '%' || line[0] == '#'; }

// The size line of a Matrix Market vector, "ROWS 1" (array) or "ROWS 1 ENTRIES" (coordinate),
// ROWS the matrix's rows. Returns the values (array) or entries (coordinate) that follow.
std::int64_t read_size_line(LineReader& reader, Layout layout, std::int64_t rows) {
  std::string line;
  for (;;) {
    if (!reader.next(line)) reader.fail("file ends before the size line");
    if (!skipped(line)) break;
  }
  const auto words = split_tokens(line);
  const std::string_view form = layout == Layout::array ? "'ROWS 1'" : "'ROWS 1 ENTRIES'";
  std::vector<std::optional<std::int64_t>> numbers;
  for (const auto word : words) numbers.push_back(parse_integer(word));
  if (words.size() != (layout == Layout::array ? 2u : 3u) ||
      std::any_of(numbers.begin(), numbers.end(), [](const auto& x) { return !x || *x < 0; })) {
    reader.fail(fmt::format("bad size line '{}'; expected {} (integers >= 0)", line, form));
  }
  if (*numbers[1] != 1) {
    reader.fail(fmt::format("size line '{}': {} columns; a right-hand side is one column, {}",
                            line, *numbers[1], form));
  }
  if (*numbers[0] != rows) {
    reader.fail(fmt::format("size line '{}': {} rows for a matrix of {} rows", line, *numbers[0],
                            rows));
  }
  if (layout == Layout::array) return rows;
  if (*numbers[2] > rows) {
    reader.fail(fmt::format("size line '{}': {} entries, more than the {} rows (each row once)",
                            line, *numbers[2], rows));
  }
  return *numbers[2];
}

// The finite numbers of one line appended to `values`, which must not pass `rows` (an endless
// file stops at once rather than filling the memory).
void append_values(const LineReader& reader, std::string_view line, std::int64_t rows,
                   std::vector<double>& values) {
  for (const std::string_view word : split_tokens(line)) {
    const auto x = parse_finite(word);
    if (!x) reader.fail(fmt::format("'{}' is not a finite number", word));
    if (std::int64_t(values.size()) == rows) {
      reader.fail(fmt::format("more than the {} values of a matrix of {} rows", rows, rows));
    }
    values.push_back(*x);
  }
}

// `entries` lines "ROW 1 VALUE" (ROW 1-based), each row at most once; rows not given are 0.
std::vector<double> read_coordinate(LineReader& reader, std::int64_t rows, std::int64_t entries) {
  std::vector<double> values(static_cast<std::size_t>(rows), 0.0);
  std::vector<std::int64_t> given_on(static_cast<std::size_t>(rows), 0);  // 0: not given
  std::int64_t count = 0;
  std::string line;
  while (reader.next(line)) {
    if (starts_with_banner(line)) reader.fail(kLateBanner);
    if (skipped(line)) continue;
    if (count == entries) {
      reader.fail(fmt::format("more than the {} entries the size line declares", entries));
    }
    const auto words = split_tokens(line);
    if (words.size() != 3) {
      reader.fail(fmt::format("expected 'ROW 1 VALUE', found {}", count_of(words.size(), "field")));
    }
    const auto row = parse_integer(words[0]), col = parse_integer(words[1]);
    if (!row || !col) {
      reader.fail(fmt::format("expected 'ROW 1 VALUE' with integer ROW and column, found '{}'",
                              line));
    }
    if (*row < 1 || *row > rows) {
      reader.fail(fmt::format("row {} is out of range 1..{} (Matrix Market rows are 1-based)",
                              *row, rows));
    }
    if (*col != 1) {
      reader.fail(fmt::format("column {}: a right-hand side has only column 1", *col));
    }
    const auto x = parse_finite(words[2]);
    if (!x) reader.fail(fmt::format("'{}' is not a finite number", words[2]));
    std::int64_t& first = given_on[static_cast<std::size_t>(*row - 1)];
    if (first != 0) reader.fail(fmt::format("row {} given twice (first on line {})", *row, first));
    first = reader.line_number();
    values[static_cast<std::size_t>(*row - 1)] = *x;
    ++count;
  }
  if (count < entries) {
    fail_file(reader.path(), fmt::format("file ends after {} of the {} entries declared "
                                         "(truncated?)",
                                         count, entries));
  }
  return values;
}

}  // namespace

std::vector<double> read_text_vector(const std::filesystem::path& path, std::int64_t rows) {
  LineReader reader(path, kMaxVectorLineBytes);
  std::vector<double> values;
  std::string line;
  Layout layout = Layout::plain;
  if (reader.next(line)) {
    if (starts_with_banner(line)) {
      layout = banner_layout(reader, line);
      const std::int64_t declared = read_size_line(reader, layout, rows);
      if (layout == Layout::coordinate) return read_coordinate(reader, rows, declared);
    } else if (!skipped(line)) {
      append_values(reader, line, rows, values);
    }
    while (reader.next(line)) {
      if (starts_with_banner(line)) reader.fail(kLateBanner);
      if (skipped(line)) continue;
      append_values(reader, line, rows, values);
    }
  }
  if (std::int64_t(values.size()) != rows) {
    fail_file(path, fmt::format("{} values for a matrix of {} rows", values.size(), rows));
  }
  return values;
}

void write_matrix_market_vector(const std::filesystem::path& path, const std::string& option,
                                std::span<const double> values, const std::string& comment) {
  AtomicFile file(path, option);
  fmt::memory_buffer text;
  fmt::format_to(std::back_inserter(text), "%%MatrixMarket matrix array real general\n% {}\n{} 1\n",
                 comment, values.size());
  for (double x : values) fmt::format_to(std::back_inserter(text), "{:.17g}\n", x);
  file.write(text.data(), text.size());
  file.commit();
}

}  // namespace acclab::io
