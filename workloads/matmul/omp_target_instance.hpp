// The host side of matmul's resident OpenMP target steps (omp_target_data, omp_target_tuned):
// A, B and C entered into device memory in setup (`target enter data`, the OpenMP form of the
// seed's `enter data` before its timed products), C's m x n elements zeroed on the device by
// reset, C brought back by `target update from` in finish. The OpenMP twin of acc_instance.cpp
// with data=resident. Include it only from OpenMP target sources.
#pragma once

#include <functional>
#include <memory>

#include "workloads/matmul/matmul.hpp"

namespace acclab::matmul {

// C = A B (or C += A B on the zeroed C) with A, B and C present on the device: p.a_size(),
// p.b_size() and p.c_size() elements from a, b and c. Blocking.
using OmpKernel =
    std::function<void(const Problem& p, const double* a, const double* b, double* c)>;

std::unique_ptr<Instance> make_omp_resident(const Params& params, OmpKernel kernel);

}  // namespace acclab::matmul
