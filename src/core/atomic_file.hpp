// Output files that appear whole or not at all, also when the run is interrupted.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace acclab {

// Throws UsageError naming `option` unless `path` can be created: its folder exists and is
// writable, the path itself is not a folder, and it is none of the command's `inputs` (which
// the result would replace). Called before any work, so that a long run never ends on a path
// it cannot write.
void check_output_path(const std::string& option, const std::filesystem::path& path,
                       const std::vector<std::filesystem::path>& inputs = {});

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
  void write(const void* data, std::size_t size);
  void write(std::string_view text) { write(text.data(), text.size()); }

  // Flushes to disk, then renames over the target: a crash leaves the old file or the whole new
  // one, never a renamed file with missing data. Throws UsageError when that fails.
  void commit();

  const std::filesystem::path& temporary() const { return temp_; }

 private:
  [[noreturn]] void fail(int error) const;

  std::filesystem::path target_, temp_;
  std::string option_;
  int fd_ = -1;
  int slot_ = -1;  // its place in the table the signal handler reads
  bool committed_ = false;
};

}  // namespace acclab
