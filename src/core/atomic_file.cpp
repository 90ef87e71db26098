#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <mutex>

#include "core/error.hpp"

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

extern "C" void remove_temporaries_and_reraise(int signal_number) {
  for (auto& slot : temporaries) {
    if (slot.state.load() == active_slot) ::unlink(slot.path);
  }
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  ::sigaction(signal_number, &fallback, nullptr);
  ::raise(signal_number);
}

// Only where the signal still has its default course: a handler someone else installed (a
// debugger's, a test runner's) is left alone.
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

void check_output_path(const std::string& option, const std::filesystem::path& path,
                       const std::vector<std::filesystem::path>& inputs) {
  if (path.empty()) throw UsageError(fmt::format("{}: empty path", option));
  const std::filesystem::path folder = path.parent_path().empty() ? "." : path.parent_path();
  std::error_code error;
  if (!std::filesystem::is_directory(folder, error)) {
    throw UsageError(
        fmt::format("{} {}: no directory {}", option, path.string(), folder.string()));
  }
  if (std::filesystem::is_directory(path, error)) {
    throw UsageError(fmt::format("{} {}: is a directory", option, path.string()));
  }
  if (::access(folder.c_str(), W_OK) != 0) {
    throw UsageError(
        fmt::format("{} {}: cannot write in {}", option, path.string(), folder.string()));
  }
  for (const auto& input : inputs) {
    if (!input.empty() && std::filesystem::equivalent(path, input, error)) {
      throw UsageError(fmt::format("{} {}: is the input {}, which the result would replace",
                                   option, path.string(), input.string()));
    }
  }
}

AtomicFile::AtomicFile(std::filesystem::path path, std::string option)
    : target_(std::move(path)), option_(std::move(option)) {
  std::call_once(handlers_installed, install_handlers);
  remove_stale_temporaries(target_);
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    temp_ = target_;
    temp_.replace_filename(
        fmt::format("{}{}-{}", temporary_prefix(target_), ::getpid(), counter.fetch_add(1)));
    // Registered before it exists, so that no signal can leave it behind unrecorded.
    slot_ = claim_slot(temp_);
    // 0666 so that the final file gets the user's umask, as any other new file does.
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
  if (!committed_) ::unlink(temp_.c_str());
  release_slot(slot_);
}

void AtomicFile::write(const void* data, std::size_t size) {
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
                               target_.string(), std::strerror(error)));
}

}  // namespace acclab
