// The serial reference result of the last problem asked, kept for the next verify(): a ladder
// runs one problem through every variant, so the reference (often the slowest step of all) is
// computed once rather than once a variant; where ACCLAB_REFERENCE_DIR names a folder, once for
// every process that asks (core/reference_store.hpp).
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "core/reference_store.hpp"

namespace acclab {

// One entry: the value computed for the last key asked. `Key` is what changes the result: a
// std::tuple of the problem's parameters, compared with == and written into the stored file's
// key. `Value` is a std::vector or says its fields (reference_store.hpp). Thread-safe; one
// instance per reference, a function-local static beside the code that computes it.
template <typename Key, typename Value>
class ReferenceMemo {
 public:
  // `name` names the reference's files in ACCLAB_REFERENCE_DIR: one name a reference.
  explicit ReferenceMemo(std::string name) : name_(std::move(name)) {}

  // The value for `key`: the one kept when `key` equals the last key asked, else compute()'s,
  // which replaces it (or the stored copy of it). compute() runs under the lock, so that threads
  // asking for one problem at once compute it once; the old value is freed first, so that the
  // two are never held together. The reference stays valid until a call with another key.
  template <typename Compute>
  const Value& get(const Key& key, Compute&& compute) {
    std::lock_guard lock(mutex_);
    if (!entry_ || !(entry_->first == key)) {
      entry_.reset();
      entry_.emplace(key, stored_or_computed<Value>(name_, reference_key_text(key),
                                                    std::forward<Compute>(compute)));
    }
    return entry_->second;
  }

 private:
  std::string name_;
  std::mutex mutex_;
  std::optional<std::pair<Key, Value>> entry_;
};

}  // namespace acclab
