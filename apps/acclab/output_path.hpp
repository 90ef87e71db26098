// The check acclab's solver commands make on an --out path before any work lives with the
// atomic output files in src/core.
#pragma once

#include "core/atomic_file.hpp"
