#include "kit/mpi_steps.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace acclab::mpi {

void compare_with_serial(Verification& v, const float* result, const float* serial, std::int64_t n,
                         bool bitwise, const std::string& points, const std::string& serial_name) {
  std::int64_t differing = 0;
  for (std::int64_t k = 0; k < n; ++k) {
    if (!(result[k] == serial[k])) ++differing;
  }
  v.outputs["points_differing_from_serial"] = differing;
  if (!bitwise) return;
  // Besides the workload's own bounds: bit for bit the serial result.
  if (differing != 0) {
    v.ok = false;
    v.detail = fmt::format("{} of {} {} differ from the serial {}; {}", differing, n, points,
                           serial_name, v.detail);
  } else {
    v.detail = fmt::format("bit for bit the serial {}; {}", serial_name, v.detail);
  }
}

Verification shared_verdict(const Verification& v) {
  nlohmann::json verdict = {{"ok", v.ok}, {"detail", v.detail}, {"outputs", v.outputs}};
  verdict = nlohmann::json::parse(broadcast(verdict.dump()));
  Verification shared;
  shared.ok = verdict["ok"];
  shared.detail = verdict["detail"];
  shared.outputs = verdict["outputs"];
  return shared;
}

nlohmann::json halo_distribution(const HaloReport& r) {
  double halo = 0;
  for (double h : all_gather(double(r.halo_floats) * sizeof(float))) halo += h;
  // halo_bytes_per_sweep: one key for every workload (a diffusion3d step is one sweep).
  nlohmann::json d = {{"ranks", size()},
                      {"proc_grid", r.proc_grid},
                      {"halo_path", r.halo_path},
                      {"halo_bytes_per_sweep", halo},
                      {"mpi_library", initialised() ? library_version() : "not started"}};
  if (r.exchange_s >= 0) {
    d["exchange_s"] = r.exchange_s;
    // The replayed exchange over the last run's time, both the slowest rank's.
    d["exchange_share"] =
        r.run_s > 0 ? std::min(1.0, r.exchange_s * double(r.steps) / r.run_s) : 0.0;
  }
  return d;
}

}  // namespace acclab::mpi
