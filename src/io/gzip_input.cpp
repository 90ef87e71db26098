#include "io/gzip_input.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <cstring>

#include "core/error.hpp"

namespace acclab::io {

namespace {

constexpr std::size_t kChunk = std::size_t(1) << 16;
// zlib's window bits for a gzip wrapper only (15: the largest window, +16: gzip).
constexpr int kGzipWindowBits = 15 + 16;

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() && text.substr(0, prefix.size()) == prefix;
}

}  // namespace

bool starts_as_gzip(std::string_view first) { return starts_with(first, "\x1f\x8b"); }

std::optional<std::string> other_compression(std::string_view first) {
  using namespace std::literals;
  if (starts_with(first,
                  "\xfd"
                  "7zXZ\0"sv))
    return "xz (xz -d)";
  if (starts_with(first, "\x28\xb5\x2f\xfd"sv)) return "zstd (zstd -d)";
  // "BZh" and a block size digit: a text line could begin "BZh", hardly with the digit too.
  if (first.size() >= 4 && starts_with(first, "BZh") && first[3] >= '1' && first[3] <= '9') {
    return "bzip2 (bzip2 -d)";
  }
  return std::nullopt;
}

struct GzipInflater::Stream {
  z_stream z{};
};

GzipInflater::GzipInflater(std::filesystem::path path, RawRead read_raw)
    : path_(std::move(path)),
      read_raw_(std::move(read_raw)),
      stream_(std::make_unique<Stream>()),
      in_(kChunk),
      out_(kChunk) {
  if (inflateInit2(&stream_->z, kGzipWindowBits) != Z_OK) {
    fail("cannot start gzip decompression (out of memory?)");
  }
}

GzipInflater::~GzipInflater() { inflateEnd(&stream_->z); }

void GzipInflater::fail(std::string_view what) const {
  throw UsageError(fmt::format("{}: {}", path_.string(), what));
}

// Inflates until some bytes come out or the input ends. A member's end resets the stream for the
// next member; the input's end inside a member is a truncated file.
bool GzipInflater::refill() {
  z_stream& z = stream_->z;
  out_pos_ = out_size_ = 0;
  while (out_size_ == 0 && !at_end_) {
    if (z.avail_in == 0) {
      const std::size_t got = read_raw_(in_.data(), in_.size());
      if (got == 0) {
        if (in_member_) {
          fail(
              "truncated gzip data: the file ends inside its compressed stream (cut short "
              "while copying or downloading?)");
        }
        at_end_ = true;
        break;
      }
      z.next_in = reinterpret_cast<Bytef*>(in_.data());
      z.avail_in = static_cast<uInt>(got);
    }
    const bool new_member = !in_member_;
    in_member_ = true;
    z.next_out = reinterpret_cast<Bytef*>(out_.data());
    z.avail_out = static_cast<uInt>(out_.size());
    const int rc = inflate(&z, Z_NO_FLUSH);
    out_size_ = out_.size() - z.avail_out;
    if (rc == Z_STREAM_END) {
      in_member_ = false;
      members_done_ = true;
      inflateReset(&z);
    } else if (rc == Z_DATA_ERROR && new_member && members_done_ && z.msg &&
               std::strcmp(z.msg, "incorrect header check") == 0) {
      fail(
          "bytes after the end of its gzip data that are not another gzip member (trailing "
          "garbage)");
    } else if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT) {
      fail(fmt::format("corrupt gzip data ({})", z.msg ? z.msg : "invalid compressed data"));
    } else if (rc == Z_MEM_ERROR) {
      fail("out of memory while decompressing its gzip data");
    } else if (rc == Z_BUF_ERROR && z.avail_in != 0) {
      fail("corrupt gzip data (no progress)");
    }
  }
  return out_size_ > 0;
}

}  // namespace acclab::io
