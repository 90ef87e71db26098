// The decompressed bytes of a gzip'd input (RFC 1952), for LineReader: a SuiteSparse .mtx.gz or
// a compressed graph is read as it is, without a zcat first. The input is told by its first
// bytes (1f 8b), not its name, so a pipe or /dev/stdin carrying gzip is read the same way.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace acclab::io {

// Whether `first` (an input's first bytes, fewer where it is shorter) begins as gzip does.
bool starts_as_gzip(std::string_view first);

// The name of another compression `first` begins as (xz, bzip2, zstd), which acclab does not
// read; nothing otherwise.
std::optional<std::string> other_compression(std::string_view first);

// Inflates the gzip members of an input one after another (as gzip -d does with concatenated
// members), reading its compressed bytes through `read_raw` (fills up to `capacity` bytes and
// returns how many, 0 at the end). Errors are UsageErrors "FILE: ..." naming `path`: corrupt
// data, a stream cut off before its end, bytes after the last member that are not gzip.
class GzipInflater {
 public:
  using RawRead = std::function<std::size_t(char* buffer, std::size_t capacity)>;
  GzipInflater(std::filesystem::path path, RawRead read_raw);
  ~GzipInflater();
  GzipInflater(const GzipInflater&) = delete;
  GzipInflater& operator=(const GzipInflater&) = delete;

  // The next decompressed byte (0 to 255), or EOF after the last member.
  int next() {
    if (out_pos_ == out_size_ && !refill()) return std::char_traits<char>::eof();
    return static_cast<unsigned char>(out_[out_pos_++]);
  }

 private:
  bool refill();
  [[noreturn]] void fail(std::string_view what) const;

  struct Stream;  // zlib's z_stream, kept out of this header
  std::filesystem::path path_;
  RawRead read_raw_;
  std::unique_ptr<Stream> stream_;
  std::vector<char> in_, out_;
  std::size_t out_pos_ = 0, out_size_ = 0;
  bool in_member_ = false;     // inside a member: its end not reached yet
  bool members_done_ = false;  // a member ended: what follows must be another
  bool at_end_ = false;
};

}  // namespace acclab::io
