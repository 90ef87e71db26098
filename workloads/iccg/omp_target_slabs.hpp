// The colour slabs (color_ell.hpp) and the solver's vectors of iccg's OpenMP target steps that
// keep them on the device from setup to finish (omp_target_tuned, omp_target_resident): entered
// once, their host addresses then present for every region's map. Include it only from OpenMP
// target sources.
#pragma once

#include <cstdint>
#include <vector>

#include "kit/omp_data.hpp"
#include "workloads/iccg/color_ell.hpp"
#include "workloads/iccg/iccg.hpp"

namespace acclab::iccg {

class OmpSlabs {
 public:
  OmpSlabs() = default;
  OmpSlabs(const OmpSlabs&) = delete;
  OmpSlabs& operator=(const OmpSlabs&) = delete;
  ~OmpSlabs() { release(); }

  // Lays `a` out in slabs by the ordering `o` (color_ell) and enters the slabs, `b` and the
  // vectors on the device. `b` must outlive the entry (its device copy is deleted by release).
  void enter(const Csr& a, const Ordering& o, std::int64_t min_saved_slots,
             std::vector<double>& b) {
    release();  // a second setup without finish: the first entry's copies go first
    m = color_ell(a, o, min_saved_slots);
    b_ = &b;
    // A matrix without lower or upper couplings (one cell, a diagonal matrix) has empty slabs,
    // and a zero-length section must never be mapped (kit/omp_data.hpp): one slot of value 0
    // stands in, which no row reads (every width is 0).
    for (auto* column : {&m.lower_column, &m.upper_column}) {
      if (column->empty()) column->push_back(0);
    }
    for (auto* value : {&m.lower_value, &m.upper_value}) {
      if (value->empty()) value->push_back(0.0);
    }
    for (auto* v : {&x, &w, &r, &z, &p0, &p1, &q}) v->assign(std::size_t(m.n), 0.0);
    for_each_array([](auto& v, bool upload) {
      upload ? omp_enter_to(v.data(), std::int64_t(v.size()))
             : omp_enter_alloc(v.data(), std::int64_t(v.size()));
    });
    entered_ = true;
  }

  // x from the device into `x`. Blocking.
  void fetch_x() { omp_update_host(x.data(), std::int64_t(x.size())); }

  // Deletes the device copies; nothing when they were never entered or already deleted.
  void release() {
    if (!entered_) return;
    for_each_array([](auto& v, bool) { omp_exit_delete(v.data(), std::int64_t(v.size())); });
    entered_ = false;
  }

  ColorEll m;
  std::vector<double> x, w, r, z, p0, p1, q;

 private:
  // Every host array with its device copy, and whether its values go up at the entry.
  template <typename F>
  void for_each_array(F&& f) {
    for (auto* v : {&m.color_start, &m.lower_start, &m.upper_start}) f(*v, true);
    f(m.lower_width, true);
    f(m.upper_width, true);
    f(m.lower_column, true);
    f(m.upper_column, true);
    for (auto* v : {&m.lower_value, &m.upper_value, &m.diagonal, b_}) f(*v, true);
    // Zeros: a slab's padding reads w and z at the row's own index (times 0) before the row's
    // value is written, so they must start finite.
    f(w, true);
    f(z, true);
    for (auto* v : {&x, &r, &p0, &p1, &q}) f(*v, false);
  }

  std::vector<double>* b_ = nullptr;
  bool entered_ = false;
};

}  // namespace acclab::iccg
