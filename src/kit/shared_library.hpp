// A shared library opened when first needed (dlopen) rather than linked, for the CUDA libraries
// one variant uses (cuBLAS, cuSPARSE): linked, they would be loaded by every acclab process,
// bad input included, at a cost of tens to hundreds of megabytes and a tenth of a second.
#pragma once

#include <dlfcn.h>
#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace acclab {

class SharedLibrary {
 public:
  // Throws std::runtime_error naming the library when it cannot be loaded.
  explicit SharedLibrary(std::string name) : name_(std::move(name)) {
    handle_ = dlopen(name_.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) throw std::runtime_error(fmt::format("cannot load {}: {}", name_, dlerror()));
  }
  // Never closed: function pointers taken from it stay valid for the process.
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;

  // Sets `function` to the library's `symbol`; throws when it has none.
  template <typename F>
  void bind(F& function, const char* symbol) const {
    static_assert(std::is_pointer_v<F>);
    function = reinterpret_cast<F>(dlsym(handle_, symbol));
    if (!function) throw std::runtime_error(fmt::format("{}: no {}", name_, symbol));
  }

 private:
  std::string name_;
  void* handle_ = nullptr;
};

}  // namespace acclab
