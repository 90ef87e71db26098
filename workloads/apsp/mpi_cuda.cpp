// MPI ranks with the CUDA kernels: each rank's blocks, panels and diagonal operands resident on
// its GPU (local rank mod GPUs) and stepped by cuda_blocked's kernels, shaped for a rank's packed
// blocks (mpi_cuda_kernels.cu). Where every rank has a GPU of its own the panels go device to
// device by NCCL broadcasts on the process row and column communicators, queued on a stream of
// their own: the next round's broadcasts run beside this round's D, and the host never waits
// for a panel. Where ranks share a GPU (NCCL refuses two ranks on one device) the panels are
// staged through the host arrays and broadcast by MPI as mpi_acc's are. CUDA-aware MPI is not
// used: its broadcasts would wait on the host for each phase to finish. One rank moves nothing.
// The path is in the result (mpi.panel_path).
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "kit/cuda_check.hpp"
#include "kit/cuda_memory.hpp"
#include "core/error.hpp"
#include "kit/mpi_device_path.hpp"  // NCCL_CHECK
#include "workloads/apsp/cuda_kernels.hpp"
#include "workloads/apsp/mpi_blocks.hpp"

namespace acclab::apsp {
namespace {

using Clock = std::chrono::steady_clock;

cuda::Range range_of(Span s) { return {s.begin, s.end}; }

class MpiCuda : public MpiApspInstance {
 public:
  using MpiApspInstance::MpiApspInstance;
  ~MpiCuda() override {
    for (ncclComm_t comm : {row_comm_, col_comm_, world_comm_}) {
      if (comm) ncclCommDestroy(comm);
    }
    for (cudaEvent_t event : marks_) cudaEventDestroy(event);
    if (comm_stream_) cudaStreamDestroy(comm_stream_);
  }

  void setup() override {
    // A, B and C hold a round's m x m operands in one block's shared memory.
    if (p_.block > cuda::pivot) {
      throw UsageError(fmt::format("--set block={}: apsp/mpi_cuda steps blocks of at most {} rows",
                                   p_.block, cuda::pivot));
    }
    int gpus = 0;
    CUDA_CHECK(cudaGetDeviceCount(&gpus));
    if (gpus == 0) throw std::runtime_error("apsp/mpi_cuda: no GPU");
    const int device = mpi::local_rank() % gpus;
    CUDA_CHECK(cudaSetDevice(device));
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    check_device_share("mpi_cuda", double(free_bytes), gpus, device);
    MpiApspInstance::setup();
    stream_ = std::make_unique<CudaStream>();
    phases_done_ = std::make_unique<CudaEvent>();  // on this rank's GPU, as the streams
    // The broadcasts' stream first in line for the GPU's blocks, so that D's do not hold them up.
    int least = 0, greatest = 0;
    CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CUDA_CHECK(cudaStreamCreateWithPriority(&comm_stream_, cudaStreamNonBlocking, greatest));
    d_dev_ = DeviceArray<float>(local_.size());
    row_panel_dev_ = DeviceArray<float>(row_panel_.size());
    column_panel_dev_ = DeviceArray<float>(column_panel_.size());
    diag_dev_ = DeviceArray<float>(diag_.size());
    // The panels' entries no phase writes (A's columns in the row panel, A's and B's rows in the
    // column panel) are broadcast and never read: zeros rather than whatever the memory held.
    zero(row_panel_dev_.get(), row_panel_.size());
    zero(column_panel_dev_.get(), column_panel_.size());
    zero(diag_dev_.get(), diag_.size());
    if (p_.paths) {
      next_dev_ = DeviceArray<std::int32_t>(local_next_.size());
      next_panel_dev_ = DeviceArray<std::int32_t>(next_panel_.size());
      next_diag_dev_ = DeviceArray<std::int32_t>(next_diag_.size());
      zero(next_panel_dev_.get(), next_panel_.size());
      zero(next_diag_dev_.get(), next_diag_.size());
    }
    CUDA_CHECK(cudaStreamSynchronize(stream_->get()));
    choose_path(gpus);
  }

 protected:
  void upload() override { copy_blocks(false); }
  void fetch() override { copy_blocks(true); }
  void to_host(Buffer buffer, const Round& r) override { stage(buffer, r, true); }
  void to_device(Buffer buffer, const Round& r) override { stage(buffer, r, false); }

  void run() override {
    const auto start = Clock::now();
    MpiApspInstance::run();  // queues the rounds (host-staged: waits for each panel)
    CUDA_CHECK(cudaStreamSynchronize(stream_->get()));
    if (nccl()) {
      CUDA_CHECK(cudaStreamSynchronize(comm_stream_));
      // The time the broadcasts' stream spent in them (waiting for the other ranks included):
      // each round's diagonal, then its panels.
      for (std::size_t at = 0; at + 1 < marks_.size(); at += 2) {
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, marks_[at], marks_[at + 1]));
        charge_broadcast(int(at / 4), ms / 1000);
      }
    }
    run_s_ = std::chrono::duration<double>(Clock::now() - start).count();
  }

  void close_diagonal(const Round& r) override {
    cuda::local_diagonal(max_plus(), blocks(), r.size, r.rows.begin, r.cols.begin, operands(r),
                         stream_->get());
  }
  void update_row_panel(const Round& r) override {
    cuda::local_row_panel(max_plus(), blocks(), r.size, r.rows.begin, range_of(r.cols), operands(r),
                          slot(r.slot), stream_->get());
  }
  void update_column_panel(const Round& r) override {
    cuda::local_column_panel(max_plus(), blocks(), r.size, r.cols.begin, range_of(r.rows),
                             operands(r), slot(r.slot), stream_->get());
  }
  void relax(const Round& r, Span rows, Span skip_rows, Span cols, Span skip_cols) override {
    if (rows.empty() || cols.empty()) return;
    cuda::local_relax(max_plus(), blocks(), r.size, range_of(rows), range_of(skip_rows),
                      range_of(cols), range_of(skip_cols), slot(r.slot), stream_->get());
  }

  // With NCCL: A, then its operands along the pivot process row and column, then B and C, then
  // the panels down the process columns and along the process rows, each broadcast queued on
  // the broadcasts' stream behind the phase that fills it (events), each phase behind the
  // broadcast it reads. Every rank queues its broadcasts in the same order as mpi_blocks.cpp
  // calls MPI's (the diagonal's along the row, then along the column; the row panel, then the
  // column panel), so that no two ranks wait on each other's later one.
  void prepare(const Round& r) override {
    if (!nccl()) {
      MpiApspInstance::prepare(r);
      return;
    }
    const cudaStream_t compute = stream_->get();
    const std::size_t mm = std::size_t(r.size) * r.size;
    cudaEvent_t* mark = &marks_[4 * std::size_t(r.index)];
    if (r.diagonal()) close_diagonal(r);
    if (r.in_row || r.in_col) {
      // A done, and the last round's B and C done reading the operands about to be replaced.
      CUDA_CHECK(cudaEventRecord(phases_done_->get(), compute));
      CUDA_CHECK(cudaStreamWaitEvent(comm_stream_, phases_done_->get(), 0));
    }
    CUDA_CHECK(cudaEventRecord(mark[0], comm_stream_));
    if (r.in_row) {
      NCCL_CHECK(ncclBroadcast(diag_dev_.get(), diag_dev_.get(), 2 * mm, ncclFloat, r.pcol,
                               row_comm_, comm_stream_));
      if (p_.paths) {
        NCCL_CHECK(ncclBroadcast(next_diag_dev_.get(), next_diag_dev_.get(), mm, ncclInt32, r.pcol,
                                 row_comm_, comm_stream_));
      }
    }
    if (r.in_col) {
      NCCL_CHECK(ncclBroadcast(diag_dev_.get(), diag_dev_.get(), 2 * mm, ncclFloat, r.prow,
                               col_comm_, comm_stream_));
    }
    CUDA_CHECK(cudaEventRecord(mark[1], comm_stream_));
    if (!r.diagonal()) {
      if (r.in_row) received_bytes_ += double(mm) * (2 * sizeof(float) + (p_.paths ? 4 : 0));
      if (r.in_col) received_bytes_ += double(mm) * 2 * sizeof(float);
    }
    if (r.in_row || r.in_col) CUDA_CHECK(cudaStreamWaitEvent(compute, mark[1], 0));
    if (r.in_row) update_row_panel(r);
    if (r.in_col) update_column_panel(r);
    // B and C done; and on every rank the round two back done reading this slot (D of that
    // round was queued before this).
    CUDA_CHECK(cudaEventRecord(phases_done_->get(), compute));
    CUDA_CHECK(cudaStreamWaitEvent(comm_stream_, phases_done_->get(), 0));
    CUDA_CHECK(cudaEventRecord(mark[2], comm_stream_));
    const PanelsOnDevice panels = slot(r.slot);
    NCCL_CHECK(ncclBroadcast(panels.v, panels.v, std::size_t(r.size) * g_.cols, ncclFloat, r.prow,
                             col_comm_, comm_stream_));
    NCCL_CHECK(ncclBroadcast(panels.h, panels.h, std::size_t(r.size) * g_.rows, ncclFloat, r.pcol,
                             row_comm_, comm_stream_));
    if (p_.paths) {
      NCCL_CHECK(ncclBroadcast(panels.nh, panels.nh, std::size_t(r.size) * g_.rows, ncclInt32,
                               r.pcol, row_comm_, comm_stream_));
    }
    CUDA_CHECK(cudaEventRecord(mark[3], comm_stream_));  // complete() waits on it
    if (!r.in_row) received_bytes_ += double(r.size) * g_.cols * sizeof(float);
    if (!r.in_col) {
      received_bytes_ += double(r.size) * g_.rows * (sizeof(float) + (p_.paths ? 4 : 0));
    }
  }
  void complete(const Round& r) override {
    if (!nccl()) {
      MpiApspInstance::complete(r);
      return;
    }
    CUDA_CHECK(cudaStreamWaitEvent(stream_->get(), marks_[4 * std::size_t(r.index) + 3], 0));
  }
  void nudge() override {
    if (!nccl()) MpiApspInstance::nudge();
  }

 private:
  using PanelsOnDevice = cuda::PanelSlot;

  bool max_plus() const { return p_.semiring == Semiring::max_plus; }
  bool nccl() const { return row_comm_ != nullptr; }
  cuda::LocalBlocks blocks() const {
    return {d_dev_.get(), p_.paths ? next_dev_.get() : nullptr, g_.rows, g_.cols};
  }
  // The round's diagonal operands on the device: H then S, m x m each, as in diag_.
  cuda::DiagonalOperands operands(const Round& r) const {
    const std::size_t mm = std::size_t(r.size) * r.size;
    return {diag_dev_.get(), diag_dev_.get() + mm, p_.paths ? next_diag_dev_.get() : nullptr};
  }
  // A slot of the panels on the device, laid out as row_slot, column_slot and next_slot.
  PanelsOnDevice slot(int s) const {
    const std::size_t rows = std::size_t(s) * g_.block * g_.rows;
    return {row_panel_dev_.get() + std::size_t(s) * g_.block * g_.cols,
            column_panel_dev_.get() + rows, p_.paths ? next_panel_dev_.get() + rows : nullptr};
  }
  template <typename T>
  void zero(T* device, std::size_t count) {
    CUDA_CHECK(cudaMemsetAsync(device, 0, sizeof(T) * count, stream_->get()));
  }

  // The round's part of a buffer between the host arrays and the device (host-staged only: NCCL
  // moves the device's, and one rank moves nothing). To the host waits for the copy, for MPI;
  // to the device is queued before the phases that read it (a copy from pageable memory has
  // read the host array when it returns, so MPI may refill it).
  void stage(Buffer buffer, const Round& r, bool to_host_arrays) {
    if (panel_path_ != "host-staged") return;
    const std::size_t m = r.size;
    const PanelsOnDevice panels = slot(r.slot);
    switch (buffer) {
      case Buffer::diagonal:
        copy_async(diag_.data(), diag_dev_.get(), 2 * m * m, to_host_arrays);
        if (p_.paths) copy_async(next_diag_.data(), next_diag_dev_.get(), m * m, to_host_arrays);
        break;
      case Buffer::row_panel:
        copy_async(row_slot(r.slot), panels.v, m * g_.cols, to_host_arrays);
        break;
      case Buffer::column_panel:
        copy_async(column_slot(r.slot), panels.h, m * g_.rows, to_host_arrays);
        if (p_.paths) copy_async(next_slot(r.slot), panels.nh, m * g_.rows, to_host_arrays);
        break;
    }
    if (to_host_arrays) CUDA_CHECK(cudaStreamSynchronize(stream_->get()));
  }

  // `count` elements between a host array and the device, one way, queued on the stream.
  template <typename T>
  void copy_async(T* host, T* device, std::size_t count, bool to_host_arrays) {
    const std::size_t bytes = sizeof(T) * count;
    if (to_host_arrays) {
      CUDA_CHECK(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream_->get()));
    } else {
      CUDA_CHECK(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream_->get()));
    }
  }

  // The rank's blocks (with paths their successors) between the host and the device. Blocking.
  void copy_blocks(bool to_host_arrays) {
    copy_async(local_.data(), d_dev_.get(), local_.size(), to_host_arrays);
    if (p_.paths) {
      copy_async(local_next_.data(), next_dev_.get(), local_next_.size(), to_host_arrays);
    }
    CUDA_CHECK(cudaStreamSynchronize(stream_->get()));
  }

  // Collective. One rank: nothing to move. Ranks sharing a GPU: host staging. Otherwise NCCL
  // communicators for the process rows and columns, split from one over every rank (a rank's
  // place in its row is its process column, in its column its process row: the roots below).
  void choose_path(int gpus) {
    if (mpi::size() == 1) {
      panel_path_ = "none (one rank)";
      return;
    }
    if (mpi::max_over_ranks(mpi::local_size() > gpus ? 1.0 : 0.0) > 0) {
      panel_path_ = "host-staged";
      return;
    }
    ncclUniqueId id{};
    if (mpi::is_root()) NCCL_CHECK(ncclGetUniqueId(&id));
    const std::string bytes =
        mpi::broadcast(std::string(reinterpret_cast<const char*>(&id), sizeof id));
    std::memcpy(&id, bytes.data(), sizeof id);
    NCCL_CHECK(ncclCommInitRank(&world_comm_, mpi::size(), id, mpi::rank()));
    NCCL_CHECK(ncclCommSplit(world_comm_, g_.coords[0], g_.coords[1], &row_comm_, nullptr));
    NCCL_CHECK(ncclCommSplit(world_comm_, g_.coords[1], g_.coords[0], &col_comm_, nullptr));
    // Four marks a round on the broadcasts' stream: the diagonal's broadcasts, the panels'.
    marks_.assign(4 * std::size_t(g_.blocks), nullptr);
    for (cudaEvent_t& event : marks_) CUDA_CHECK(cudaEventCreate(&event));
    panel_path_ = "nccl";
  }

  std::unique_ptr<CudaStream> stream_;  // the phases
  cudaStream_t comm_stream_ = nullptr;  // the broadcasts (NCCL)
  std::unique_ptr<CudaEvent> phases_done_;
  std::vector<cudaEvent_t> marks_;
  ncclComm_t world_comm_ = nullptr, row_comm_ = nullptr, col_comm_ = nullptr;
  DeviceArray<float> d_dev_, row_panel_dev_, column_panel_dev_, diag_dev_;
  DeviceArray<std::int32_t> next_dev_, next_panel_dev_, next_diag_dev_;
};

}  // namespace

std::unique_ptr<Instance> make_mpi_cuda(const Params& params) {
  return std::make_unique<MpiCuda>(params);
}

}  // namespace acclab::apsp
