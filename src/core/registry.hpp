// The registry: workloads, their variants, and the contract every variant implements.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/params.hpp"

namespace acclab {

enum class Backend { serial, openmp, openacc, omptarget, cuda };
const char* to_string(Backend backend);

// The machine limit a variant's rate is compared with.
enum class Resource {
  memory_bandwidth,  // GB/s against the copy bandwidth of the memory the variant works in
  none,              // no meaningful limit
};

// The floating-point type a variant's arithmetic is done in: which compute roof (peak FP64 or
// FP32 rate) its flops are drawn against.
enum class Precision { fp64, fp32 };
const char* to_string(Precision precision);

// Where a variant's computation ran, as the runner reports it.
enum class Place { host, gpu };

struct Verification {
  bool ok = false;
  std::string detail;  // one line: what was compared and how it ended
  nlohmann::json outputs = nlohmann::json::object();  // values the user reads (e.g. the mean)
};

// One variant set up for one parameter set. The runner calls, in order:
//   setup() once, run() once untimed (warm-up: GCC JIT-compiles PTX at first launch),
//   transfers_only() (while it returns true) a few times timed, run() `reps` times timed,
//   finish() once, verify() once: the results verified are those of the last timed run.
// reset() comes, untimed, before every run() and every transfers_only(). The destructor releases
// everything, whatever was called.
class Instance {
 public:
  virtual ~Instance() = default;

  // Allocates and initialises the inputs; variants that keep data on the device across runs
  // copy it there here. Blocking. Timed as setup_s.
  virtual void setup() = 0;

  // One complete execution of the computation as the variant's step defines it, including
  // the data movement that step performs on every run. Blocking: the results are complete
  // (on the device for device-resident variants) when it returns. Timed.
  virtual void run() = 0;

  // Restores the state that run() starts from (inputs that a run overwrites), wherever the
  // variant keeps it: host arrays, or device arrays for variants whose data stays on the
  // device. Not timed. Blocking.
  virtual void reset() {}

  // Performs only the host<->device data movement that one run() performs, without the
  // computation, and returns true; returns false when run() moves no data. The runner
  // times it to report the transfer share of a run. It may overwrite host arrays that run()
  // initialises, never the inputs run() reads without initialising. Blocking.
  virtual bool transfers_only() { return false; }

  // Brings results back to host memory for verify(). Blocking. Timed as copy_out_s.
  virtual void finish() {}

  // Compares the results with values computed independently of the variant (an analytic
  // solution or the serial reference). Never modifies the results.
  virtual Verification verify() = 0;

  // A distributed (MPI) step's account of how its run was spread over the ranks and what its
  // halo exchange cost: ranks, proc_grid, halo_path, halo_bytes_per_sweep, exchange_s,
  // exchange_share, mpi_library. Null for the other steps. Called after verify(), on every
  // rank (it may be collective).
  virtual nlohmann::json distribution() { return nullptr; }

  // Perturbs the host copy of the result so that verify() must fail. Used by the tests
  // (acclab run --corrupt-result) to prove that verification catches a wrong answer.
  virtual void corrupt_result() = 0;
};

// Counts of one run, used to turn times into rates. Every model states its arithmetic next to
// its code. `outputs` are the verified run's outputs, for work known only afterwards (the
// sweeps an iterative solver took).
struct PerfModel {
  using Count = std::function<double(const Params& params, const nlohmann::json& outputs)>;
  Count flops;
  Count bytes;
  Resource resource = Resource::memory_bandwidth;
  Precision precision = Precision::fp64;
};

struct Variant {
  std::string workload;
  std::string name;
  Backend backend = Backend::serial;
  std::string family;  // variants comparable with each other on one ladder (same computation)
  int step = 0;        // position on its family's ladder, from 1
  std::string description;
  std::function<std::unique_ptr<Instance>(const Params&)> factory;
  PerfModel model;
  // Non-empty: the variant cannot run safely on a GPU, for this reason (it is then reported
  // unavailable there, and still runs where OpenACC falls back to the host).
  std::string gpu_unavailable_reason;
  // The variant's source, relative to its workload's folder (acclab explain reads the compiler's
  // notes kept for it).
  std::string source;
  // Optional: refuses parameters the variant cannot run with (throws UsageError). acclab checks
  // every selected variant with every parameter set before running any.
  std::function<void(const Params&)> check_params;
  // Optional: refuses values of the variant's own tunings that no shape it can run has (its
  // row's tuning set). acclab checks every selected variant's, available here or not, so that
  // a bad --set is refused on a machine without the variant's backend too.
  std::function<void(const Params&)> check_tunings;
  // The workload parameters that are this variant's own knobs (RAJAPerf's tunings): --set
  // accepts them only for a selection that holds a variant declaring them, and every result
  // names the values it ran with.
  std::vector<std::string> tunings;
  // Runs as one of several MPI ranks (its ladder row requires mpi): under mpirun with more than
  // one rank, only these run, every rank taking its part.
  bool distributed = false;

  std::string id() const { return workload + "/" + name; }
};

struct Workload {
  std::string name;
  std::string description;
  std::vector<ParamSpec> params;
  std::string default_preset = "small";
  // Rejects parameter combinations that are not a valid problem (throws UsageError).
  std::function<void(const Params&)> validate;
  // Bytes of host memory one instance allocates, checked against the host's free memory.
  std::function<double(const Params&)> host_bytes;
  // Bytes of device memory a GPU instance allocates, checked against the device's free memory.
  std::function<double(const Params&)> device_bytes;
};

// One row of a workload's ladder table (workloads/<workload>/ladder.json), as the build
// generates it for the rows whose backend was found.
struct LadderRow {
  std::string name;
  Backend backend = Backend::serial;
  std::string family;
  std::string source;
  std::function<std::unique_ptr<Instance>(const Params&)> factory;
  std::string description;
  std::vector<std::string> tunings;
  std::string gpu_unavailable_reason;
  bool distributed = false;  // the row requires mpi
  // The knobs the step declares in its own file (the row's `tuning_set`): each is also named in
  // `tunings`, and the registry adds them to the workload's parameters.
  TuningSet tuning_set;
};

class Registry {
 public:
  void add_workload(Workload workload);
  void add_variant(Variant variant);
  // Adds the rows in order, each numbered by its position within its family among `rows`,
  // with the performance model `model_of` gives it. `adjust`, when given, completes each
  // variant before it is added. A row's tuning set adds its parameters to the workload's (a
  // parameter several rows declare must be declared the same by each) and its check as the
  // variant's check_tunings. Throws std::logic_error for a
  // tuning that names no parameter of the workload, a declared one the row does not name, or
  // a parameter declared twice in two ways.
  void add_ladder(const std::string& workload, const std::vector<LadderRow>& rows,
                  const std::function<PerfModel(const LadderRow&)>& model_of,
                  const std::function<void(Variant&)>& adjust = {});

  const std::vector<Workload>& workloads() const { return workloads_; }
  const std::vector<Variant>& variants() const { return variants_; }

  // Throws UsageError naming the workload when it is unknown.
  const Workload& workload(const std::string& name) const;
  // Variants of `workload` whose name matches the shell glob (or one of several globs
  // separated by commas), in ladder order (family, step). Throws UsageError when none matches.
  std::vector<const Variant*> select(const std::string& workload, const std::string& glob) const;

 private:
  std::vector<Workload> workloads_;
  std::vector<Variant> variants_;
};

// The values `variant`'s tunings take in `params`, as "key=value,key=value" in the order the
// variant declares them: the name of the tuning a result ran with. "default" for a variant
// without tunings.
std::string tuning_name(const Variant& variant, const Params& params);

// The parameters a result of `variant` reports: `params` less the tunings of the workload's
// other variants, which `variant` never reads.
Params reported_params(const Registry& registry, const Variant& variant, const Params& params);

// A variant's tunings as `acclab list --format json` shows them: name, help, type, the value
// in the workload's default preset (or the plain value an unset one takes; null where it is
// derived from others), and the allowed choices or range.
nlohmann::json tunings_json(const Variant& variant, const Workload& workload);

// Refuses (UsageError naming the --set) an override of a tuning that none of the `selected`
// variants declares: it would change nothing that runs. Overrides of the workload's other
// parameters pass.
void check_tuning_overrides(const Registry& registry, const std::string& workload,
                            const std::vector<const Variant*>& selected,
                            const std::vector<std::string>& overrides);
// The same for one tuning `key` set through `option` (the words named in the refusal, such as
// "--devices 2").
void check_tuning_use(const Registry& registry, const std::string& workload,
                      const std::vector<const Variant*>& selected, const std::string& key,
                      const std::string& option);

// Registers every workload and variant built into this binary.
void register_all_workloads(Registry& registry);

}  // namespace acclab
