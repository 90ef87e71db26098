#include "core/reference_store.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "core/atomic_file.hpp"
#include "core/error.hpp"

namespace acclab {

namespace {

constexpr const char* kVariable = "ACCLAB_REFERENCE_DIR";

std::uint64_t fnv1a(std::uint64_t hash, const void* data, std::size_t size) {
  const auto* byte = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) hash = (hash ^ byte[i]) * 1099511628211ull;
  return hash;
}

std::optional<std::filesystem::path> reference_dir() {
  const char* dir = std::getenv(kVariable);
  if (dir == nullptr || *dir == '\0') return std::nullopt;
  return std::filesystem::path(dir);
}

// This binary, as a reference file must match it: a rebuild changes the modification time (and
// mostly the size), a copy elsewhere the inode.
std::string binary_identity() {
  struct stat info {};
  if (::stat("/proc/self/exe", &info) != 0) return "unknown";
  std::error_code error;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  return fmt::format("{} {}:{} {} {}.{:09}", exe.string(), info.st_dev, info.st_ino, info.st_size,
                     info.st_mtim.tv_sec, info.st_mtim.tv_nsec);
}

void warn(const std::string& what) {
  std::fprintf(stderr, "acclab: warning: %s=%s: %s\n", kVariable, std::getenv(kVariable),
               what.c_str());
}

}  // namespace

void check_reference_dir() {
  const auto dir = reference_dir();
  if (!dir) return;
  std::error_code error;
  std::filesystem::create_directories(*dir, error);
  if (error || !std::filesystem::is_directory(*dir)) {
    throw UsageError(fmt::format("{}={}: not a folder acclab can create ({})", kVariable,
                                 dir->string(), error ? error.message() : "a file is there"));
  }
  if (::access(dir->c_str(), W_OK | X_OK) != 0) {
    throw UsageError(fmt::format("{}={}: cannot create files there ({})", kVariable,
                                 dir->string(), std::strerror(errno)));
  }
}

void ReferenceWriter::put(const void* data, std::size_t size) {
  checksum_ = fnv1a(checksum_, data, size);
  sink_(data, size);
}

void ReferenceReader::get(void* data, std::size_t size) {
  if (failed_ || size > left_ || std::fread(data, 1, size, file_) != size) {
    failed_ = true;
    return;
  }
  left_ -= size;
  checksum_ = fnv1a(checksum_, data, size);
}

StoredReference::StoredReference(std::filesystem::path file, std::string header, int lock)
    : file_(std::move(file)), header_(std::move(header)), lock_(lock) {}

StoredReference::StoredReference(StoredReference&& other) noexcept
    : file_(std::move(other.file_)), header_(std::move(other.header_)), lock_(other.lock_) {
  other.lock_ = -1;
}

StoredReference::~StoredReference() {
  if (lock_ >= 0) ::close(lock_);  // and with it the lock
}

std::optional<StoredReference> StoredReference::open(const std::string& name,
                                                     const std::string& key_text) {
  const auto dir = reference_dir();
  if (!dir) return std::nullopt;
  std::string header = fmt::format("acclab.reference/1\nbinary {}\n{} {}\n", binary_identity(),
                                   name, key_text);
  const std::uint64_t hash = fnv1a(14695981039346656037ull, header.data(), header.size());
  std::filesystem::path file = *dir / fmt::format("{}-{:016x}.ref", name, hash);
  const std::filesystem::path lock_file = file.string() + ".lock";
  const int lock = ::open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock < 0) {
    warn(fmt::format("cannot open {} ({}): the reference is computed here", lock_file.string(),
                     std::strerror(errno)));
    return std::nullopt;
  }
  // Whoever holds it is computing this very reference: waiting costs less than computing it too.
  int locked;
  do {
    locked = ::flock(lock, LOCK_EX);
  } while (locked != 0 && errno == EINTR);
  if (locked != 0) {
    warn(fmt::format("cannot lock {} ({}): the reference is computed here", lock_file.string(),
                     std::strerror(errno)));
    ::close(lock);
    return std::nullopt;
  }
  return StoredReference(std::move(file), std::move(header), lock);
}

bool StoredReference::load(const std::function<void(ReferenceReader&)>& read) {
  std::FILE* in = std::fopen(file_.c_str(), "rb");
  if (in == nullptr) return false;
  struct stat info {};
  bool good = ::fstat(::fileno(in), &info) == 0 &&
              std::uint64_t(info.st_size) >= header_.size() + sizeof(std::uint64_t);
  if (good) {
    std::string header(header_.size(), '\0');
    good = std::fread(header.data(), 1, header.size(), in) == header.size() && header == header_;
  }
  if (good) {
    ReferenceReader reader(in, std::uint64_t(info.st_size) - header_.size() - sizeof(std::uint64_t));
    read(reader);
    std::uint64_t checksum = 0;
    good = !reader.failed() && reader.left() == 0 &&
           std::fread(&checksum, 1, sizeof checksum, in) == sizeof checksum &&
           checksum == reader.checksum();
  }
  std::fclose(in);
  return good;
}

void StoredReference::save(const std::function<void(ReferenceWriter&)>& write) {
  try {
    AtomicFile out(file_, kVariable);
    out.write(header_);
    ReferenceWriter writer([&](const void* data, std::size_t size) { out.write(data, size); });
    write(writer);
    const std::uint64_t checksum = writer.checksum();
    out.write(&checksum, sizeof checksum);
    out.commit();
  } catch (const std::exception& e) {
    warn(fmt::format("{} not kept: {}", file_.string(), e.what()));
  }
}

}  // namespace acclab
