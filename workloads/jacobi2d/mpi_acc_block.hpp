// What the OpenACC MPI steps share: the block's grids resident on this rank's GPU, its edges
// packed and its halo ring unpacked on the device, and a sweep over any rectangle of the block.
// Include it only from OpenACC sources.
#pragma once

#include <openacc.h>

#include <cstdint>

#include "kit/acc_data.hpp"
#include "kit/acc_resident.hpp"
#include "core/mpi_env.hpp"
#include "workloads/jacobi2d/mpi_blocks.hpp"

namespace acclab::jacobi2d {

// The outer ring of a block of rows x cols points: its first and last rows whole, then its first
// and last columns between them (one of each where the block is one row or one column wide).
inline int ring_points(int rows, int cols) {
  const int across = rows > 1 ? 2 * cols : cols, side = rows > 2 ? rows - 2 : 0;
  return across + (cols > 1 ? 2 : 1) * side;
}

// The grid index (leading dimension ld, halo included) of the ring's t-th point, in
// ring_points' order.
#pragma acc routine seq
inline int ring_point(int t, int rows, int cols, int ld) {
  const int across = rows > 1 ? 2 * cols : cols;
  if (t < across) return (t < cols ? 1 : rows) * ld + 1 + t % cols;
  const int side = rows - 2, s = t - across;
  return (2 + s % side) * ld + (s < side ? 1 : cols);
}

class MpiAccInstance : public MpiJacobiInstance {
 public:
  using MpiJacobiInstance::MpiJacobiInstance;
  ~MpiAccInstance() override {
    if (!entered_) return;
    acc_exit_delete(out_.data(), face_floats());
    acc_exit_delete(in_.data(), face_floats());
  }

  void setup() override {
    MpiJacobiInstance::setup();
    // One GPU a rank, by the rank's place on its node; ranks share GPUs when there are fewer.
    const int gpus = acc_get_num_devices(acc_device_not_host);
    if (gpus > 0) acc_set_device_num(mpi::local_rank() % gpus, acc_device_not_host);
    // On the GPU the sweep's multiply-adds are contracted: its rounding differs from the
    // serial loop's (held to serial_tolerance); on the host it is the serial arithmetic.
    bitwise_ = gpus == 0;
    halo_path_ = gpus == 0 ? "host" : "host-staged";
    device_.enter(initial_.data(), u0_.data(), u1_.data(), b_.points());
    out_.assign(static_cast<std::size_t>(face_floats()), 0.0f);
    in_.assign(static_cast<std::size_t>(face_floats()), 0.0f);
    acc_enter_create(out_.data(), face_floats());
    acc_enter_create(in_.data(), face_floats());
    entered_ = true;
  }
  void reset() override { device_.reset(); }
  void finish() override {
    device_.fetch(const_cast<float*>(result_));
    float* other = result_ == u0_.data() ? u1_.data() : u0_.data();
    time_exchange([&](float* grid) { exchange_staged(grid, acc_async_sync); }, other);
    gather();
  }

 protected:
  // The course's exchange: edges packed on the device, brought to the host (update self),
  // exchanged by MPI, sent back (update device) and unpacked into the halo ring. `queue`
  // orders the device work; the host part waits for it.
  void exchange_staged(float* grid, int queue) {
    if (b_.halo_floats() == 0) return;  // a single block: nothing to exchange
    pack(grid, queue);
    exchange_packed(grid, queue);
  }

  // exchange_staged after its pack, for a caller that queues other work between the two.
  void exchange_packed(float* grid, int queue) {
    float* out = out_.data();
    float* in = in_.data();
    const std::int64_t n = face_floats();
#pragma acc update self(out[0:n]) async(queue)
#pragma acc wait(queue)
    exchange_faces(out, in);
#pragma acc update device(in[0:n]) async(queue)
    unpack(grid, queue);
  }

  // out = the block's edges of `grid`, on the device.
  void pack(const float* grid, int queue) {
    const int ld = static_cast<int>(b_.ld()), rows = static_cast<int>(b_.rows),
              cols = static_cast<int>(b_.cols), points = static_cast<int>(b_.points());
    const int n = static_cast<int>(face_floats());
    float* out = out_.data();
#pragma acc parallel loop gang vector present(grid[0:points], out[0:n]) async(queue)
    for (int t = 0; t < n; ++t) {
      int k;
      if (t < cols) {
        k = ld + 1 + t;
      } else if (t < 2 * cols) {
        k = rows * ld + 1 + (t - cols);
      } else if (t < 2 * cols + rows) {
        k = (t - 2 * cols + 1) * ld + 1;
      } else {
        k = (t - 2 * cols - rows + 1) * ld + cols;
      }
      out[t] = grid[k];
    }
  }

  // The halo ring of `grid` = the neighbours' edges in `in`, on the sides that have one.
  void unpack(float* grid, int queue) {
    const int ld = static_cast<int>(b_.ld()), rows = static_cast<int>(b_.rows),
              cols = static_cast<int>(b_.cols), points = static_cast<int>(b_.points());
    const int n = static_cast<int>(face_floats());
    const int north = b_.north >= 0, south = b_.south >= 0, west = b_.west >= 0,
              east = b_.east >= 0;
    const float* in = in_.data();
#pragma acc parallel loop gang vector present(grid[0:points], in[0:n]) async(queue)
    for (int t = 0; t < n; ++t) {
      if (t < cols) {
        if (north) grid[1 + t] = in[t];
      } else if (t < 2 * cols) {
        if (south) grid[(rows + 1) * ld + 1 + (t - cols)] = in[t];
      } else if (t < 2 * cols + rows) {
        if (west) grid[(t - 2 * cols + 1) * ld] = in[t];
      } else {
        if (east) grid[(t - 2 * cols - rows + 1) * ld + cols + 1] = in[t];
      }
    }
  }

  // One sweep of the block's outer ring (the points that read the halo) from `in` to `out` in
  // one construct, queued on `queue`; with `check`, the ring's largest change, waited for.
  float sweep_ring(const float* in, float* out, bool check, int queue) {
    const int ld = static_cast<int>(b_.ld()), rows = static_cast<int>(b_.rows),
              cols = static_cast<int>(b_.cols), points = static_cast<int>(b_.points());
    // One lane a point: GCC's default gang count, whatever the loop's length (16896 on the
    // H200), would launch 4 million lanes for the ring's ~50000 points on the critical path.
    const int n = ring_points(rows, cols), gangs = (n + 255) / 256;
    const float c1f = p_.c1f, wy2 = p_.wy2, hx2 = p_.hx2, c2 = p_.c2;
    float change = 0.0f;
    if (!check) {
#pragma acc parallel loop gang vector num_gangs(gangs) vector_length(256) \
    present(in[0:points], out[0:points]) async(queue)
      for (int t = 0; t < n; ++t) {
        const int k = ring_point(t, rows, cols, ld);
        out[k] = (c1f + wy2 * (in[k - ld] + in[k + ld]) + hx2 * (in[k - 1] + in[k + 1])) * c2;
      }
    } else {
#pragma acc parallel loop gang vector num_gangs(gangs) vector_length(256) \
    present(in[0:points], out[0:points]) reduction(max:change) async(queue)
      for (int t = 0; t < n; ++t) {
        const int k = ring_point(t, rows, cols, ld);
        const float v =
            (c1f + wy2 * (in[k - ld] + in[k + ld]) + hx2 * (in[k - 1] + in[k + 1])) * c2;
        const float d = __builtin_fabsf(v - in[k]);
        change = d > change ? d : change;
        out[k] = v;
      }
#pragma acc wait(queue)
    }
    return change;
  }

  // One sweep of the rectangle of local rows [row, row + height) and columns
  // [col, col + width) from `in` to `out`, queued on `queue`; with `check`, the rectangle's
  // largest change, waited for. An empty rectangle launches nothing.
  float sweep_part(const float* in, float* out, int row, int height, int col, int width,
                   bool check, int queue) {
    float change = 0.0f;
    if (height <= 0 || width <= 0) return change;
    const int ld = static_cast<int>(b_.ld()), points = static_cast<int>(b_.points());
    const int n = height * width;
    const float c1f = p_.c1f, wy2 = p_.wy2, hx2 = p_.hx2, c2 = p_.c2;
    if (!check) {
#pragma acc parallel loop gang vector vector_length(256) present(in[0:points], out[0:points]) \
    async(queue)
      for (int t = 0; t < n; ++t) {
        const int k = (row + t / width) * ld + col + t % width;
        out[k] = (c1f + wy2 * (in[k - ld] + in[k + ld]) + hx2 * (in[k - 1] + in[k + 1])) * c2;
      }
    } else {
#pragma acc parallel loop gang vector vector_length(256) present(in[0:points], out[0:points]) \
    reduction(max:change) async(queue)
      for (int t = 0; t < n; ++t) {
        const int k = (row + t / width) * ld + col + t % width;
        const float v =
            (c1f + wy2 * (in[k - ld] + in[k + ld]) + hx2 * (in[k - 1] + in[k + 1])) * c2;
        const float d = __builtin_fabsf(v - in[k]);
        change = d > change ? d : change;  // fmaxf is not in nvptx's default libraries
        out[k] = v;
      }
#pragma acc wait(queue)
    }
    return change;
  }

 private:
  AccResidentPair device_;
  std::vector<float> out_, in_;  // packed edges, host and device copies
  bool entered_ = false;
};

}  // namespace acclab::jacobi2d
