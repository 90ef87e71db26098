#include "io/text_vector.hpp"

#include <fmt/format.h>

#include <iterator>

#include "core/atomic_file.hpp"
#include "io/line_reader.hpp"

namespace acclab::io {

std::vector<double> read_text_vector(const std::filesystem::path& path, std::int64_t rows) {
  std::vector<double> values;
  LineReader reader(path, kMaxVectorLineBytes);
  std::string line;
  bool array_header = false;
  while (reader.next(line)) {
    if (line.starts_with("%%MatrixMarket")) {
      array_header = true;
      continue;
    }
    if (is_blank(line) || line[0] == '%' || line[0] == '#') continue;
    if (array_header) {  // the size line
      array_header = false;
      continue;
    }
    for (const std::string_view word : split_tokens(line)) {
      const auto x = parse_finite(word);
      if (!x) reader.fail(fmt::format("'{}' is not a finite number", word));
      // Stops at once rather than holding an endless file's numbers.
      if (std::int64_t(values.size()) == rows) {
        reader.fail(fmt::format("more than the {} values of a matrix of {} rows", rows, rows));
      }
      values.push_back(*x);
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
