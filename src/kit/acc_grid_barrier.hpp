// A barrier across the gangs of one OpenACC compute construct, which OpenACC lacks: for a
// construct that runs a whole computation with phases that depend on each other's results
// (iccg's resident solve). Plain C++ with GCC's __atomic builtins, so that it compiles for the
// host, for GCC's nvptx offload and into the tests (which run it on host threads).
#pragma once

#ifdef _OPENACC
#include <openacc.h>
#endif

namespace acclab {

// A fence ordering the calling thread's memory accesses for every thread of the device:
// membar.gl on an NVIDIA GPU, written as PTX because GCC 12 compiles __atomic_thread_fence only
// to membar.sys (ordering for the host and peer devices too, which is slower); a sequentially
// consistent fence elsewhere. The PTX stays out of the host's code only where the optimizer
// folds the acc_on_device test away, so an unoptimized build keeps the plain fence.
#ifdef _OPENACC
#pragma acc routine seq
#endif
inline void device_fence() {
#if defined(_OPENACC) && defined(__OPTIMIZE__)
  if (__builtin_acc_on_device(acc_device_nvidia)) {
    asm volatile("membar.gl;" ::: "memory");
    return;
  }
#endif
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

// The device's clock in nanoseconds (PTX %globaltimer) on an NVIDIA GPU, for timing the phases
// between barriers from inside a construct; 0 elsewhere (the host fallback, unoptimized builds).
#ifdef _OPENACC
#pragma acc routine seq
#endif
inline unsigned long long device_clock_ns() {
#if defined(_OPENACC) && defined(__OPTIMIZE__)
  if (__builtin_acc_on_device(acc_device_nvidia)) {
    unsigned long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=r"(now)::"memory");
    return now;
  }
#endif
  return 0;
}

// The counter at `counter` as the device's L2 holds it, for polling a barrier: on an NVIDIA GPU
// an ld.relaxed.gpu, which bypasses the multiprocessor's L1 (GCC 12 compiles a volatile read, an
// `acc atomic read` and an acquire load all to a plain ld, which may hit a stale L1 line for
// ever) and, unlike an atomic add of 0, does not queue in the L2's atomic unit behind the other
// gangs' polls and arrivals. An atomic add of 0 elsewhere (the host fallback, unoptimized
// builds), which reads the latest value as well.
#ifdef _OPENACC
#pragma acc routine seq
#endif
inline unsigned long long device_poll(unsigned long long* counter) {
#if defined(_OPENACC) && defined(__OPTIMIZE__)
  if (__builtin_acc_on_device(acc_device_nvidia)) {
    unsigned long long now;
    asm volatile("ld.relaxed.gpu.u64 %0, [%1];" : "=r"(now) : "r"(counter) : "memory");
    return now;
  }
#endif
  return __atomic_fetch_add(counter, 0ull, __ATOMIC_RELAXED);
}

// A gang that has polled this often (tens of seconds on a GPU) gives up: it sets
// `grid_barrier_stalled` in the counter, which lets every gang through every barrier from then
// on, so that the construct ends and the host can report the stall instead of hanging.
inline constexpr unsigned long long grid_barrier_max_polls = 1ull << 26;
inline constexpr unsigned long long grid_barrier_stalled = 1ull << 62;

// Adds this gang's arrival at `arrived` and waits until `target` arrivals have been counted
// (target: the gangs running times the barriers passed so far, this one included). Call it from
// gang-redundant code, so from one thread of each gang, after the loop whose results the other
// gangs need: GCC ends a worker or vector loop with a barrier across the gang, which orders the
// gang's other threads' writes before this thread's. Correct only while every gang of the
// construct runs at once (no more gangs than the multiprocessors hold together, nothing else on
// the device). Returns
// false once a gang has given up waiting.
//
// The fences (device_fence: membar.gl on the device) order the gang's writes before its arrival
// and the other gangs' writes before its next reads; the counter is polled in L2 (device_poll).
#ifdef _OPENACC
#pragma acc routine seq
#endif
inline bool grid_barrier(unsigned long long* arrived, unsigned long long target,
                         unsigned long long max_polls = grid_barrier_max_polls) {
  device_fence();
  __atomic_fetch_add(arrived, 1ull, __ATOMIC_RELAXED);
  unsigned long long seen = 0, polls = 0;
  while ((seen = device_poll(arrived)) < target) {
    if (++polls == max_polls) {
      seen =
          __atomic_fetch_or(arrived, grid_barrier_stalled, __ATOMIC_RELAXED) | grid_barrier_stalled;
      break;
    }
  }
  device_fence();
  return seen < grid_barrier_stalled;
}

}  // namespace acclab
