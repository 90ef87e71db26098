#include "apps/acclab/version.hpp"

#include <fmt/format.h>

#include "apps/acclab/report_command.hpp"
#include "core/build_config.hpp"
#include "core/provenance.hpp"

namespace acclab {
namespace {

// A backend's line: built or not, and where it offloads. Read from the build's own flags and
// definitions, so that it cannot disagree with what was compiled.
nlohmann::json backends() {
  const auto offload = [](const std::string& flags) {
    return flags.find("-foffload=nvptx") != std::string::npos ? "nvptx-none" : "host only";
  };
  nlohmann::json list = nlohmann::json::array();
  list.push_back({{"name", "serial"}, {"built", true}});
  list.push_back({{"name", "openmp"}, {"built", true}});
#ifdef ACCLAB_HAVE_OPENACC
  list.push_back({{"name", "openacc"}, {"built", true},
                  {"offload", offload(ACCLAB_OPENACC_FLAGS_STRING)}});
#else
  list.push_back({{"name", "openacc"}, {"built", false}});
#endif
#ifdef ACCLAB_HAVE_OMPTARGET
  list.push_back({{"name", "omptarget"}, {"built", true},
                  {"offload", offload(ACCLAB_OMPTARGET_FLAGS_STRING)}});
#else
  list.push_back({{"name", "omptarget"}, {"built", false}});
#endif
#ifdef ACCLAB_HAVE_CUDA
  list.push_back({{"name", "cuda"}, {"built", true},
                  {"offload", fmt::format("CUDA {}, sm {}", ACCLAB_CUDA_VERSION,
                                          ACCLAB_CUDA_ARCHITECTURES)}});
#else
  list.push_back({{"name", "cuda"}, {"built", false}});
#endif
#ifdef ACCLAB_HAVE_MPI
  list.push_back({{"name", "mpi"}, {"built", true}});
#else
  list.push_back({{"name", "mpi"}, {"built", false}});
#endif
  return list;
}

}  // namespace

nlohmann::json version_json() {
  const Provenance& source = provenance();
  return {{"schema", "acclab.version/1"},
          {"version", ACCLAB_VERSION},
          {"commit", source.commit},
          {"dirty", source.dirty},
          {"compiler", ACCLAB_CXX_COMPILER},
          {"backends", backends()},
          {"scripts", scripts_folder() ? nlohmann::json(scripts_folder()->string()) : nullptr}};
}

std::string version_text() {
  const nlohmann::json v = version_json();
  std::string text = fmt::format("acclab {}\n", v["version"].get<std::string>());
  text += fmt::format("commit    {}{}\n", v["commit"].get<std::string>(),
                      v["dirty"].get<bool>() ? " (with uncommitted changes)" : "");
  text += fmt::format("compiler  {}\n", v["compiler"].get<std::string>());
  text += fmt::format("scripts   {}\n", v["scripts"].is_string()
                                             ? v["scripts"].get<std::string>()
                                             : "not found (acclab report cannot draw pages)");
  for (const auto& backend : v["backends"]) {
    const bool built = backend["built"].get<bool>();
    text += fmt::format("{:<9} {}{}\n", backend["name"].get<std::string>(),
                        built ? "built" : "not built",
                        backend.contains("offload")
                            ? fmt::format(" ({})", backend["offload"].get<std::string>())
                            : "");
  }
  return text;
}

}  // namespace acclab
