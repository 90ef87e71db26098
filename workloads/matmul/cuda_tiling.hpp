// cuda_tiled's shapes and the check of its knobs, without CUDA: the check and its tests run on
// machines without it too (cuda.cpp declares the knobs and calls it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace acclab::matmul::cuda {

// The FP64 MMA instruction shape (mma.sync ... .f64); all but m8n8k4 need sm_90.
enum class Mma { m8n8k4, m16n8k4, m16n8k8, m16n8k16 };
// Their names (cuda_mma's choices), in the order of Mma.
inline const std::vector<std::string> mma_names = {"m8n8k4", "m16n8k4", "m16n8k8", "m16n8k16"};

// How cuda_tiled cuts the product (tiling_of its knobs).
struct Tiling {
  int tile = 64;  // a block's tile of C, tile x tile: 64 or 128
  int warps = 4;  // warps a block: 4 (2 x 2), 8 (2 x 4) or 16 (4 x 4); not 4 on 128-wide tiles
  Mma shape = Mma::m16n8k4;
  int slice = 16;   // k of a slice of A and B in shared memory: 16 or 32
  int stages = 3;   // slices in flight: 2 to 4
};

// Shared memory a block of `t` takes: its stages of A's and B's slices, each row padded by 4
// doubles.
constexpr int shared_bytes(const Tiling& t) {
  return t.stages * (t.tile * (t.slice + 4) + t.slice * (t.tile + 4)) * int(sizeof(double));
}

// cuda_tiled's knobs as --set gives them (cuda_tile, cuda_mma, cuda_warps, cuda_slice,
// cuda_stages), before they are checked.
struct TiledTunings {
  std::int64_t tile = 64;
  std::string mma = "m16n8k4";
  std::optional<std::int64_t> warps;  // unset: 4 on 64-wide tiles, 16 on 128-wide
  std::int64_t slice = 16, stages = 3;
};

// Refuses knobs that are no shape the kernel was compiled for, or whose block needs more shared
// memory than any GPU gives one (throws UsageError naming the --set).
void check_tiling(const TiledTunings& t);
// The shape of checked knobs.
Tiling tiling_of(const TiledTunings& t);

}  // namespace acclab::matmul::cuda
