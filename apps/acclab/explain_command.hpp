// acclab explain WORKLOAD/VARIANT: what the compiler decided for a variant's source.
#pragma once

#include <string>

#include "core/registry.hpp"

namespace acclab {

// Prints the variant's step and source, then its compiler notes (core/compiler_notes.hpp): for
// OpenACC each note beside the source line it concerns, for CUDA each kernel's registers,
// shared memory and spills. Looks for the notes beside the binary first (a GPU bundle), then in
// the build tree. Throws UsageError for an unknown target or missing or empty notes. Returns 0.
int explain_command(const std::string& target, const Registry& registry);

}  // namespace acclab
