// The seed's multidevice build, made correct: the rows split into `devices` partitions (block
// multiples), one OpenMP thread per partition bound to its GPU (acc_set_device_num), each
// holding its rows on its device for the whole run. For each block of pivot rows the owning
// partition computes the block's snapshot (acc_multidevice.cpp) and publishes it through a host
// buffer; after one barrier every partition uploads it and applies the block to its rows.
// Lookahead: the owner of the next block applies this block to those rows first, computes and
// publishes the next snapshot, and only then applies this block to the rest of its rows, so that
// the snapshot's copy to the host can run beside that kernel and be there by the next barrier.
// Each partition's kernels and copies go on its async queues (the host thread waits only for the
// copies at the barrier; GCC 12 still blocks it in each compute construct until the device
// catches up, docs/apsp.md); two snapshot slots on each device and two host buffers alternate by
// round. Without a GPU the partitions are host arrays and the same code runs on the host, one
// thread each, which is how CI checks the decomposition.
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>

#include "core/error.hpp"
#include "core/profile.hpp"
#include "workloads/apsp/acc_kernels.hpp"
#ifdef ACCLAB_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace acclab::apsp {
namespace {

class Multidevice : public ApspInstance {
 public:
  using ApspInstance::ApspInstance;
  ~Multidevice() override {
    release(false);
#ifdef ACCLAB_HAVE_CUDA
    for (float* buffer : pinned_) cudaHostUnregister(buffer);
#endif
  }

  void setup() override {
    ApspInstance::setup();
    const int gpus = acc::nvidia_devices();
    if (gpus > 0 && p_.devices > gpus && !p_.share_gpus) {
      throw UsageError(
          fmt::format("--set devices={}: {} GPU{} present (share_gpus=1 puts "
                      "partition q on GPU q mod {})",
                      p_.devices, gpus, gpus == 1 ? "" : "s", gpus));
    }
    // Partition boundaries at multiples of the block, so that a block of pivot rows has one
    // owner.
    const int blocks = (p_.n + p_.block - 1) / p_.block;
    parts_.resize(p_.devices);
    rows_.resize(p_.devices);
    snapshots_.resize(p_.devices);
    histories_.resize(p_.devices);
    next_rows_.resize(p_.devices);
    next_histories_.resize(p_.devices);
    for (int q = 0; q < p_.devices; ++q) {
      auto& part = parts_[q];
      part.row_begin = std::min(p_.n, int(std::int64_t(blocks) * q / p_.devices) * p_.block);
      part.row_end = std::min(p_.n, int(std::int64_t(blocks) * (q + 1) / p_.devices) * p_.block);
      part.device = gpus > 0 ? q % gpus : q;
      part.compute_queue = 1 + 2 * q;
      part.transfer_queue = 2 + 2 * q;
      rows_[q].resize(std::size_t(part.row_end - part.row_begin) * p_.n);
      snapshots_[q].resize(2 * std::size_t(p_.block) * p_.n);  // two slots
      histories_[q].resize(std::size_t(p_.block) * (part.row_end - part.row_begin));
      part.rows = rows_[q].data();
      part.snapshot = snapshots_[q].data();
      part.history = histories_[q].data();
      if (p_.paths) {
        next_rows_[q].resize(rows_[q].size());
        next_histories_[q].resize(histories_[q].size());
        part.next = next_rows_[q].data();
        part.next_history = next_histories_[q].data();
      }
      copy_initial(q);
    }
    for (auto& buffer : published_) buffer.resize(std::size_t(p_.block) * p_.n);
#ifdef ACCLAB_HAVE_CUDA
    // Page-locked (for every device's context), the snapshot's copies to and from the devices
    // run at the link's speed instead of through a staging buffer. Optional: without it they
    // are only slower.
    if (gpus > 0) {
      for (auto& buffer : published_) {
        if (cudaHostRegister(buffer.data(), sizeof(float) * buffer.size(),
                             cudaHostRegisterPortable) == cudaSuccess) {
          pinned_.push_back(buffer.data());
        } else {
          cudaGetLastError();
        }
      }
    }
#endif
    for_each_partition([&](int q) { acc::partition_enter(p_, parts_[q]); });
    entered_ = true;
  }
  void reset() override {
    // next_ (the result's successors) holds the initial ones, which copy_initial slices.
    if (p_.paths) initial_successors(p_, initial_.data(), next_.data());
    for_each_partition([&](int q) {
      acc::partition_select(parts_[q]);
      copy_initial(q);
      acc::partition_upload(p_, parts_[q]);
    });
  }
  void run() override {
    bool short_of_threads = false;
    const std::string path = profile::current_path();
#pragma omp parallel num_threads(p_.devices)
    {
      const profile::ThreadPath inherit(path);
      // Every partition needs its thread: the barriers below wait for all of them.
      if (omp_get_num_threads() != p_.devices) {
#pragma omp single
        short_of_threads = true;
      } else {
        run_partition(omp_get_thread_num());
      }
    }
    if (short_of_threads) {
      throw std::runtime_error(fmt::format(
          "multidevice: OpenMP gave fewer than the {} threads asked for (OMP_THREAD_LIMIT?)",
          p_.devices));
    }
  }
  void finish() override { release(true); }

 private:
  // work(q) for every partition q, each on its own OpenMP thread, which carries the caller's
  // --profile region. A partition without rows (more devices than blocks) maps nothing: the
  // acc:: partition functions skip its empty sections.
  template <class Work>
  void for_each_partition(Work&& work) {
    const std::string path = profile::current_path();
#pragma omp parallel for num_threads(p_.devices) schedule(static, 1)
    for (int q = 0; q < p_.devices; ++q) {
      const profile::ThreadPath inherit(path);
      work(q);
    }
  }
  // Partition `me`'s part of one run, on its own OpenMP thread. The barrier before round r
  // (after the waits for each partition's transfers) means: round r's snapshot is in its host
  // buffer, and every partition's copy of round r - 1's has left the other buffer, which round
  // r + 1's owner fills during round r.
  void run_partition(int me) {
    const profile::Region region(fmt::format("partition {}", me));  // --profile's label
    acc::partition_select(parts_[me]);
    const auto& part = parts_[me];
    const bool has_rows = !rows_[me].empty();
    // Alone, a partition gains nothing from lookahead: its next pivot rows would wait for this
    // round's kernels either way (lookahead=auto).
    const bool lookahead = p_.lookahead == Problem::Lookahead::on ||
                           (p_.lookahead == Problem::Lookahead::automatic && holders() > 1);
    for (int k_begin = 0; k_begin < p_.n; k_begin += p_.block) {
      const acc::Pivots pivots = pivots_of(k_begin);
      const int owner = owner_of(k_begin);
      // This round's pivot rows: here for the first round or without lookahead, else during
      // the round before (below).
      if (me == owner && (k_begin == 0 || !lookahead)) pivot_block(me, pivots);
      if (has_rows) acc::partition_wait_transfers(part);  // a partition without rows queues none
#pragma omp barrier
      if (!has_rows) continue;  // only the barriers: no rows to relax
      if (me != owner) {
        acc::partition_receive_snapshot(p_, part, pivots, published_[pivots.slot].data());
      }
      // The owner's pivot rows went through the block's steps in pivot_block.
      acc::RowRange rest{part.row_begin, part.row_end, me == owner ? k_begin : 0,
                         me == owner ? pivots.end : 0};
      if (lookahead && pivots.end < p_.n && owner_of(pivots.end) == me) {
        // Lookahead: C on every row, D on the next pivot rows, their snapshot, then D on the
        // rest (one launch more than without).
        const acc::Pivots next = pivots_of(pivots.end);
        acc::partition_apply_block(p_, part, pivots, rest, acc::Phases::columns);
        acc::partition_apply_block(p_, part, pivots, {next.begin, next.end, 0, 0},
                                   acc::Phases::tiles);
        pivot_block(me, next);
        rest.skip_begin = me == owner ? k_begin : next.begin;
        rest.skip_end = next.end;
        acc::partition_apply_block(p_, part, pivots, rest, acc::Phases::tiles);
      } else {
        acc::partition_apply_block(p_, part, pivots, rest);
      }
    }
    if (has_rows) acc::partition_wait(part);
  }
  // The block of pivot rows from k_begin, and its slot: rounds alternate between two.
  acc::Pivots pivots_of(int k_begin) const {
    return {k_begin, std::min(p_.n, k_begin + p_.block), (k_begin / p_.block) % 2};
  }
  // The owner's part of a block: its steps on the pivot rows, and the snapshot published in the
  // slot's host buffer when another partition has rows to apply it to.
  void pivot_block(int me, acc::Pivots pivots) {
    float* publish = holders() > 1 ? published_[pivots.slot].data() : nullptr;
    acc::partition_pivot_block(p_, parts_[me], pivots, publish);
  }
  // The partitions that hold rows (more devices than blocks leaves some without).
  int holders() const {
    return int(std::count_if(rows_.begin(), rows_.end(), [](const auto& r) { return !r.empty(); }));
  }
  int owner_of(int row) const {
    for (int q = 0; q < p_.devices; ++q) {
      if (row >= parts_[q].row_begin && row < parts_[q].row_end) return q;
    }
    return 0;
  }
  void copy_initial(int q) {
    const auto& part = parts_[q];
    if (rows_[q].empty()) return;  // a partition left without rows (more devices than blocks)
    std::memcpy(rows_[q].data(), initial_.data() + std::size_t(part.row_begin) * p_.n,
                sizeof(float) * rows_[q].size());
    if (p_.paths) {  // from next_, which holds the initial successors until finish()
      std::memcpy(next_rows_[q].data(), next_.data() + std::size_t(part.row_begin) * p_.n,
                  sizeof(std::int32_t) * next_rows_[q].size());
    }
  }
  // Brings every partition's rows back into d_ (when copy_out) and releases the devices' copies.
  void release(bool copy_out) {
    if (!entered_) return;
    for_each_partition([&](int q) {
      acc::partition_select(parts_[q]);
      acc::partition_exit(p_, parts_[q], copy_out);
    });
    entered_ = false;
    if (!copy_out) return;
    for (int q = 0; q < p_.devices; ++q) {
      if (rows_[q].empty()) continue;
      std::memcpy(d_.data() + std::size_t(parts_[q].row_begin) * p_.n, rows_[q].data(),
                  sizeof(float) * rows_[q].size());
      if (p_.paths) {
        std::memcpy(next_.data() + std::size_t(parts_[q].row_begin) * p_.n, next_rows_[q].data(),
                    sizeof(std::int32_t) * next_rows_[q].size());
      }
    }
  }

  std::vector<acc::Partition> parts_;
  std::vector<std::vector<float>> rows_, snapshots_, histories_;
  std::vector<std::vector<std::int32_t>> next_rows_, next_histories_;  // with paths
  std::array<std::vector<float>, 2> published_;
  std::vector<float*> pinned_;  // the published buffers registered with CUDA
  bool entered_ = false;
};

}  // namespace

std::unique_ptr<Instance> make_multidevice(const Params& params) {
  return std::make_unique<Multidevice>(params);
}

}  // namespace acclab::apsp
