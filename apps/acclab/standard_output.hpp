// Whether what a command wrote to standard output arrived: the last check of every command, as
// coreutils' close_stdout is. A redirection into a full file system, /dev/full, a closed
// descriptor or a pipe whose reader left would otherwise end with status 0 and a result cut off
// or missing, which a script that trusts the status keeps.
#pragma once

#include <string>

namespace acclab::standard_output {

// Called first thing in main: gives a closed standard descriptor /dev/null (standard output
// read-only, so that writes to it still fail), and notes where a regular file behind standard
// output starts, so that a failed command can take back the part of its output that did arrive.
void begin();

// Records why a write to standard output failed where the writer reported it (fmt throws
// std::system_error with the errno); finish() reports it.
void note_failure(int error);

// Flushes standard output and checks that everything written to it arrived. When it did not:
// one line on stderr naming standard output and the reason, and where standard output is a
// regular file that acclab alone writes from where it started (not O_APPEND), the bytes this
// command left in it are removed, so that a cut-off JSON document is never left behind. Returns
// `status`, or 2 where it was 0 and the output was lost.
int finish(int status);

}  // namespace acclab::standard_output
