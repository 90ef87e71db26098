// The compiler's notes kept for a variant's source (acclab explain): GCC's -fopt-info-omp-all
// for OpenACC sources, ptxas's -v resource report for CUDA kernels. The build writes one notes
// file per source (cmake/AcclabVariants.cmake); these functions say which file a variant's notes
// are in and read it into what explain prints.
#pragma once

#include <filesystem>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/registry.hpp"

namespace acclab {

// Which notes a variant can have.
enum class NotesKind {
  cpu,             // a serial or OpenMP variant: nothing is offloaded, the compiler keeps none
  vendor_library,  // a CUDA variant in plain C++: it only calls a library NVIDIA compiled
  gcc,             // an OpenACC variant: GCC's -fopt-info-omp-all notes
  gcc_omptarget,   // an OpenMP target variant: GCC's notes of the libgomp calls its regions make
  ptxas,           // a CUDA variant with its own .cu kernels: ptxas -v
};

struct NotesSource {
  NotesKind kind = NotesKind::cpu;
  // The notes file relative to the notes folder ("vector/acc_loop.txt",
  // "jacobi2d/cuda.ptxas.txt"); empty for cpu and vendor_library.
  std::string file;
};

// A variant's notes: the file is named after its source, so variants sharing a source share it.
NotesSource notes_source(const Variant& variant);

// The first of `dirs` that holds `file`, as dir / file.
std::optional<std::filesystem::path> find_notes(const std::string& file,
                                                const std::vector<std::filesystem::path>& dirs);

// GCC's notes ("path:line:col: kind: message") grouped by file and line, each message once in
// the order first seen. Lines not in that form are skipped, and so are notes about variables
// made addressable (GCC's bookkeeping, silent on parallelism).
using GccNotes = std::map<std::string, std::map<int, std::vector<std::string>>>;
GccNotes parse_gcc_notes(std::istream& in);

// GCC 12 keeps no notes of its OpenMP target decisions (-fopt-info-omp is OpenACC's alone); its
// inlining notes (-fopt-info-omp-inline-missed) name every libgomp entry point a target region's
// outlined code calls. Of `notes`, the messages naming one (GOMP_*), each rewritten as "REGION
// calls ENTRY: what that does", REGION the outlined function (host code where none is named).
GccNotes target_region_calls(const GccNotes& notes);

// One kernel of a ptxas report: its name demangled where the C++ ABI can, and its resource
// lines ("Used 32 registers, ...", "0 bytes stack frame, ...") without ptxas's prefix. Resource
// lines before the first entry function go to a kernel with an empty name.
struct PtxasKernel {
  std::string name;
  std::vector<std::string> resources;
};
std::vector<PtxasKernel> parse_ptxas_notes(std::istream& in);

// The C++ name a mangled symbol stands for, or the symbol itself when it does not demangle.
std::string demangle(const std::string& symbol);

}  // namespace acclab
