// The check of cuda_tiled's knobs, in a plain source so that every build has it.
#include "workloads/matmul/cuda_tiling.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"

namespace acclab::matmul::cuda {
namespace {

// The warps a block: the knob, or the fastest of the H200 sweep for the tile
// (bench/results/h200/matmul/NOTES.md).
std::int64_t warps_of(const TiledTunings& t) {
  if (t.warps) return *t.warps;
  return t.tile == 64 ? 4 : 16;
}

}  // namespace

void check_tiling(const TiledTunings& t) {
  if (t.tile != 64 && t.tile != 128) {
    throw UsageError(fmt::format("--set cuda_tile={}: expected 64 or 128", t.tile));
  }
  const std::int64_t warps = warps_of(t);
  if (warps != 4 && warps != 8 && warps != 16) {
    throw UsageError(fmt::format("--set cuda_warps={}: expected 4, 8 or 16", warps));
  }
  if (warps == 4 && t.tile == 128) {
    throw UsageError(
        "--set cuda_warps=4: with cuda_tile=128 a lane would hold 128 doubles of "
        "C (take 8 or 16)");
  }
  if (t.slice != 16 && t.slice != 32) {
    throw UsageError(fmt::format("--set cuda_slice={}: expected 16 or 32", t.slice));
  }
  // The most shared memory a block may have on any GPU CUDA 13 supports (227 KiB, sm_90).
  constexpr std::int64_t block_shared_limit = 227 * 1024;
  const std::int64_t shared =
      shared_bytes({.tile = int(t.tile), .slice = int(t.slice), .stages = int(t.stages)});
  if (shared > block_shared_limit) {
    throw UsageError(fmt::format(
        "--set cuda_stages={}: with cuda_tile={} and cuda_slice={} a block needs {} KiB of "
        "shared memory, more than the 227 KiB a block may have",
        t.stages, t.tile, t.slice, shared / 1024));
  }
}

Tiling tiling_of(const TiledTunings& t) {
  const auto mma = std::find(mma_names.begin(), mma_names.end(), t.mma);
  return {.tile = static_cast<int>(t.tile),
          .warps = static_cast<int>(warps_of(t)),
          .shape = static_cast<Mma>(mma == mma_names.end() ? 0 : mma - mma_names.begin()),
          .slice = static_cast<int>(t.slice),
          .stages = static_cast<int>(t.stages)};
}

}  // namespace acclab::matmul::cuda
