// Every output path acclab writes (--out of run, ladder, apsp and iccg, plots, caches), so that
// an output never harms what it names:
//   - a regular file (or a new path) is written to a temporary beside it and renamed over it on
//     success: it is replaced whole or not at all, also when the run is interrupted;
//   - a symbolic link is followed (chains included) and its final target is treated as above:
//     the link itself stays a link, a dangling link's target is created;
//   - a character device (/dev/null, /dev/stdout, a terminal), a FIFO, or "-" (stdout) is
//     written directly, never unlinked or renamed over, even as root; write and close errors
//     (ENOSPC from /dev/full) are reported; a FIFO with no reader is waited for with a line on
//     stderr that says so, never in silence;
//   - a block device, a socket or a folder is refused before any work starts.
// docs/bad-input.md lists these rules with the rest of the contract.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace acclab {

// How an output path is written (rules at the top of this file).
enum class OutputKind { replace, direct };

// The file descriptor an output path names, where it names one of this process's own: "-" (1),
// /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N, or a link to one of them (a process
// substitution's >(...) is /dev/fd/N). Such an output is written to a duplicate of that
// descriptor, so that a redirection's file offset and O_APPEND hold (`--out /dev/stdout >> log`
// appends) and a pipe behind it is written, never resolved to a path.
std::optional<int> output_descriptor(const std::filesystem::path& path);

// The path an output is finally written to: `path` with its symbolic links followed, or `path`
// itself. Throws UsageError (naming `option`) for a link loop.
std::filesystem::path output_target(const std::string& option, const std::filesystem::path& path);

// Throws UsageError naming `option` unless `path` can be written: "-"; a character device or a
// FIFO that this process may write; otherwise (links followed) a path whose folder exists and is
// writable, that is not a folder, a block device or a socket, and that is none of the command's
// `inputs` (which the result would replace). Called before any work, so that a long run never
// ends on a path it cannot write.
void check_output_path(const std::string& option, const std::filesystem::path& path,
                       const std::vector<std::filesystem::path>& inputs = {});

// Installs, for SIGINT, SIGTERM and SIGHUP (where they still have their default course), the
// handler AtomicFile uses: it removes the temporaries, prints one line naming the signal (not
// under mpirun, which ends and reports its ranks itself), and lets the signal end the process
// as it would have (status 130, 143, 129). Called at start-up, so that a command stopped before
// it writes anything still says so.
void install_interrupt_handlers();

// A new file beside `path` (hidden, named after it and this process) that becomes `path` on
// commit() and is removed otherwise: by the destructor, and by a handler of SIGINT, SIGTERM,
// SIGHUP and SIGABRT when the process is stopped before either (the signal then takes its
// default course). Opening one also removes the temporaries of the same target that processes
// no longer alive left behind (killed with SIGKILL, say).
class AtomicFile {
 public:
  // `option` ("--out", or empty) comes before the path in error messages. Throws UsageError
  // when the file cannot be created there; check_output_path() first gives the clearer reason.
  AtomicFile(std::filesystem::path path, std::string option);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Appends bytes. Throws UsageError naming the file when the write fails (disk full).
  // A direct output (a device, a FIFO, "-") is opened at the first write, so that a FIFO's
  // reader is awaited after the work rather than before it.
  void write(const void* data, std::size_t size);
  void write(std::string_view text) { write(text.data(), text.size()); }

  // Flushes to disk, then renames over the target: a crash leaves the old file or the whole new
  // one, never a renamed file with missing data. A direct output is closed, its close error
  // reported. Throws UsageError when that fails.
  void commit();

  OutputKind kind() const { return kind_; }
  // The file being written: the temporary, or the target itself for a direct output.
  const std::filesystem::path& temporary() const {
    return kind_ == OutputKind::direct ? target_ : temp_;
  }

 private:
  [[noreturn]] void fail(int error) const;
  void open_direct();
  int await_fifo_reader() const;

  std::filesystem::path shown_, target_, temp_;  // shown_: the path as the user gave it
  std::string option_;
  OutputKind kind_ = OutputKind::replace;
  mode_t mode_ = 0;  // a replaced file's permissions, kept; 0 for a new file
  std::optional<int> descriptor_;  // output_descriptor(), for a direct output
  int fd_ = -1;
  int slot_ = -1;  // its place in the table the signal handler reads
  bool committed_ = false;
};

}  // namespace acclab
