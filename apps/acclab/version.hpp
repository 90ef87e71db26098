// acclab --version: which acclab this is, from what code, built by which compiler, with which
// backends; what a bug report or a result's reader needs first.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace acclab {

// Schema acclab.version/1: version, commit, dirty, compiler, backends (each with whether it was
// built and, where it offloads, to what).
nlohmann::json version_json();

// The same, one fact a line.
std::string version_text();

}  // namespace acclab
