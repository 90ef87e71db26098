#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <optional>
#include <string_view>

#include "core/error.hpp"
#include "core/mpi_env.hpp"

namespace acclab {
namespace {

// The temporaries a signal handler must remove. Fixed storage, because a handler may only call
// async-signal-safe functions (unlink, sigaction, raise): no allocation, no locks.
constexpr int max_temporaries = 32;
constexpr std::size_t max_path = 4096;
constexpr int free_slot = 0, writing_slot = 1, active_slot = 2;
struct Slot {
  std::atomic<int> state{free_slot};
  char path[max_path];
};
std::array<Slot, max_temporaries> temporaries;
std::once_flag handlers_installed;
constexpr std::array<int, 4> cleanup_signals = {SIGINT, SIGTERM, SIGHUP, SIGABRT};

// What the handler writes before the signal takes its course, so that an interrupted command
// never ends without a word (the shell's status 130 or 143 alone does not say which program
// stopped). SIGABRT has its own message from whoever aborted.
const char* stop_line(int signal_number) {
  switch (signal_number) {
    case SIGINT: return "acclab: interrupted (SIGINT)\n";
    case SIGTERM: return "acclab: terminated (SIGTERM)\n";
    case SIGHUP: return "acclab: hung up (SIGHUP)\n";
    default: return nullptr;
  }
}

// Under mpirun the ranks' signals are mpirun's business: it ends the other ranks with SIGTERM
// once one has left with an error, and it reports an interrupt itself. A line per rank there
// would only add to the one line of the error. Set once, before any handler can run.
bool say_stops = true;

extern "C" void remove_temporaries_and_reraise(int signal_number) {
  for (auto& slot : temporaries) {
    if (slot.state.load() == active_slot) ::unlink(slot.path);
  }
  if (const char* line = say_stops ? stop_line(signal_number) : nullptr) {
    // After a progress line redrawn in place on a terminal, the message starts a line of its own.
    if (::isatty(STDERR_FILENO) == 1) {
      [[maybe_unused]] const ssize_t ignored = ::write(STDERR_FILENO, "\n", 1);
    }
    [[maybe_unused]] const ssize_t ignored = ::write(STDERR_FILENO, line, std::strlen(line));
  }
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  ::sigaction(signal_number, &fallback, nullptr);
  ::raise(signal_number);
}

// Only where the signal still has its default course: a handler someone else installed (a
// debugger's, a test runner's) is left alone, and so is a signal the shell ignores (a command
// started with `nohup` or in the background of a non-interactive shell keeps ignoring it).
void install_handlers() {
  for (int signal_number : cleanup_signals) {
    struct sigaction current {};
    if (::sigaction(signal_number, nullptr, &current) != 0) continue;
    if (current.sa_handler != SIG_DFL) continue;
    struct sigaction handler {};
    handler.sa_handler = remove_temporaries_and_reraise;
    sigemptyset(&handler.sa_mask);
    ::sigaction(signal_number, &handler, nullptr);
  }
}

int claim_slot(const std::filesystem::path& temp) {
  const std::string& text = temp.native();
  if (text.size() >= max_path) return -1;
  for (int i = 0; i < max_temporaries; ++i) {
    auto& slot = temporaries[i];
    int expected = free_slot;
    if (!slot.state.compare_exchange_strong(expected, writing_slot)) continue;
    std::memcpy(slot.path, text.c_str(), text.size() + 1);
    slot.state.store(active_slot);  // only now may the handler read the path
    return i;
  }
  return -1;  // more open outputs than slots: this one is still removed by the destructor
}

void release_slot(int index) {
  if (index >= 0) temporaries[index].state.store(free_slot);
}

// ".NAME.tmp-PID-N", the name AtomicFile gives its temporaries.
std::string temporary_prefix(const std::filesystem::path& target) {
  // fmt rather than operator+: GCC 12 warns falsely (-Wrestrict) on "." + std::string.
  return fmt::format(".{}.tmp-", target.filename().string());
}

// Removes the temporaries of `target` whose process has ended.
void remove_stale_temporaries(const std::filesystem::path& target) {
  const std::filesystem::path folder =
      target.parent_path().empty() ? std::filesystem::path(".") : target.parent_path();
  const std::string prefix = temporary_prefix(target);
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const char* first = name.data() + prefix.size();
    const char* last = name.data() + name.size();
    long pid = 0;
    const auto [end, parsed] = std::from_chars(first, last, pid);
    if (parsed != std::errc() || end == first || *end != '-' || pid <= 0) continue;
    if (pid == ::getpid()) continue;
    if (::kill(pid_t(pid), 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to judge
    std::error_code ignored;
    std::filesystem::remove(entry.path(), ignored);
  }
}

}  // namespace

void install_interrupt_handlers() {
  say_stops = !mpi::launched_by_mpirun();
  std::call_once(handlers_installed, install_handlers);
}

namespace {

// N of "/dev/fd/N" or "/proc/self/fd/N", or nothing.
std::optional<int> descriptor_in(const std::string& text) {
  for (const std::string_view prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    if (text.rfind(prefix, 0) != 0) continue;
    int fd = -1;
    const char* first = text.data() + prefix.size();
    const char* last = text.data() + text.size();
    const auto [end, parsed] = std::from_chars(first, last, fd);
    if (parsed == std::errc() && end == last && fd >= 0) return fd;
  }
  return std::nullopt;
}

}  // namespace

std::optional<int> output_descriptor(const std::filesystem::path& path) {
  const std::string& text = path.native();
  if (text == "-" || text == "/dev/stdout") return STDOUT_FILENO;
  if (text == "/dev/stderr") return STDERR_FILENO;
  if (text == "/dev/stdin") return STDIN_FILENO;
  if (const auto fd = descriptor_in(text)) return fd;
  // A link to one of them (a user's link to /dev/stdout): followed as output_target does.
  std::filesystem::path current = path;
  for (int hop = 0; hop < 40; ++hop) {
    struct stat info {};
    if (::lstat(current.c_str(), &info) != 0 || !S_ISLNK(info.st_mode)) return std::nullopt;
    std::error_code error;
    const std::filesystem::path link = std::filesystem::read_symlink(current, error);
    if (error) return std::nullopt;
    current = link.is_absolute() ? link : current.parent_path() / link;
    const std::string& hop_text = current.native();
    if (hop_text == "/dev/stdout") return STDOUT_FILENO;
    if (hop_text == "/dev/stderr") return STDERR_FILENO;
    if (const auto fd = descriptor_in(hop_text)) return fd;
  }
  return std::nullopt;
}

std::filesystem::path output_target(const std::string& option, const std::filesystem::path& path) {
  // As the kernel follows links on open (40 hops at most), but by hand, so that the rename of a
  // replaced file lands on the link's final target and the link stays a link.
  std::filesystem::path current = path;
  for (int hop = 0; hop < 40; ++hop) {
    struct stat info {};
    if (::lstat(current.c_str(), &info) != 0 || !S_ISLNK(info.st_mode)) return current;
    std::error_code error;
    const std::filesystem::path link = std::filesystem::read_symlink(current, error);
    if (error) {
      throw UsageError(fmt::format("{} {}: cannot read the symbolic link ({})", option,
                                   path.string(), error.message()));
    }
    current = link.is_absolute() ? link : current.parent_path() / link;
  }
  throw UsageError(
      fmt::format("{} {}: too many levels of symbolic links", option, path.string()));
}

namespace {

// Why a path that exists cannot take an output, or nothing when it can.
std::optional<std::string> refused_kind(mode_t mode) {
  if (S_ISREG(mode) || S_ISCHR(mode) || S_ISFIFO(mode)) return std::nullopt;
  const char* what = S_ISDIR(mode)    ? "is a directory"
                     : S_ISBLK(mode)  ? "is a block device"
                     : S_ISSOCK(mode) ? "is a socket"
                                      : "is not a regular file";
  return fmt::format("{}; an output is a regular file, a character device, a FIFO or -", what);
}

}  // namespace

void check_output_path(const std::string& option, const std::filesystem::path& path,
                       const std::vector<std::filesystem::path>& inputs) {
  if (path.empty()) throw UsageError(fmt::format("{}: empty path", option));
  if (const auto fd = output_descriptor(path)) {
    const int flags = ::fcntl(*fd, F_GETFL);
    if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY) {
      throw UsageError(fmt::format("{} {}: file descriptor {} is not open for writing", option,
                                   path.string(), *fd));
    }
    return;
  }
  const std::filesystem::path target = output_target(option, path);
  const std::string shown = target == path ? path.string()
                                           : fmt::format("{} (a link to {})", path.string(),
                                                         target.string());
  struct stat info {};
  if (::stat(target.c_str(), &info) == 0) {
    if (const auto why = refused_kind(info.st_mode)) {
      throw UsageError(fmt::format("{} {}: {}", option, shown, *why));
    }
    if (S_ISCHR(info.st_mode) || S_ISFIFO(info.st_mode)) {
      if (::access(target.c_str(), W_OK) != 0) {
        throw UsageError(
            fmt::format("{} {}: cannot write ({})", option, shown, std::strerror(errno)));
      }
      return;  // written directly: its folder is not written
    }
  }
  const std::filesystem::path folder =
      target.parent_path().empty() ? "." : target.parent_path();
  std::error_code error;
  if (!std::filesystem::is_directory(folder, error)) {
    throw UsageError(fmt::format("{} {}: no directory {}", option, shown, folder.string()));
  }
  if (::access(folder.c_str(), W_OK) != 0) {
    throw UsageError(
        fmt::format("{} {}: cannot write in {}", option, shown, folder.string()));
  }
  for (const auto& input : inputs) {
    if (!input.empty() && std::filesystem::equivalent(target, input, error)) {
      throw UsageError(fmt::format("{} {}: is the input {}, which the result would replace",
                                   option, shown, input.string()));
    }
  }
}

AtomicFile::AtomicFile(std::filesystem::path path, std::string option)
    : shown_(std::move(path)), option_(std::move(option)) {
  if ((descriptor_ = output_descriptor(shown_))) {
    target_ = shown_;
    kind_ = OutputKind::direct;
    return;
  }
  target_ = output_target(option_, shown_);
  struct stat info {};
  if (::stat(target_.c_str(), &info) == 0) {
    if (const auto why = refused_kind(info.st_mode)) {
      throw UsageError(fmt::format("{}{}: {}", option_.empty() ? "" : option_ + " ",
                                   shown_.string(), *why));
    }
    if (!S_ISREG(info.st_mode)) {
      kind_ = OutputKind::direct;
      return;
    }
    mode_ = info.st_mode & 07777;
  }
  std::call_once(handlers_installed, install_handlers);
  remove_stale_temporaries(target_);
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    temp_ = target_;
    temp_.replace_filename(
        fmt::format("{}{}-{}", temporary_prefix(target_), ::getpid(), counter.fetch_add(1)));
    // Registered before it exists, so that no signal can leave it behind unrecorded.
    slot_ = claim_slot(temp_);
    // 0666 so that a new file gets the user's umask, as any other new file does.
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ >= 0) return;
    const int error = errno;
    release_slot(slot_);
    slot_ = -1;
    if (error != EEXIST) fail(error);
  }
  fail(EEXIST);
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (kind_ == OutputKind::replace && !committed_) ::unlink(temp_.c_str());
  release_slot(slot_);
}

void AtomicFile::open_direct() {
  if (descriptor_) {
    // What the command printed so far comes first.
    std::cout.flush();
    std::fflush(stdout);
    std::fflush(stderr);
    fd_ = ::fcntl(*descriptor_, F_DUPFD_CLOEXEC, 0);
  } else {
    // No O_CREAT, no O_TRUNC: the node exists, and it is written, never replaced.
    fd_ = ::open(target_.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd_ < 0 && errno == ENXIO) fd_ = await_fifo_reader();
    // Non-blocking only to find out whether a FIFO has a reader: the writes block as usual.
    if (fd_ >= 0) {
      const int flags = ::fcntl(fd_, F_GETFL);
      if (flags < 0 || ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK) != 0) fail(errno);
    }
  }
  if (fd_ < 0) fail(errno);
}

int AtomicFile::await_fifo_reader() const {
  // A blocking open would wait in silence for as long as nobody reads: say why acclab waits,
  // then look for a reader ten times a second (SIGINT and SIGTERM stop it with their line).
  std::cout.flush();
  std::fflush(stdout);
  fmt::print(stderr, "acclab: {}{}: waiting for a reader of this FIFO (Ctrl-C stops)\n",
             option_.empty() ? "" : option_ + " ", shown_.string());
  std::fflush(stderr);
  for (;;) {
    const int fd = ::open(target_.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd >= 0 || errno != ENXIO) return fd;
    const struct timespec tenth = {0, 100'000'000};
    ::nanosleep(&tenth, nullptr);
  }
}

void AtomicFile::write(const void* data, std::size_t size) {
  if (fd_ < 0 && kind_ == OutputKind::direct && !committed_) open_direct();
  const auto* bytes = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t written = ::write(fd_, bytes, size);
    if (written < 0) {
      if (errno == EINTR) continue;
      fail(errno);
    }
    bytes += written;
    size -= static_cast<std::size_t>(written);
  }
}

void AtomicFile::commit() {
  if (kind_ == OutputKind::direct) {
    if (fd_ < 0) open_direct();
    const int fd = fd_;
    fd_ = -1;
    committed_ = true;
    if (::close(fd) != 0 && errno != EINTR) fail(errno);
    return;
  }
  // The replaced file's permissions, not the umask's: replacing a file's content must not
  // change who may read it.
  if (mode_ != 0 && ::fchmod(fd_, mode_) != 0) fail(errno);
  if (::fsync(fd_) != 0) fail(errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail(errno);
  if (std::rename(temp_.c_str(), target_.c_str()) != 0) fail(errno);
  committed_ = true;
  release_slot(slot_);
  slot_ = -1;
}

void AtomicFile::fail(int error) const {
  throw UsageError(fmt::format("{}{}: cannot write ({})", option_.empty() ? "" : option_ + " ",
                               shown_.string(), std::strerror(error)));
}

}  // namespace acclab
