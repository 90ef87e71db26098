// Bytes that may not be text: what acclab does with a string that is not UTF-8 (or that holds
// control bytes) before it reaches a terminal. Header-only and free of apps/, so that src/core
// (mpi_env.cpp's last line before an abort) escapes what it writes as the command line does.
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace acclab {

// The length of the well-formed UTF-8 sequence that starts text[i] (1 to 4), or 0 where the
// bytes there are not one: a stray continuation byte, a truncated sequence, an overlong form, a
// UTF-16 surrogate or a code point past U+10FFFF (RFC 3629's table).
inline std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xbf;  // the range of the byte after the lead
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead == 0xe0) low = 0xa0;   // overlong
    if (lead == 0xed) high = 0x9f;  // surrogates
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead == 0xf0) low = 0x90;   // overlong
    if (lead == 0xf4) high = 0x8f;  // past U+10FFFF
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (std::size_t k = 2; k < length; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xbf) return 0;
  }
  return length;
}

inline bool is_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = utf8_sequence_length(text, i);
    if (length == 0) return false;
    i += length;
  }
  return true;
}

// `text` as a terminal may show it: every byte that would not print as itself written as \xNN
// (C0 controls, DEL, C1 controls, bytes that are not well-formed UTF-8), so that an argument
// cannot move the cursor, recolour the terminal or leave mojibake. Well-formed UTF-8 text,
// accents and CJK included, is kept as it is.
inline std::string printable(std::string_view text) {
  std::string shown;
  shown.reserve(text.size());
  const auto escape = [&](std::string_view bytes) {
    for (const char c : bytes) shown += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
  };
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = utf8_sequence_length(text, i);
    const auto lead = static_cast<unsigned char>(text[i]);
    const bool c1 = length == 2 && lead == 0xc2 && static_cast<unsigned char>(text[i + 1]) < 0xa0;
    if (length == 0) {
      escape(text.substr(i, 1));
      i += 1;
    } else if ((length == 1 && (lead < 0x20 || lead == 0x7f)) || c1) {
      escape(text.substr(i, length));
      i += length;
    } else {
      shown.append(text.substr(i, length));
      i += length;
    }
  }
  return shown;
}

}  // namespace acclab
