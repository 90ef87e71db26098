// The console table of acclab run and ladder (--format table): the columns that fit the
// terminal, their notes as numbered footnotes, or with --wide every column and whole notes.
// report.cpp's make_reporter gives it; nothing else needs its type.
#pragma once

#include <memory>
#include <ostream>

#include "core/report.hpp"

namespace acclab {

std::unique_ptr<Reporter> make_table_reporter(std::ostream& out);

}  // namespace acclab
