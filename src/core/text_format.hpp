// How a time, a JSON document and a CSV field are written wherever acclab prints them: the runner's notes
// and progress as much as the reports (core/report.hpp), so they sit below both.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace acclab {

// "12.3 ms", "456 µs", "1.23 s".
std::string format_seconds(double seconds);

// value.dump(indent), every byte that is not part of well-formed UTF-8 written as U+FFFD. Every
// report acclab prints goes through it: strings from the command line (an --out path, a graph
// file's name) are bytes, and nlohmann::json's default dump throws on them, after all the work.
// So that such a string can still be recovered, a member KEY that is (or is a list holding) one
// gets a member KEY_bytes beside it with the exact bytes as numbers 0 to 255 (for a list, a
// list of the same length, null for each string that is UTF-8), as journald's JSON export does
// (docs/bad-input.md).
std::string json_text(const nlohmann::json& value, int indent = -1);

// `text` as one CSV field: as it is, or quoted (quotes doubled) where it holds a comma, a quote
// or a newline (RFC 4180).
std::string csv_field(const std::string& text);

// The width a table printed on stdout should fit: COLUMNS where it holds a positive number, else
// the terminal's (TIOCGWINSZ) where stdout is one, else 100 (a pipe, a file, a CI log).
std::size_t terminal_width();

// `text` broken at spaces into lines of at most `width` bytes (a word longer than that stands
// alone), every line after the first starting with `indent`; each line ends in '\n'.
std::string wrap_text(const std::string& text, std::size_t width, const std::string& indent = "");

}  // namespace acclab
