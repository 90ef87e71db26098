// acclab iccg MATRIX.mtx [--variant V] [--rhs FILE] [--colors C] [--tol EPS] [--maxiter N]
//                        [--shift S] [--out x.mtx] [--format table|json]
#include "iccg_command.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

#include "commands.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/machine.hpp"
#include "core/mpi_env.hpp"
#include "core/report.hpp"
#include "core/runner.hpp"
#include "integer_option.hpp"
#include "io/text_vector.hpp"
#include "path_option.hpp"
#include "progress.hpp"
#include "safe_text.hpp"
#include "workloads/iccg/matrix_solve.hpp"

namespace acclab {

void add_iccg_options(CLI::App* cmd, IccgArgs& args) {
  cmd->add_option("matrix", args.matrix, "real symmetric Matrix Market matrix (coordinate)")
      ->required();
  cmd->add_option("--rhs", args.rhs, "right-hand side: n numbers (default b = A 1)")
      ->check(non_empty_path());
  add_integer_option(cmd, "--colors", args.colors, std::numeric_limits<int>::min(),
                     std::numeric_limits<int>::max(),
                     "0 CM, -1 RCM, <= -2 CM-RCM with |c| colours, >= 2 multicolour (default -20)");
  cmd->add_option("--tol", args.tol,
                  "stop when ||b - A x|| / ||b|| < tol, 2.2e-16 <= tol < 1 (default 1e-8)");
  add_integer_option(cmd, "--maxiter", args.maxiter, 1, iccg::max_iterations_limit,
                     "give up after this many iterations (10000)");
  cmd->add_option("--shift", args.shift,
                  "factor (1 + S) times the diagonal (shifted IC(0), for matrices on which IC(0) "
                  "breaks down; default 0: none)");
  cmd->add_option("--out", args.out,
                  "write x here as a Matrix Market array, only when the solve converged")
      ->check(non_empty_path());
  cmd->add_option("--variant", args.variant,
                  "original, optimized, cuda or cusparse (default cuda with a CUDA GPU, optimized "
                  "where OpenACC runs on a GPU, else original)");
  cmd->add_option("--format", args.format, "table (default) or json");
  cmd->add_flag("--quiet", args.quiet,
                "no progress on stderr (by default a line every 5 s during the read and the "
                "solve, or one redrawn line on a terminal)");
}

namespace {

bool runs_on_gpu(const Variant& variant, Machine& machine) {
  return Runner(machine).place_of(variant) == Place::gpu;
}

// The bandwidth limit where the variant runs (the ladder's: the device's copy rate on a GPU, the
// host's otherwise); nullopt where none was measured.
std::optional<double> limit_gbytes_per_s(const Variant& variant, Machine& machine) {
  if (runs_on_gpu(variant, machine)) return machine.device_copy_gbytes_per_s();
  return machine.host_copy_gbytes_per_s();
}

std::string status_of(const iccg::MatrixSolution& s) {
  return s.converged   ? "converged"
         : !s.finite   ? "not finite"
         : s.stagnated ? "stagnated"
                       : "not converged";
}

// The report as one JSON object (schema acclab.iccg/1): a ladder result's fields and the
// variant's.
void print_json(const IccgArgs& args, const iccg::MatrixVariantChoice& choice,
                const iccg::MatrixSystem& system, const iccg::MatrixSolution& s, Machine& machine) {
  const bool original = choice.variant->name == "original";
  const bool on_gpu = runs_on_gpu(*choice.variant, machine);
  const std::optional<double> limit = limit_gbytes_per_s(*choice.variant, machine);
  const auto optional_number = [](std::optional<double> v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  nlohmann::json j = {
      {"schema", "acclab.iccg/1"},
      {"matrix", args.matrix},
      {"variant", choice.variant->name},
      {"backend", to_string(choice.variant->backend)},
      {"variant_reason", choice.reason},
      {"place", on_gpu ? "gpu" : "host"},
      {"rows", s.rows},
      {"nonzeros", s.nonzeros},
      {"colors", s.colors},
      {"tol", args.tol},
      {"shift", args.shift},
      {"status", status_of(s)},
      {"iterations", s.iterations},
      {"restarts", s.restarts},
      {"residual", s.finite ? nlohmann::json(s.residual) : nlohmann::json(nullptr)},
      {"recurrence_residual",
       std::isfinite(s.recurrence) ? nlohmann::json(s.recurrence) : nlohmann::json(nullptr)},
      {"read_s", system.read_s},
      {"setup_s", s.setup_s},
      {"solve_s", s.solve_s},
      {"time_s", s.run_s},
      {"timed", "the variant's solves, restarts included, after an untimed warm-up solve"},
      {"warm_up_iterations", s.warm_up_iterations},
      {"seconds_per_iteration", s.seconds_per_iteration},
      {"bytes_per_iteration", s.bytes_per_iteration},
      {"bytes", s.bytes_per_iteration * s.iterations},
      {"gbytes_per_s", s.gbytes_per_s},
      {"limit_gbytes_per_s", optional_number(limit)},
      {"limit_fraction",
       optional_number(limit && *limit > 0 ? std::optional<double>(s.gbytes_per_s / *limit)
                                           : std::nullopt)},
      {"error_from_ones", optional_number(s.error_from_ones)},
      {"build", machine.build_json()},
      {"command_line", process_command_line()}};
  if (original) j["threads"] = s.threads;
  fmt::print("{}\n", json_text(j, 2));  // the paths in it may hold bytes that are not UTF-8
}

// The report as lines: the variant, the system, the outcome and the times.
// "1 thread", "16 threads".
std::string counted(std::int64_t count, std::string_view noun) {
  return fmt::format("{} {}{}", count, noun, count == 1 ? "" : "s");
}

void print_table(const IccgArgs& args, const iccg::MatrixVariantChoice& choice,
                 const iccg::MatrixSystem& system, const iccg::MatrixSolution& s,
                 Machine& machine) {
  const bool original = choice.variant->name == "original";
  // An OpenACC step without a GPU runs its directives on the host: say so, since its times are
  // then the CPU's.
  const std::string place = runs_on_gpu(*choice.variant, machine) ? "on the GPU"
                            : choice.variant->backend == Backend::openacc
                                ? "on the host: OpenACC's host fallback, no GPU"
                                : "on the host";
  fmt::print("variant {} ({}), {}\n", choice.variant->name, choice.reason, place);
  fmt::print("iccg {}: {}, {}, {}{}\n", args.matrix, counted(s.rows, "row"),
             counted(s.nonzeros, "nonzero"), counted(s.colors, "colour"),
             args.shift > 0 ? fmt::format(", shifted IC(0): the diagonal times {:g} (--shift {:g})",
                                          1 + args.shift, args.shift)
                            : std::string());
  fmt::print(
      "{} after {}{}: ||b - A x|| / ||b|| = {:.3g} {} --tol {:g} (recurrence "
      "{:.3g})\n",
      s.converged ? "converged" : "NOT converged", counted(s.iterations, "iteration"),
      s.restarts > 0 ? fmt::format(" ({} from b - A x)", counted(s.restarts, "restart")) : "",
      s.residual, s.residual < args.tol ? "<" : ">=", args.tol, s.recurrence);
  fmt::print(
      "read {:.3f} s, setup (ordering) {:.3f} s, solve {:.3f} s ({:.1f} µs and {:.1f} GB/s "
      "an iteration, {}; timed after an untimed warm-up of {})\n",
      system.read_s, s.setup_s, s.solve_s, 1e6 * s.seconds_per_iteration, s.gbytes_per_s,
      original ? counted(s.threads, "thread")
               : fmt::format("{}'s solve alone: {:.3f} s", choice.variant->name, s.run_s),
      counted(s.warm_up_iterations, "iteration"));
  if (s.error_from_ones) fmt::print("b = A 1: max |x - 1| = {:.3g}\n", *s.error_from_ones);
}

}  // namespace

int iccg_command(const IccgArgs& args, const Registry& registry) {
  if (mpi::size() > 1) {
    throw UsageError(fmt::format(
        "iccg: no step of it is an MPI step; under mpirun with {} ranks every rank would solve "
        "the whole system: run acclab iccg without mpirun",
        mpi::size()));
  }
  require_utf8_name("--variant", args.variant);
  require_utf8_name("--format", args.format);
  if (args.format != "table" && args.format != "json") {
    throw UsageError(fmt::format("--format {}: expected table or json", args.format));
  }
  Machine machine;
  const iccg::MatrixVariantChoice choice =
      iccg::choose_matrix_variant(args.variant, registry, machine);
  const iccg::MatrixSolveOptions options{.colors = args.colors,
                                         .tol = args.tol,
                                         .max_iterations = args.maxiter,
                                         .shift = args.shift,
                                         .variant = choice.variant};
  iccg::check_options(options);
  if (!args.out.empty()) check_output_path("--out", args.out, {args.matrix, args.rhs});
  // One solve may take minutes on a large matrix: the ticker shows time passing.
  Progress progress(args.quiet);
  progress.update(fmt::format("iccg {}: reading the system", args.matrix));
  progress.begin(0);
  const iccg::MatrixSystem system = iccg::read_matrix_system(args.matrix, args.rhs);
  progress.update(fmt::format("iccg {}: ordering, factoring and solving by {}", args.matrix,
                              choice.variant->name));
  const iccg::MatrixSolution s = iccg::solve_matrix(system, options);
  progress.finish();

  if (args.format == "json") {
    print_json(args, choice, system, s, machine);
  } else {
    print_table(args, choice, system, s, machine);
  }
  if (!s.converged) {
    const std::string why =
        !s.finite ? fmt::format("the solve produced NaN or Inf after {} iterations", s.iterations)
        : s.stagnated
            ? fmt::format(
                  "stagnated at ||b - A x|| / ||b|| = {:.3g} after {} iterations: --tol {:g} is "
                  "below what double precision reaches on this matrix",
                  s.residual, s.iterations, args.tol)
            : fmt::format(
                  "not converged after {} iterations (--maxiter {}): ||b - A x|| / ||b|| = "
                  "{:.3g}, --tol {:g}",
                  s.iterations, args.maxiter, s.residual, args.tol);
    std::fflush(stdout);
    print_error_line(
        fmt::format("iccg {}: {}{}", args.matrix, why,
                    args.out.empty() ? "" : fmt::format("; --out {} left as it was", args.out)));
    return 1;
  }
  if (!args.out.empty()) {
    io::write_matrix_market_vector(
        args.out, "--out", s.x,
        fmt::format(
            "acclab iccg {} solution{}", args.matrix,
            args.shift > 0 ? fmt::format(" (shifted IC(0), --shift {:g})", args.shift) : ""));
    if (args.format == "table") fmt::print("x written to {}\n", args.out);
  }
  return 0;
}

}  // namespace acclab
