// Line-by-line reading of users' text files, shared by the readers in src/io: line numbers,
// whitespace tokens, strict number parsing, and the one shape of every error they throw,
// a UsageError "FILE:LINE: what is wrong" (or "FILE: what is wrong" where no line applies).
#pragma once

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "core/error.hpp"

namespace acclab::io {

// "FILE: message", the form of every error that concerns a whole file.
[[noreturn]] inline void fail_file(const std::filesystem::path& path, std::string_view message) {
  throw UsageError(fmt::format("{}: {}", path.string(), message));
}

// No line of the formats read here needs more than a few dozen bytes; 1 MiB leaves room for long
// comments and stops a binary or endless file (/dev/zero) before it fills the memory.
inline constexpr std::size_t kMaxLineBytes = std::size_t(1) << 20;

// A text file read one line at a time, with the number of the line last read (1-based).
class LineReader {
 public:
  // Throws "FILE: cannot open (reason)" for a missing or unreadable file or a directory. A line
  // longer than `max_line_bytes` is an error "FILE:LINE: line longer than ... bytes".
  explicit LineReader(const std::filesystem::path& path, std::size_t max_line_bytes = kMaxLineBytes)
      : path_(path), max_line_bytes_(max_line_bytes) {
    std::error_code ec;
    if (std::filesystem::is_directory(path_, ec)) fail_file(path_, "is a directory, not a file");
    stream_.open(path_, std::ios::binary);
    if (!stream_) fail_file(path_, fmt::format("cannot open ({})", std::strerror(errno)));
    if (std::filesystem::is_regular_file(path_, ec)) {
      const auto size = std::filesystem::file_size(path_, ec);
      if (!ec) file_size_ = size;
    }
  }

  // The next line without its end of line (LF or CRLF); false at the end of the file. Throws
  // "FILE: read error" when the end was not reached cleanly.
  bool next(std::string& line) {
    line.clear();
    std::streambuf& in = *stream_.rdbuf();
    bool any = false;
    try {
      for (;;) {
        const int c = in.sbumpc();
        if (c == std::char_traits<char>::eof()) break;
        any = true;
        ++bytes_read_;
        if (c == '\n') break;
        if (line.size() == max_line_bytes_) {
          fail_at(line_number_ + 1,
                  fmt::format("line longer than {} bytes (not a text file?)", max_line_bytes_));
        }
        line.push_back(static_cast<char>(c));
      }
    } catch (const std::ios_base::failure&) {
      fail_file(path_, "read error");
    }
    if (!any) return false;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    ++line_number_;
    return true;
  }

  std::int64_t line_number() const { return line_number_; }
  const std::filesystem::path& path() const { return path_; }

  // The bytes not read yet, where the file is a regular file (not a pipe or a device), so that a
  // reader can refuse a declared count the rest of the file cannot hold before reserving for it.
  std::optional<std::uintmax_t> bytes_left() const {
    if (!file_size_) return std::nullopt;
    return *file_size_ > bytes_read_ ? *file_size_ - bytes_read_ : 0;
  }

  // "FILE:LINE: message" for the line last read.
  [[noreturn]] void fail(std::string_view message) const { fail_at(line_number_, message); }
  [[noreturn]] void fail_at(std::int64_t line, std::string_view message) const {
    throw UsageError(fmt::format("{}:{}: {}", path_.string(), line, message));
  }

 private:
  std::filesystem::path path_;
  std::size_t max_line_bytes_;
  std::ifstream stream_;
  std::int64_t line_number_ = 0;
  std::uintmax_t bytes_read_ = 0;
  std::optional<std::uintmax_t> file_size_;
};

// "1 value", "3 values".
inline std::string count_of(std::size_t count, std::string_view noun) {
  return fmt::format("{} {}{}", count, noun, count == 1 ? "" : "s");
}

inline bool is_blank(std::string_view line) {
  return line.find_first_not_of(" \t\r\f\v") == std::string_view::npos;
}

// The whitespace-separated words of `line`.
inline std::vector<std::string_view> split_tokens(std::string_view line) {
  std::vector<std::string_view> tokens;
  constexpr std::string_view kSpace = " \t\r\f\v";
  std::size_t pos = line.find_first_not_of(kSpace);
  while (pos != std::string_view::npos) {
    const std::size_t end = line.find_first_of(kSpace, pos);
    tokens.push_back(line.substr(pos, end == std::string_view::npos ? end : end - pos));
    pos = line.find_first_not_of(kSpace, end);
  }
  return tokens;
}

// `token` without one leading '+' (from_chars takes none), unless a sign follows it.
inline std::string_view without_plus(std::string_view token) {
  if (token.size() > 1 && token[0] == '+' && token[1] != '-' && token[1] != '+') {
    token.remove_prefix(1);
  }
  return token;
}

// The whole token as a decimal integer, or nothing (no partial matches, no overflow).
inline std::optional<std::int64_t> parse_integer(std::string_view token) {
  token = without_plus(token);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc() || end != token.data() + token.size()) return std::nullopt;
  return value;
}

// The whole token as a finite real number (as strtod reads it: "1", "-2.5", ".5", "1e-3"), or
// nothing: "nan" and "inf" are rejected, a weight or coefficient must be a number.
inline std::optional<double> parse_finite(std::string_view token) {
  token = without_plus(token);
  double value = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc() || end != token.data() + token.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

}  // namespace acclab::io
