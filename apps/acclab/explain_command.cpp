// acclab explain WORKLOAD/VARIANT: reads the notes the build kept and prints them.
#include "explain_command.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "core/build_config.hpp"
#include "core/compiler_notes.hpp"
#include "core/error.hpp"

namespace acclab {
namespace {

// GCC's notes beside the source lines they concern, when the source is readable here.
void print_gcc_notes(const GccNotes& by_file) {
  for (const auto& [path, lines] : by_file) {
    if (by_file.size() > 1) fmt::print("{}\n", path);
    std::map<int, std::string> source_lines;
    std::ifstream source(path);
    std::string line;
    for (int number = 1; std::getline(source, line); ++number) {
      if (lines.count(number)) source_lines[number] = line;
    }
    for (const auto& [number, messages] : lines) {
      fmt::print("{:>5} | {}\n", number,
                 source_lines.count(number) ? source_lines[number] : "(source not here)");
      for (const auto& message : messages) fmt::print("      ^ {}\n", message);
    }
  }
}

}  // namespace

int explain_command(const std::string& target, const Registry& registry) {
  const auto slash = target.find('/');
  if (slash == std::string::npos) {
    throw UsageError(fmt::format("explain {}: expected WORKLOAD/VARIANT", target));
  }
  const std::string workload = target.substr(0, slash), name = target.substr(slash + 1);
  registry.workload(workload);
  const Variant* variant = nullptr;
  for (const auto& v : registry.variants()) {
    if (v.workload == workload && v.name == name) variant = &v;
  }
  if (!variant) {
    throw UsageError(fmt::format("explain {}: {} has no variant '{}' (see acclab list)", target,
                                 workload, name));
  }
  fmt::print("{}  step {} of {}, {}: {}\n", variant->id(), variant->step, variant->family,
             to_string(variant->backend), variant->description);
  fmt::print("source    workloads/{}/{}\n", workload, variant->source);
  const NotesSource source = notes_source(*variant);
  if (source.kind == NotesKind::cpu) {
    fmt::print("A CPU variant: the compiler keeps no offload notes for it.\n");
    return 0;
  }
  if (source.kind == NotesKind::vendor_library) {
    fmt::print(
        "A vendor library variant: its GPU kernels are the library's, built by NVIDIA, so acclab "
        "keeps no compiler notes for them.\n");
    return 0;
  }
  std::error_code ignored;
  const auto exe_dir = std::filesystem::read_symlink("/proc/self/exe", ignored).parent_path();
  // Beside the binary (the GPU bundle), where `cmake --install` puts them, or in the build.
  const auto notes = find_notes(source.file, {exe_dir / "notes",
                                              exe_dir.parent_path() / "share" / "acclab" / "notes",
                                              std::filesystem::path(ACCLAB_NOTES_DIR)});
  if (!notes) {
    throw UsageError(fmt::format("explain {}: no compiler notes for {} beside the binary or in {}",
                                 target, source.file, ACCLAB_NOTES_DIR));
  }
  fmt::print("notes     {}\n\n", notes->string());
  std::ifstream in(*notes);
  if (source.kind == NotesKind::ptxas) {
    std::size_t reported = 0;
    for (const auto& kernel : parse_ptxas_notes(in)) {
      if (!kernel.name.empty()) fmt::print("kernel {}\n", kernel.name);
      for (const auto& resources : kernel.resources) fmt::print("  {}\n", resources);
      reported += kernel.resources.size();
    }
    if (reported == 0) {
      throw UsageError(fmt::format("explain {}: {} holds no ptxas report (rebuild acclab)", target,
                                   notes->string()));
    }
    return 0;
  }
  GccNotes by_file = parse_gcc_notes(in);
  if (source.kind == NotesKind::gcc_omptarget) {
    fmt::print(
        "GCC 12 keeps no notes of its OpenMP target decisions; these are the libgomp calls each "
        "target region's code makes (GOMP_DEBUG=1 at run time prints each launch's teams and "
        "threads).\n\n");
    by_file = target_region_calls(by_file);
  }
  if (by_file.empty()) {
    throw UsageError(
        fmt::format("explain {}: {} holds no notes (rebuild acclab)", target, notes->string()));
  }
  std::size_t sharing = 0;
  for (const auto& v : registry.variants()) {
    sharing += v.workload == workload && v.source == variant->source;
  }
  if (sharing > 1) {
    fmt::print("({} holds {} variants: the notes cover the whole file)\n\n", variant->source,
               sharing);
  }
  print_gcc_notes(by_file);
  return 0;
}

}  // namespace acclab
