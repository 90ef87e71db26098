// The serial reference of a stencil stepped between two fields (jacobi2d, diffusion3d): the field
// after a count of steps, and how much the last step changed it (what a result one step short
// differs by), as the workload's ReferenceMemo keeps them. No directive here: the workload's step
// brings its own (the references split a step over OpenMP threads).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/compare.hpp"

namespace acclab {

struct SteppedReference {
  std::vector<float> field;
  double last_step_change = 0;
  template <typename Visit>
  void fields(Visit&& visit) {
    visit(field);
    visit(last_step_change);
  }
};

// `steps` steps of `step(from, to)` from `initial`, the fields swapped in between.
template <typename Step>
SteppedReference run_stepped_reference(std::vector<float> initial, std::int64_t steps,
                                       Step&& step) {
  std::vector<float> field = std::move(initial), before = field;
  for (std::int64_t s = 0; s < steps; ++s) {
    step(field.data(), before.data());
    std::swap(field, before);
  }
  // `field` holds the last step and `before` the one before it (both the initial field after
  // none).
  const double change =
      max_abs_difference(field.data(), before.data(), std::int64_t(field.size())).value;
  return {std::move(field), change};
}

}  // namespace acclab
