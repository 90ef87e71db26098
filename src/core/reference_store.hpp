// The serial references kept across processes, in the folder ACCLAB_REFERENCE_DIR names (unset
// or empty: none kept, every process computes its own). A reference can take most of a run (the
// apsp seed's serial Floyd-Warshall about 30 s on two threads, for a GPU step of 0.03 s), and a
// check that runs each step in a process of its own (scripts/gpu-check.py) would compute the
// same one a dozen times.
//
// A file serves only the binary that wrote it (its path, inode, size and modification time) and
// the very key it was written for; its bytes end with a checksum. Anything else (another build,
// a partial or damaged file) is computed again and written over. Processes that ask for one
// reference at once wait for the first (a lock file beside it), so that it is computed once.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace acclab {

// Throws UsageError naming ACCLAB_REFERENCE_DIR when it is set and names no folder this process
// can create files in (it is created when missing). Called before a command's work, so that a
// long run never fails at its verification on a bad setting.
void check_reference_dir();

// One key's words: each element of a tuple (numbers in full precision, enums as their values),
// separated by spaces.
template <typename Key>
std::string reference_key_text(const Key& key) {
  std::string text;
  std::apply(
      [&](const auto&... element) {
        const auto append = [&](const auto& value) {
          using T = std::decay_t<decltype(value)>;
          if (!text.empty()) text += ' ';
          if constexpr (std::is_enum_v<T>) {
            text += fmt::format("{}", static_cast<std::underlying_type_t<T>>(value));
          } else {
            text += fmt::format("{}", value);  // shortest text that reads back the same
          }
        };
        (append(element), ...);
      },
      key);
  return text;
}

// Writes a reference's fields in order: a vector as its length then its elements, a scalar as
// its bytes. Keeps a checksum of every byte.
class ReferenceWriter {
 public:
  explicit ReferenceWriter(std::function<void(const void*, std::size_t)> sink)
      : sink_(std::move(sink)) {}
  template <typename T>
  void operator()(std::vector<T>& values) {
    static_assert(std::is_trivially_copyable_v<T>);
    const std::uint64_t count = values.size();
    put(&count, sizeof count);
    put(values.data(), count * sizeof(T));
  }
  template <typename T>
  void operator()(T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    put(&value, sizeof value);
  }
  std::uint64_t checksum() const { return checksum_; }

 private:
  void put(const void* data, std::size_t size);
  std::function<void(const void*, std::size_t)> sink_;
  std::uint64_t checksum_ = 14695981039346656037ull;  // FNV-1a's offset basis
};

// Reads the fields ReferenceWriter wrote, in the same order, from a file of `bytes` bytes. A
// short file, or a length longer than what is left, sets failed() (and reads nothing more).
class ReferenceReader {
 public:
  ReferenceReader(std::FILE* file, std::uint64_t bytes) : file_(file), left_(bytes) {}
  template <typename T>
  void operator()(std::vector<T>& values) {
    std::uint64_t count = 0;
    get(&count, sizeof count);
    if (failed_ || count > left_ / sizeof(T)) {
      failed_ = true;
      return;
    }
    values.resize(count);
    get(values.data(), count * sizeof(T));
  }
  template <typename T>
  void operator()(T& value) {
    get(&value, sizeof value);
  }
  bool failed() const { return failed_; }
  std::uint64_t left() const { return left_; }
  std::uint64_t checksum() const { return checksum_; }

 private:
  void get(void* data, std::size_t size);
  std::FILE* file_;
  std::uint64_t left_;
  bool failed_ = false;
  std::uint64_t checksum_ = 14695981039346656037ull;
};

// Visits a reference's fields: a std::vector is its one field; any other type says its own
// with a member `template <typename Visit> void fields(Visit&& visit)`.
template <typename Value, typename Visit>
void visit_reference_fields(Value& value, Visit& visit) {
  if constexpr (requires { value.fields(visit); }) {
    value.fields(visit);
  } else {
    visit(value);
  }
}

// The reference named `name` for the key `key_text`, in ACCLAB_REFERENCE_DIR: read from its
// file where that holds it, else computed and written (under the lock). Without the folder, just
// computed.
class StoredReference {
 public:
  // Takes the lock; nullopt when no folder is set, or its lock file cannot be opened (a warning
  // line then, and the reference is computed as without a folder).
  static std::optional<StoredReference> open(const std::string& name, const std::string& key_text);
  ~StoredReference();
  StoredReference(StoredReference&& other) noexcept;
  StoredReference(const StoredReference&) = delete;
  StoredReference& operator=(const StoredReference&) = delete;
  StoredReference& operator=(StoredReference&&) = delete;

  // Reads the fields with `read(ReferenceReader&)`; false when the file is missing, was written
  // for another binary or key, or is short or damaged.
  bool load(const std::function<void(ReferenceReader&)>& read);
  // Writes the fields with `write(ReferenceWriter&)`, replacing the file whole. A failure (disk
  // full) is a warning line: the reference is still the one computed.
  void save(const std::function<void(ReferenceWriter&)>& write);

  const std::filesystem::path& file() const { return file_; }

 private:
  StoredReference(std::filesystem::path file, std::string header, int lock);
  std::filesystem::path file_;
  std::string header_;  // the format, the binary and the key: what a file must begin with
  int lock_ = -1;
};

// The reference for a key: ACCLAB_REFERENCE_DIR's copy where it holds one, else compute()'s
// (kept there for the next process).
template <typename Value, typename Compute>
Value stored_or_computed(const std::string& name, const std::string& key_text,
                         Compute&& compute) {
  std::optional<StoredReference> stored = StoredReference::open(name, key_text);
  if (!stored) return std::forward<Compute>(compute)();
  Value value{};
  if (stored->load([&](ReferenceReader& in) { visit_reference_fields(value, in); })) return value;
  value = std::forward<Compute>(compute)();
  stored->save([&](ReferenceWriter& out) { visit_reference_fields(value, out); });
  return value;
}

}  // namespace acclab
