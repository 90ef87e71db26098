#include "io/dense_matrix.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "io/line_reader.hpp"

namespace acclab::io {
namespace {

constexpr bool kLittleEndian = std::endian::native == std::endian::little;
static_assert(sizeof(float) == 4 && std::numeric_limits<float>::is_iec559);

void put_u64(unsigned char* out, std::uint64_t value) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<unsigned char>(value >> (8 * i));
}

std::uint64_t get_u64(const unsigned char* in) {
  std::uint64_t value = 0;
  for (int i = 0; i < 8; ++i) value |= static_cast<std::uint64_t>(in[i]) << (8 * i);
  return value;
}

// The float's bytes in little-endian order, whatever the host's order.
void put_f32(unsigned char* out, float value) {
  const auto bits = std::bit_cast<std::uint32_t>(value);
  for (int i = 0; i < 4; ++i) out[i] = static_cast<unsigned char>(bits >> (8 * i));
}

float get_f32(const unsigned char* in) {
  std::uint32_t bits = 0;
  for (int i = 0; i < 4; ++i) bits |= static_cast<std::uint32_t>(in[i]) << (8 * i);
  return std::bit_cast<float>(bits);
}


void write_binary(AtomicFile& file, std::span<const float> values, std::int64_t rows,
                  std::int64_t cols) {
  std::array<unsigned char, kDenseHeaderBytes> header{};
  std::memcpy(header.data(), kDenseMagic.data(), kDenseMagic.size());
  put_u64(header.data() + 8, kDenseVersion);
  put_u64(header.data() + 16, static_cast<std::uint64_t>(rows));
  put_u64(header.data() + 24, static_cast<std::uint64_t>(cols));
  file.write(header.data(), header.size());
  if constexpr (kLittleEndian) {
    file.write(values.data(), values.size_bytes());
  } else {
    std::vector<unsigned char> chunk;
    constexpr std::size_t kChunkValues = 1 << 16;
    for (std::size_t first = 0; first < values.size(); first += kChunkValues) {
      const std::size_t count = std::min(kChunkValues, values.size() - first);
      chunk.resize(4 * count);
      for (std::size_t i = 0; i < count; ++i) put_f32(chunk.data() + 4 * i, values[first + i]);
      file.write(chunk.data(), chunk.size());
    }
  }
}

void write_csv(AtomicFile& file, std::span<const float> values, std::int64_t rows,
               std::int64_t cols) {
  fmt::memory_buffer text;
  constexpr std::size_t kFlushBytes = 1 << 20;
  for (std::int64_t i = 0; i < rows; ++i) {
    const float* row = values.data() + i * cols;
    for (std::int64_t j = 0; j < cols; ++j) {
      // fmt's "{}" is the shortest form that reads back to the same float; it writes
      // infinities as "inf" and "-inf".
      if (j > 0) text.push_back(',');
      fmt::format_to(std::back_inserter(text), "{}", row[j]);
    }
    text.push_back('\n');
    if (text.size() >= kFlushBytes) {
      file.write(text.data(), text.size());
      text.clear();
    }
  }
  file.write(text.data(), text.size());
}

}  // namespace

void write_dense_matrix(const std::filesystem::path& path, std::span<const float> values,
                        std::int64_t rows, std::int64_t cols, DenseFormat format,
                        const std::string& option) {
  std::int64_t count = 0;
  if (rows < 0 || cols < 0 || __builtin_mul_overflow(rows, cols, &count) ||
      values.size() != static_cast<std::size_t>(count)) {
    throw std::invalid_argument(fmt::format("write_dense_matrix: {} values for a {} x {} matrix",
                                            values.size(), rows, cols));
  }
  AtomicFile file(path, option);
  if (format == DenseFormat::binary) {
    write_binary(file, values, rows, cols);
  } else {
    write_csv(file, values, rows, cols);
  }
  file.commit();
}

DenseMatrix read_dense_matrix(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) fail_file(path, "is a directory, not a file");
  std::ifstream stream(path, std::ios::binary);
  if (!stream) fail_file(path, fmt::format("cannot open ({})", std::strerror(errno)));
  const std::uintmax_t file_bytes = std::filesystem::file_size(path, ec);
  if (ec) fail_file(path, fmt::format("cannot read its size ({})", ec.message()));

  std::array<unsigned char, kDenseHeaderBytes> header{};
  if (file_bytes < kDenseHeaderBytes ||
      !stream.read(reinterpret_cast<char*>(header.data()), header.size())) {
    fail_file(path, fmt::format("{} bytes, too short for the {}-byte header of an acclab dense "
                                "matrix",
                                file_bytes, kDenseHeaderBytes));
  }
  if (std::memcmp(header.data(), kDenseMagic.data(), kDenseMagic.size()) != 0) {
    fail_file(path, fmt::format("not an acclab dense matrix (its first bytes are not \"{}\")",
                                kDenseMagic));
  }
  const std::uint64_t version = get_u64(header.data() + 8);
  if (version != kDenseVersion) {
    fail_file(path, fmt::format("dense matrix version {} is not supported (this build reads {})",
                                version, kDenseVersion));
  }
  const std::uint64_t rows = get_u64(header.data() + 16);
  const std::uint64_t cols = get_u64(header.data() + 24);
  std::uint64_t value_bytes = 0;
  std::uint64_t expected_bytes = 0;
  if (__builtin_mul_overflow(rows, cols, &value_bytes) ||
      __builtin_mul_overflow(value_bytes, std::uint64_t{4}, &value_bytes) ||
      __builtin_add_overflow(value_bytes, std::uint64_t{kDenseHeaderBytes}, &expected_bytes) ||
      rows > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ||
      cols > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    fail_file(path, fmt::format("its header declares an impossible {} x {} matrix", rows, cols));
  }
  if (file_bytes != expected_bytes) {
    fail_file(path, fmt::format("{} bytes, but its header declares a {} x {} matrix: {} bytes{}",
                                file_bytes, rows, cols, expected_bytes,
                                file_bytes < expected_bytes ? " (truncated?)" : ""));
  }
  DenseMatrix matrix;
  matrix.rows = static_cast<std::int64_t>(rows);
  matrix.cols = static_cast<std::int64_t>(cols);
  matrix.values.resize(rows * cols);
  if (!stream.read(reinterpret_cast<char*>(matrix.values.data()),
                   static_cast<std::streamsize>(value_bytes))) {
    fail_file(path, "read error");
  }
  if constexpr (!kLittleEndian) {
    for (float& value : matrix.values) {
      unsigned char bytes[4];
      std::memcpy(bytes, &value, 4);
      value = get_f32(bytes);
    }
  }
  return matrix;
}

}  // namespace acclab::io
