// Line-by-line reading of users' text files, shared by the readers in src/io: line numbers,
// whitespace tokens, strict number parsing, and the one shape of every error they throw,
// a UsageError "FILE:LINE: what is wrong" (or "FILE: what is wrong" where no line applies).
#pragma once

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "core/error.hpp"
#include "io/gzip_input.hpp"

namespace acclab::io {

// "FILE: message", the form of every error that concerns a whole file.
[[noreturn]] inline void fail_file(const std::filesystem::path& path, std::string_view message) {
  throw UsageError(fmt::format("{}: {}", path.string(), message));
}

// No line of the formats read here needs more than a few dozen bytes; 1 MiB leaves room for long
// comments and stops a binary or endless file (/dev/zero) before it fills the memory.
inline constexpr std::size_t kMaxLineBytes = std::size_t(1) << 20;

// The bytes of an input that can be read only once (a pipe, a FIFO, /dev/stdin, a process
// substitution such as <(cat g.txt)), kept as they are read, so that every reader of the same
// input in this process (format detection first, then the reader proper) sees all of it from
// its first byte. Reading is driven by the readers: an endless input (/dev/zero) is read only as
// far as a reader goes before it refuses it. A regular file is simply opened again instead.
class ReplayedInput {
 public:
  // The one ReplayedInput of the input `path` names (keyed by device and inode, so that
  // /dev/stdin and /dev/fd/0 are the same input). Throws "FILE: cannot open (reason)".
  static std::shared_ptr<ReplayedInput> of(const std::filesystem::path& path) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) {
      throw UsageError(fmt::format("{}: cannot open ({})", path.string(), std::strerror(errno)));
    }
    static std::mutex mutex;
    static std::map<std::pair<dev_t, ino_t>, std::shared_ptr<ReplayedInput>> inputs;
    std::lock_guard lock(mutex);
    auto& input = inputs[{info.st_dev, info.st_ino}];
    if (!input) input = std::shared_ptr<ReplayedInput>(new ReplayedInput(path));
    return input;
  }
  ~ReplayedInput() {
    if (fd_ >= 0) ::close(fd_);
    if (spool_ >= 0) ::close(spool_);
  }
  ReplayedInput(const ReplayedInput&) = delete;
  ReplayedInput& operator=(const ReplayedInput&) = delete;

  // The byte at `position`, reading on from the input when it has not been read yet; EOF at
  // the end. Throws "FILE: read error (reason)", or "FILE: cannot keep ... (reason)" when the
  // spool file cannot take more.
  int at(std::uintmax_t position) {
    while (position >= size_ && fd_ >= 0) read_more();
    if (position >= size_) return std::char_traits<char>::eof();
    if (spool_ < 0) return static_cast<unsigned char>(bytes_[position]);
    if (position < window_start_ || position - window_start_ >= window_.size()) {
      load_window(position);
    }
    return static_cast<unsigned char>(window_[position - window_start_]);
  }

  // Whether the bytes read so far went to a temporary file (the input outgrew
  // memory_limit_bytes()).
  bool spooled() const { return spool_ >= 0; }

  // How much of such an input is kept in memory: 64 MiB, or ACCLAB_INPUT_MEMORY_BYTES. Past it
  // the bytes go to an unlinked file in TMPDIR (else /tmp), so that a matrix piped in
  // (`zcat big.mtx.gz | acclab iccg /dev/stdin`) is not held in memory a second time for the
  // whole run beside the system read from it.
  static std::uintmax_t memory_limit_bytes() {
    if (const char* text = std::getenv("ACCLAB_INPUT_MEMORY_BYTES")) {
      std::uintmax_t value = 0;
      const char* end = text + std::strlen(text);
      const auto [rest, error] = std::from_chars(text, end, value);
      if (error == std::errc() && rest == end) return value;
    }
    return std::uintmax_t(64) << 20;
  }

 private:
  static constexpr std::size_t kChunk = std::size_t(1) << 16;

  explicit ReplayedInput(const std::filesystem::path& path)
      : path_(path), memory_limit_(memory_limit_bytes()) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) {
      throw UsageError(fmt::format("{}: cannot open ({})", path.string(), std::strerror(errno)));
    }
  }

  void read_more() {
    char chunk[kChunk];
    ssize_t got = 0;
    do {
      got = ::read(fd_, chunk, sizeof chunk);
    } while (got < 0 && errno == EINTR);
    if (got < 0) {
      throw UsageError(fmt::format("{}: read error ({})", path_.string(), std::strerror(errno)));
    }
    if (got == 0) {
      ::close(fd_);
      fd_ = -1;
      return;
    }
    if (spool_ < 0 && size_ + std::uintmax_t(got) > memory_limit_) start_spool();
    if (spool_ >= 0) {
      write_spool(chunk, std::size_t(got));
    } else {
      bytes_.append(chunk, std::size_t(got));
    }
    size_ += std::uintmax_t(got);
  }

  // Moves the bytes so far to an unlinked temporary file. Where none can be made (no TMPDIR,
  // a read-only /tmp), the input stays in memory as before: slower to fail than to read.
  void start_spool() {
    const char* env = std::getenv("TMPDIR");
    spool_dir_ = env && *env ? env : "/tmp";
    int fd = ::open(spool_dir_.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) {  // a file system without O_TMPFILE: a named file, unlinked at once
      std::string name = (std::filesystem::path(spool_dir_) / "acclab-input-XXXXXX").string();
      fd = ::mkostemp(name.data(), O_CLOEXEC);
      if (fd >= 0) ::unlink(name.c_str());
    }
    if (fd < 0) return;
    spool_ = fd;
    write_spool(bytes_.data(), bytes_.size());
    std::string().swap(bytes_);  // the memory back
  }

  void write_spool(const char* data, std::size_t size) {
    while (size > 0) {
      const ssize_t put = ::write(spool_, data, size);
      if (put < 0 && errno == EINTR) continue;
      if (put <= 0) {
        throw UsageError(fmt::format("{}: cannot keep the input read from it in {} ({})",
                                     path_.string(), spool_dir_,
                                     put < 0 ? std::strerror(errno) : "nothing written"));
      }
      data += put;
      size -= std::size_t(put);
    }
  }

  void load_window(std::uintmax_t position) {
    window_start_ = position - position % kChunk;
    window_.resize(kChunk);
    std::size_t have = 0;
    while (have < kChunk && window_start_ + have < size_) {
      const ssize_t got = ::pread(spool_, window_.data() + have, kChunk - have,
                                  static_cast<off_t>(window_start_ + have));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        throw UsageError(fmt::format("{}: read error in its copy in {} ({})", path_.string(),
                                     spool_dir_, got < 0 ? std::strerror(errno) : "short file"));
      }
      have += std::size_t(got);
    }
    window_.resize(have);
  }

  std::filesystem::path path_;
  std::uintmax_t memory_limit_;
  std::string bytes_;        // the bytes read, while they fit memory_limit_
  std::uintmax_t size_ = 0;  // bytes read from the input so far
  int fd_ = -1;              // the input, until its end
  int spool_ = -1;           // the bytes read, once they outgrew memory_limit_
  std::string spool_dir_;
  std::string window_;  // the spool's bytes from window_start_
  std::uintmax_t window_start_ = 0;
};

// A text file read one line at a time, with the number of the line last read (1-based). A gzip'd
// file, told by its first bytes (a file, a pipe or /dev/stdin alike), is read as the text inside:
// a corrupt or cut-off gzip stream is "FILE: corrupt gzip data (...)" or "FILE: truncated gzip
// data ...".
class LineReader {
 public:
  // Throws "FILE: cannot open (reason)" for a missing or unreadable file or a directory. A line
  // longer than `max_line_bytes` is an error "FILE:LINE: line longer than ... bytes".
  explicit LineReader(const std::filesystem::path& path, std::size_t max_line_bytes = kMaxLineBytes)
      : path_(path), max_line_bytes_(max_line_bytes) {
    std::error_code ec;
    if (std::filesystem::is_directory(path_, ec)) fail_file(path_, "is a directory, not a file");
    if (!std::filesystem::is_regular_file(path_, ec)) {
      replayed_ = ReplayedInput::of(path_);
      open_compressed();
      return;
    }
    stream_.open(path_, std::ios::binary);
    if (!stream_) fail_file(path_, fmt::format("cannot open ({})", std::strerror(errno)));
    const auto size = std::filesystem::file_size(path_, ec);
    if (!ec) file_size_ = size;
    open_compressed();
  }

  // The decompressing reader keeps a pointer to this one.
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // The next line without its end of line (LF or CRLF); false at the end of the file. Throws
  // "FILE: read error" when the end was not reached cleanly.
  bool next(std::string& line) {
    line.clear();
    bool any = false;
    try {
      for (;;) {
        const int c = gzip_       ? gzip_->next()
                      : replayed_ ? replayed_->at(bytes_read_)
                                  : stream_.rdbuf()->sbumpc();
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
  // An input that begins as gzip is read through its decompression from here on (its lines,
  // line numbers and sizes are those of the text inside); one in another compression is
  // refused with the command that decompresses it.
  void open_compressed() {
    std::string first;
    if (replayed_) {
      for (std::uintmax_t i = 0; i < 6; ++i) {
        const int c = replayed_->at(i);
        if (c == std::char_traits<char>::eof()) break;
        first.push_back(static_cast<char>(c));
      }
    } else {
      first.resize(6);
      stream_.read(first.data(), static_cast<std::streamsize>(first.size()));
      first.resize(static_cast<std::size_t>(stream_.gcount()));
      stream_.clear();
      stream_.seekg(0);
    }
    if (const auto other = other_compression(first)) {
      fail_file(path_, fmt::format("compressed with {}: acclab reads plain text or gzip; "
                                   "decompress it first",
                                   *other));
    }
    if (!starts_as_gzip(first)) return;
    file_size_.reset();  // the file's size is not the text's
    gzip_ = std::make_unique<GzipInflater>(path_, [this](char* buffer, std::size_t capacity) {
      std::size_t got = 0;
      if (replayed_) {
        for (; got < capacity; ++got) {
          const int c = replayed_->at(raw_read_ + got);
          if (c == std::char_traits<char>::eof()) break;
          buffer[got] = static_cast<char>(c);
        }
      } else {
        stream_.read(buffer, static_cast<std::streamsize>(capacity));
        got = static_cast<std::size_t>(stream_.gcount());
        if (stream_.bad()) fail_file(path_, "read error");
      }
      raw_read_ += got;
      return got;
    });
  }

  std::filesystem::path path_;
  std::size_t max_line_bytes_;
  std::ifstream stream_;
  std::shared_ptr<ReplayedInput> replayed_;  // in place of stream_ for a pipe, FIFO or device
  std::unique_ptr<GzipInflater> gzip_;       // the text inside a gzip'd input
  std::uintmax_t raw_read_ = 0;              // the compressed bytes gzip_ has taken
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
