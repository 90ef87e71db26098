#include "apps/acclab/standard_output.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <stdio_ext.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "apps/acclab/safe_text.hpp"

namespace acclab::standard_output {
namespace {

off_t start_offset = -1;  // where a regular file behind standard output started; -1: none
int noted_error = 0;

// Why an earlier write to standard output failed, where stdio kept only that it did (glibc
// drops the buffer and the errno is long overwritten): a regular file reports a full file
// system; anything else is asked again with one byte, which fails as the lost write did (a
// pipe with no reader, /dev/full, a closed descriptor) or, where it passes, adds a newline to an
// output already known to be cut. 0 where no reason can be found.
int lost_reason() {
  struct stat info {};
  if (::fstat(STDOUT_FILENO, &info) != 0) return errno;
  if (S_ISREG(info.st_mode)) {
    struct statvfs space {};
    if (::fstatvfs(STDOUT_FILENO, &space) == 0 && space.f_bavail == 0) return ENOSPC;
    return 0;
  }
  if (::write(STDOUT_FILENO, "\n", 1) < 0) return errno;
  return 0;
}

}  // namespace

void begin() {
  // A command started with a standard descriptor closed (`acclab list >&-`) would hand that
  // number to the next file it opens, and write its results into that file: each gets
  // /dev/null instead, standard output read-only so that writing to it still fails (EBADF).
  for (const int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) {
    if (::fcntl(fd, F_GETFD) >= 0 || errno != EBADF) continue;
    const int null = ::open("/dev/null", fd == STDERR_FILENO ? O_WRONLY : O_RDONLY);
    if (null >= 0 && null != fd) {
      ::dup2(null, fd);
      ::close(null);
    }
  }
  struct stat info {};
  if (::fstat(STDOUT_FILENO, &info) != 0 || !S_ISREG(info.st_mode)) return;
  const int flags = ::fcntl(STDOUT_FILENO, F_GETFL);
  if (flags < 0 || (flags & O_APPEND) != 0) return;  // >>: other writers may share the end
  start_offset = ::lseek(STDOUT_FILENO, 0, SEEK_CUR);
}

void note_failure(int error) {
  if (noted_error == 0) noted_error = error;
}

int finish(int status) {
  // std::cout writes through stdio (synchronised), so its flush is stdio's: the errno of the
  // first flush that fails is the reason, whichever of the two it was.
  int error = 0;
  errno = 0;
  std::cout.flush();
  if (std::ferror(stdout) != 0) error = errno;
  if (std::fflush(stdout) != 0 && error == 0) error = errno;
  bool failed = error != 0 || std::ferror(stdout) != 0 || std::cout.bad() || noted_error != 0;
  // A file system may report a write error only when the file is closed (NFS): close a
  // duplicate, so that standard output itself stays open for whatever runs after.
  if (!failed) {
    const int duplicate = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
    if (duplicate >= 0 && ::close(duplicate) != 0 && errno != EINTR) {
      error = errno;
      failed = true;
    }
  }
  if (!failed) return status;
  if (error == 0) error = noted_error;
  if (error == 0) error = lost_reason();
  // What stdio still holds would otherwise be written again at exit, past the cut below.
  ::__fpurge(stdout);
  std::string taken_back;
  if (start_offset >= 0) {
    const off_t end = ::lseek(STDOUT_FILENO, 0, SEEK_CUR);
    if (end > start_offset && ::ftruncate(STDOUT_FILENO, start_offset) == 0 &&
        ::lseek(STDOUT_FILENO, start_offset, SEEK_SET) == start_offset) {
      taken_back = fmt::format("; the {} bytes that did arrive were removed",
                               static_cast<long long>(end - start_offset));
    }
  }
  print_error_line(fmt::format("standard output: cannot write ({}){}",
                               error != 0 ? std::strerror(error) : "write error", taken_back));
  std::fflush(stderr);
  return status == 0 ? 2 : status;
}

}  // namespace acclab::standard_output
