// How a distributed CUDA step's halos travel between GPUs, chosen once per run and reported:
//   cuda-aware-mpi  MPI on device memory, where the MPI library says it can
//                   (MPIX_Query_cuda_support);
//   nccl            NCCL send/receive pairs on the step's stream: no host in the loop;
//   host-staged     device to host, MPI on the host, host to device: the last resort, and the
//                   only one when ranks share a GPU (NCCL refuses two ranks on one device).
// Only the mpi_cuda steps include this header (they require MPI, CUDA and NCCL).
#pragma once

#include <mpi.h>
#include <nccl.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <cstring>
#include <stdexcept>
#include <string>

#include "core/mpi_env.hpp"

#define NCCL_CHECK(expr)                                                                      \
  do {                                                                                        \
    const ncclResult_t acclab_nccl_ = (expr);                                                 \
    if (acclab_nccl_ != ncclSuccess) {                                                        \
      throw std::runtime_error(std::string(#expr) + ": " + ncclGetErrorString(acclab_nccl_)); \
    }                                                                                         \
  } while (0)

namespace acclab::mpi {

class DevicePath {
 public:
  DevicePath() = default;
  DevicePath(const DevicePath&) = delete;
  DevicePath& operator=(const DevicePath&) = delete;
  ~DevicePath() {
    if (nccl_) ncclCommDestroy(nccl_);
  }

  // Collective. `gpus`: the GPUs this node shows. CUDA-aware MPI first where present; NCCL
  // where every rank has a GPU of its own; host staging otherwise.
  void choose(int gpus) {
    if (size() == 1) {
      name_ = "none (one rank)";
      return;
    }
    const bool shared_gpu = max_over_ranks(local_size() > gpus ? 1.0 : 0.0) > 0;
    if (cuda_aware()) {
      name_ = "cuda-aware-mpi";
    } else if (!shared_gpu) {
      name_ = "nccl";
      ncclUniqueId id;
      if (is_root()) NCCL_CHECK(ncclGetUniqueId(&id));
      const std::string bytes =
          broadcast(std::string(reinterpret_cast<const char*>(&id), sizeof id));
      std::memcpy(&id, bytes.data(), sizeof id);
      NCCL_CHECK(ncclCommInitRank(&nccl_, size(), id, rank()));
    } else {
      name_ = "host-staged";
    }
  }

  const std::string& name() const { return name_; }
  // The communicator when the path is nccl, else nullptr.
  ncclComm_t nccl() const { return nccl_; }
  bool cuda_aware_mpi() const { return name_ == "cuda-aware-mpi"; }

 private:
  static bool cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support() == 1;
#else
    return false;
#endif
  }

  std::string name_ = "host-staged";
  ncclComm_t nccl_ = nullptr;
};

}  // namespace acclab::mpi
