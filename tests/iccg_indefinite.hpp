// tridiag(1, 1, 1) of order 5 (an eigenvalue 1 + 2 cos(5 pi / 6) < 0) with its factor's
// diagonal tripled (shift 2), so that IC(0) factors it: a GPU step must find p . A p <= 0 and
// stop at original's iteration, as solve_iccg does. Shared by the OpenACC and OpenMP target
// steps' tests (iccg_file_test.cpp, omptarget_iccg_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "support.hpp"
#include "workloads/iccg/iccg.hpp"
#include "workloads/iccg/matrix_solve.hpp"

namespace acclab::test {

inline void expect_stops_where_original_does_on_an_indefinite_matrix(const std::string& step) {
  SCOPED_TRACE(step);
  iccg::Csr a;
  a.n = 5;
  a.diagonal.assign(5, 1.0);
  a.start = {0};
  for (std::int64_t i = 0; i < a.n; ++i) {
    for (std::int64_t j : {i - 1, i + 1}) {
      if (j < 0 || j >= a.n) continue;
      a.column.push_back(j);
      a.value.push_back(1.0);
    }
    a.start.push_back(std::int64_t(a.column.size()));
  }
  const std::vector<double> b = iccg::row_sums(a);
  const iccg::Ordering o = iccg::order_rows(a, -20);
  std::vector<double> pb(b.size());
  for (std::int64_t v = 0; v < a.n; ++v) pb[o.new_of_old[v]] = b[v];
  const iccg::Solution original = iccg::solve_iccg(iccg::permuted(a, o), pb, o, 1e-8, 100, 1, 2);
  ASSERT_TRUE(original.indefinite);
  const std::unique_ptr<Instance> instance =
      variant_of("iccg", step).factory(params_of("iccg", {"colors=-20"}));
  auto* solver = dynamic_cast<iccg::IccgInstance*>(instance.get());
  ASSERT_NE(solver, nullptr);
  solver->use_system(a, b, /*shift=*/2, iccg::default_min_saved_slots);
  instance->setup();
  instance->reset();
  instance->run();
  instance->finish();
  EXPECT_TRUE(solver->solution().indefinite);
  EXPECT_FALSE(solver->solution().converged);
  EXPECT_EQ(solver->solution().iterations, original.iterations);
}

}  // namespace acclab::test
