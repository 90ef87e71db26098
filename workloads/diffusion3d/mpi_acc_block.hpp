// What the OpenACC MPI steps share: the box's fields resident on this rank's GPU, its faces
// packed and its shell unpacked on the device, and a step over any sub-box of the box.
// Include it only from OpenACC sources.
#pragma once

#include <openacc.h>

#include <chrono>
#include <climits>
#include <cstdint>
#include <memory>

#include "kit/acc_data.hpp"
#include "core/mpi_env.hpp"
#include "core/profile.hpp"
#include "workloads/diffusion3d/acc_resident_steps.hpp"
#include "workloads/diffusion3d/mpi_blocks.hpp"

namespace acclab::diffusion3d {

class MpiAccInstance : public MpiDiffusionInstance {
 public:
  using MpiDiffusionInstance::MpiDiffusionInstance;
  ~MpiAccInstance() override { release_device(); }

  void setup() override {
    MpiDiffusionInstance::setup();
    // One GPU a rank, by the rank's place on its node; ranks share GPUs when there are fewer.
    const int gpus = acc_get_num_devices(acc_device_not_host);
    if (gpus > 0) acc_set_device_num(mpi::local_rank() % gpus, acc_device_not_host);
    // On the GPU the step's multiply-adds are contracted: its rounding differs from the
    // original's (held to the workload's bound); on the host it is the original's arithmetic.
    bitwise_ = gpus == 0;
    halo_path_ = gpus == 0 ? "host" : "host-staged";
    // The box's initial cells, its two fields (shell included) and the packed faces, on the
    // device for the whole measurement.
    acc_enter_copyin(initial_.data(), b_.cells());
    acc_enter_create(f_.data(), b_.points());
    acc_enter_create(fn_.data(), b_.points());
    out_.assign(b_.halo_floats() > 0 ? std::size_t(b_.face_floats()) : 0, 0.0f);
    in_.assign(out_.size(), 0.0f);
    acc_enter_create(out_.data(), std::int64_t(out_.size()));
    acc_enter_create(in_.data(), std::int64_t(in_.size()));
    entered_ = true;
    if (b_.halo_floats() == 0 && b_.points() <= INT_MAX) {
      resident_ = std::make_unique<ResidentSteps>("diffusion3d MPI step on one rank");
    }
    extra_outputs_["resident_gangs"] = resident_ ? resident_->gangs() : 0;
  }
  // Both device fields' cells from the device copy of the initial ones (the shells are filled
  // by the exchange before they are read). Blocking.
  void reset() override {
    const float* init = initial_.data();
    float* f = f_.data();
    float* fn = fn_.data();
    const std::int64_t cells = b_.cells(), points = b_.points(), bx = b_.size[0], by = b_.size[1],
                       sy = b_.sy(), sz = b_.sz();
#pragma acc parallel loop gang vector present(init[0:cells], f[0:points], fn[0:points])
    for (std::int64_t m = 0; m < cells; ++m) {
      const std::int64_t i = m % bx, j = (m / bx) % by, k = m / (bx * by);
      const std::int64_t ix = (k + 1) * sz + (j + 1) * sy + Block::lead + i;
      f[ix] = init[m];
      fn[ix] = init[m];
    }
  }
  void finish() override {
    resident_.reset();
    acc_update_host(const_cast<float*>(block_result_), b_.points());
    time_exchange([&](float* field) { exchange_staged(field, acc_async_sync); }, spare_field());
    gather();
    release_device();
    drop_box_fields();
  }

 protected:
  // A box without neighbours (one rank) has nothing to exchange: all its steps in one resident
  // construct, as acc_tuned runs them, so that MPI costs nothing there. False where the box has
  // neighbours (or that construct cannot run): the caller steps one construct a step.
  bool run_alone() {
    if (!resident_ || resident_->gangs() == 0) return false;
    const auto start = std::chrono::steady_clock::now();
    {
      profile::Region region("steps");
      const ResidentField field{int(b_.size[0]), int(b_.size[1]),     int(b_.size[2]),
                                int(b_.sy()),    int(b_.sz()),        int(b_.at(0, 0, 0)),
                                int(b_.points())};
      steps_ = resident_->run(field, p_, f_.data(), fn_.data(), p_.steps,
                              "run it on more than one rank, or acc_flat");
    }
    block_result_ = steps_ % 2 ? fn_.data() : f_.data();
    run_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return true;
  }

  // The course's exchange: faces packed on the device, brought to the host (update self),
  // exchanged by MPI, sent back (update device) and unpacked into the shell. `queue` orders
  // the device work; the host part waits for it.
  void exchange_staged(float* field, int queue) {
    if (b_.halo_floats() == 0) return;  // a single box: nothing to exchange
    pack_faces(field, queue);
    exchange_packed(field, queue);
  }

  // exchange_staged's first part: the faces that have a neighbour into out, on the device.
  void pack_faces(const float* field, int queue) {
    for (int s = 0; s < 6; ++s) {
      if (b_.neighbour[s] >= 0) pack(field, faces_[s], queue);
    }
  }

  // exchange_staged after pack_faces, for a caller that queues other work between the two.
  void exchange_packed(float* field, int queue) {
    float* out = out_.data();
    float* in = in_.data();
    const std::int64_t n = b_.face_floats();
#pragma acc update self(out[0:n]) async(queue)
#pragma acc wait(queue)
    exchange_faces(out, in);
#pragma acc update device(in[0:n]) async(queue)
    for (int s = 0; s < 6; ++s) {
      if (b_.neighbour[s] >= 0) unpack(field, faces_[s], queue);
    }
  }

  // The face's cells of `field` into out, on the device.
  void pack(const float* field, const Face& face, int queue) {
    const std::int64_t points = b_.points(), n = b_.face_floats();
    const std::int64_t offset = face.offset, count = face.count, na = face.na, sa = face.sa,
                       sb = face.sb, cell = face.cell;
    float* out = out_.data();
#pragma acc parallel loop gang vector present(field[0:points], out[0:n]) async(queue)
    for (std::int64_t t = 0; t < count; ++t) {
      out[offset + t] = field[cell + (t % na) * sa + (t / na) * sb];
    }
  }

  // The face's shell cells of `field` from in, on the device.
  void unpack(float* field, const Face& face, int queue) {
    const std::int64_t points = b_.points(), n = b_.face_floats();
    const std::int64_t offset = face.offset, count = face.count, na = face.na, sa = face.sa,
                       sb = face.sb, halo = face.halo;
    const float* in = in_.data();
#pragma acc parallel loop gang vector present(field[0:points], in[0:n]) async(queue)
    for (std::int64_t t = 0; t < count; ++t) {
      field[halo + (t % na) * sa + (t / na) * sb] = in[offset + t];
    }
  }

  // One step of the box's cells [i0, i1) x [j0, j1) x [k0, k1) from f to fn, queued on
  // `queue`: the original's expression, a wall's missing neighbour the cell itself. An empty
  // sub-box launches nothing.
  void step_part(const float* f, float* fn, std::int64_t i0, std::int64_t i1, std::int64_t j0,
                 std::int64_t j1, std::int64_t k0, std::int64_t k1, int queue) {
    if (i0 >= i1 || j0 >= j1 || k0 >= k1) return;
    const std::int64_t points = b_.points(), sy = b_.sy(), sz = b_.sz();
    const std::int64_t bx = b_.size[0], by = b_.size[1], bz = b_.size[2];
    const int wxm = b_.neighbour[0] < 0, wxp = b_.neighbour[1] < 0, wym = b_.neighbour[2] < 0,
              wyp = b_.neighbour[3] < 0, wzm = b_.neighbour[4] < 0, wzp = b_.neighbour[5] < 0;
    const float cc = p_.cc, ce = p_.ce, cw = p_.cw, cn = p_.cn, cs = p_.cs, ct = p_.ct, cb = p_.cb;
#pragma acc parallel loop gang collapse(2) present(f[0:points], fn[0:points]) async(queue)
    for (std::int64_t k = k0; k < k1; ++k) {
      for (std::int64_t j = j0; j < j1; ++j) {
#pragma acc loop vector
        for (std::int64_t i = i0; i < i1; ++i) {
          const std::int64_t ix = (k + 1) * sz + (j + 1) * sy + Block::lead + i;
          const std::int64_t ip = i == bx - 1 && wxp ? ix : ix + 1;
          const std::int64_t im = i == 0 && wxm ? ix : ix - 1;
          const std::int64_t jp = j == by - 1 && wyp ? ix : ix + sy;
          const std::int64_t jm = j == 0 && wym ? ix : ix - sy;
          const std::int64_t kp = k == bz - 1 && wzp ? ix : ix + sz;
          const std::int64_t km = k == 0 && wzm ? ix : ix - sz;
          fn[ix] = cc * f[ix] + ce * f[ip] + cw * f[im] + cn * f[jp] + cs * f[jm] + ct * f[kp] +
                   cb * f[km];
        }
      }
    }
  }

 private:
  void release_device() {
    if (!entered_) return;
    acc_exit_delete(initial_.data(), b_.cells());
    acc_exit_delete(f_.data(), b_.points());
    acc_exit_delete(fn_.data(), b_.points());
    acc_exit_delete(out_.data(), std::int64_t(out_.size()));
    acc_exit_delete(in_.data(), std::int64_t(in_.size()));
    entered_ = false;
  }

  std::vector<float> out_, in_;  // packed faces, host and device copies
  bool entered_ = false;
  std::unique_ptr<ResidentSteps> resident_;  // for a box without neighbours
};

}  // namespace acclab::diffusion3d
