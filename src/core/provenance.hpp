// Which code a binary was built from: the commit of the source tree at build time and the paths
// that differed from it (edited, added or removed), as `git status` listed them.
#pragma once

#include <string>
#include <vector>

namespace acclab {

struct Provenance {
  std::string commit;                 // "unknown" outside a git checkout
  bool dirty = true;                  // the sources differed from `commit` (or no commit known)
  std::vector<std::string> changed;   // the paths that differed, relative to the checkout
};

// Defined in a source that cmake/provenance.cmake regenerates at every build.
const Provenance& provenance();

}  // namespace acclab
