// cuda_tiled's shapes, without CUDA: matmul's validate checks them on machines without it.
#pragma once

namespace acclab::matmul::cuda {

// The FP64 MMA instruction shape (mma.sync ... .f64); all but m8n8k4 need sm_90.
enum class Mma { m8n8k4, m16n8k4, m16n8k8, m16n8k16 };

// How cuda_tiled cuts the product (matmul's cuda_* parameters, checked by its validate).
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

}  // namespace acclab::matmul::cuda
