#include "core/compiler_notes.hpp"

#include <cxxabi.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>

namespace acclab {

NotesSource notes_source(const Variant& variant) {
  if (variant.backend == Backend::serial || variant.backend == Backend::openmp) return {};
  const bool cuda = variant.backend == Backend::cuda;

  // acclab's own CUDA kernels live in .cu files; a CUDA variant whose source is plain C++ only
  // calls a vendor library (cuBLAS, cuSPARSE), whose kernels NVIDIA compiled.
  if (cuda && !variant.source.ends_with(".cu")) return {NotesKind::vendor_library, ""};
  const std::string stem = variant.source.substr(0, variant.source.rfind('.'));
  if (variant.backend == Backend::omptarget) {
    return {NotesKind::gcc_omptarget, variant.workload + "/" + stem + ".txt"};
  }
  return {cuda ? NotesKind::ptxas : NotesKind::gcc,
          variant.workload + "/" + stem + (cuda ? ".ptxas.txt" : ".txt")};
}

std::optional<std::filesystem::path> find_notes(const std::string& file,
                                                const std::vector<std::filesystem::path>& dirs) {
  for (const auto& dir : dirs) {
    std::error_code ignored;
    if (std::filesystem::exists(dir / file, ignored)) return dir / file;
  }
  return std::nullopt;
}

GccNotes parse_gcc_notes(std::istream& in) {
  GccNotes notes;
  std::string line;
  while (std::getline(in, line)) {
    const auto first = line.find(':');
    const auto second = first == std::string::npos ? first : line.find(':', first + 1);
    const auto third = second == std::string::npos ? second : line.find(':', second + 1);
    // "path:line:col: " and at least the space after the kind.
    if (third == std::string::npos || third + 2 > line.size()) continue;
    int line_number = 0;
    try {
      line_number = std::stoi(line.substr(first + 1, second - first - 1));
    } catch (const std::exception&) {
      continue;  // a colon in other text (a linker line, a path with a colon)
    }
    const std::string message = line.substr(third + 2);
    if (message.find("made addressable") != std::string::npos) continue;
    // GCC repeats a note for every construct a loop belongs to; once says it.
    auto& messages = notes[line.substr(0, first)][line_number];
    if (std::find(messages.begin(), messages.end(), message) == messages.end()) {
      messages.push_back(message);
    }
  }
  return notes;
}

namespace {

// What the libgomp entry points that GCC 12's OpenMP lowering calls do.
std::string_view entry_meaning(std::string_view entry) {
  if (entry == "GOMP_target_ext") return "launches a target region (one launch on the device)";
  if (entry == "GOMP_teams4") return "starts the league of teams (num_teams, thread_limit)";
  if (entry == "GOMP_parallel") return "starts the threads of each team (on nvptx: one per warp)";
  if (entry == "GOMP_target_data_ext") return "opens a target data region (maps)";
  if (entry == "GOMP_target_end_data") return "closes a target data region (copies back)";
  if (entry == "GOMP_target_enter_exit_data") return "enter/exit data (maps outside a region)";
  if (entry == "GOMP_target_update_ext") return "target update (a copy)";
  if (entry == "GOMP_barrier") return "a barrier of the team's threads";
  if (entry.starts_with("GOMP_loop")) return "a loop schedule handed out by the runtime";
  return "a libgomp entry point";
}

}  // namespace

GccNotes target_region_calls(const GccNotes& notes) {
  GccNotes calls;
  for (const auto& [file, lines] : notes) {
    for (const auto& [line, messages] : lines) {
      for (const auto& message : messages) {
        // "not inlinable: CALLER [clone ._omp_fn.N]/ID -> GOMP_x/ID, function body not available"
        const auto arrow = message.find("-> GOMP_");
        if (arrow == std::string::npos) continue;
        const auto begin = arrow + 3;
        const auto end = message.find_first_of("/, ", begin);
        const std::string entry = message.substr(begin, end - begin);
        const auto clone = message.find("[clone ");
        std::string region = "host code";
        if (clone != std::string::npos && clone < arrow) {
          const auto close = message.find(']', clone);
          region = message.substr(clone + 7, close - clone - 7);
        }
        auto& kept = calls[file][line];
        const std::string text =
            fmt::format("{} calls {}: {}", region, entry, entry_meaning(entry));
        if (std::find(kept.begin(), kept.end(), text) == kept.end()) kept.push_back(text);
      }
    }
  }
  return calls;
}

std::string demangle(const std::string& symbol) {
  int status = 0;
  char* readable = abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status);
  std::string name = status == 0 && readable ? std::string(readable) : symbol;
  std::free(readable);
  return name;
}

std::vector<PtxasKernel> parse_ptxas_notes(std::istream& in) {
  constexpr std::string_view entry_marker = "Compiling entry function '";
  std::vector<PtxasKernel> kernels;
  std::string line;
  while (std::getline(in, line)) {
    const auto entry = line.find(entry_marker);
    if (entry != std::string::npos) {
      const auto begin = entry + entry_marker.size(), end = line.find('\'', begin);
      kernels.push_back({demangle(line.substr(begin, end - begin)), {}});
    } else if (line.find("Used ") != std::string::npos ||
               line.find("bytes stack frame") != std::string::npos) {
      // "ptxas info    : Used 32 registers, ..." or "    0 bytes stack frame, ...".
      const auto colon = line.find(':');
      const auto start = line.find_first_not_of(' ', colon == std::string::npos ? 0 : colon + 1);
      if (start == std::string::npos) continue;
      if (kernels.empty()) kernels.push_back({});
      kernels.back().resources.push_back(line.substr(start));
    }
  }
  return kernels;
}

}  // namespace acclab
