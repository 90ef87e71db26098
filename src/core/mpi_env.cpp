#include "core/mpi_env.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <fcntl.h>
#include <sched.h>
#include <omp.h>
#include <unistd.h>

#ifdef ACCLAB_HAVE_MPI
#include <mpi.h>
#endif

#include "core/safe_text.hpp"

namespace acclab::mpi {
namespace {

bool initialised_here = false;  // init_if_launched called MPI_Init_thread
int world_rank = 0, world_size = 1, node_rank = 0, node_size = 1;
int terminal_fd = 2;  // where abort_all writes: stderr as it was before quiet_unless_root

}  // namespace

bool built() {
#ifdef ACCLAB_HAVE_MPI
  return true;
#else
  return false;
#endif
}

bool launched_by_mpirun() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"}) {
    if (std::getenv(name)) return true;
  }
  return false;
}

void init_if_launched(int* argc, char*** argv) {
#ifdef ACCLAB_HAVE_MPI
  if (initialised_here || !launched_by_mpirun()) return;
  int provided = 0;
  // Only the main thread calls MPI; OpenMP threads never do.
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  initialised_here = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world_rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &node_rank);
  MPI_Comm_size(node, &node_size);
  const int node_ranks = node_size;
  MPI_Comm_free(&node);
  // The ranks of a node share its cores: unless the user said otherwise, each rank's OpenMP
  // threads take its share, not every core (several ranks each spinning on all cores crawl),
  // and no more than the cores mpirun bound the rank to (Open MPI binds each rank to one core
  // when it starts two or fewer: --bind-to none lets their threads spread).
  if (!std::getenv("OMP_NUM_THREADS")) {
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t bound;
    const long allowed =
        sched_getaffinity(0, sizeof bound, &bound) == 0 ? CPU_COUNT(&bound) : cores;
    // omp_get_max_threads(): fewer where the machine was busy at start (core/host_load.hpp).
    omp_set_num_threads(static_cast<int>(std::max<long>(
        1, std::min({cores / node_ranks, allowed, long(omp_get_max_threads())}))));
  }
#else
  (void)argc;
  (void)argv;
#endif
}

void finalize() {
#ifdef ACCLAB_HAVE_MPI
  if (!initialised_here) return;
  MPI_Finalize();
  initialised_here = false;
#endif
}

bool initialised() { return initialised_here; }
int rank() { return world_rank; }
int size() { return world_size; }
int local_rank() { return node_rank; }
int local_size() { return node_size; }
bool is_root() { return world_rank == 0; }

std::string library_version() {
#ifdef ACCLAB_HAVE_MPI
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(text, &length);
  std::string version(text, static_cast<std::size_t>(length));
  const auto end = version.find_first_of("\n,");
  return version.substr(0, end);
#else
  return "";
#endif
}

Agreement agree(int status, const std::string& message) {
  Agreement a{status, message, world_rank};
#ifdef ACCLAB_HAVE_MPI
  if (!initialised_here || world_size == 1) return a;
  MPI_Allreduce(&status, &a.status, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  const int mine = status == a.status ? world_rank : INT_MAX;
  MPI_Allreduce(&mine, &a.rank, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  int length = world_rank == a.rank ? static_cast<int>(message.size()) : 0;
  MPI_Bcast(&length, 1, MPI_INT, a.rank, MPI_COMM_WORLD);
  a.message = world_rank == a.rank ? message : std::string(static_cast<std::size_t>(length), ' ');
  if (length > 0) MPI_Bcast(a.message.data(), length, MPI_CHAR, a.rank, MPI_COMM_WORLD);
#endif
  return a;
}

void quiet_unless_root() {
  if (world_rank == 0) return;
  std::fflush(stdout);
  std::fflush(stderr);
  terminal_fd = dup(2);
  const int null = open("/dev/null", O_WRONLY);
  if (null < 0) return;
  dup2(null, 1);
  dup2(null, 2);
  close(null);
}

std::string broadcast(const std::string& text) {
  std::string result = text;
#ifdef ACCLAB_HAVE_MPI
  if (!initialised_here || world_size == 1) return result;
  unsigned long long length = text.size();
  MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  result.resize(length);
  if (length > 0) MPI_Bcast(result.data(), static_cast<int>(length), MPI_CHAR, 0, MPI_COMM_WORLD);
#endif
  return result;
}

void barrier() {
#ifdef ACCLAB_HAVE_MPI
  if (initialised_here && world_size > 1) MPI_Barrier(MPI_COMM_WORLD);
#endif
}

std::vector<double> all_gather(double value) {
  std::vector<double> values(static_cast<std::size_t>(world_size), value);
#ifdef ACCLAB_HAVE_MPI
  if (initialised_here && world_size > 1) {
    MPI_Allgather(&value, 1, MPI_DOUBLE, values.data(), 1, MPI_DOUBLE, MPI_COMM_WORLD);
  }
#endif
  return values;
}

double max_over_ranks(double value) {
  double result = value;
#ifdef ACCLAB_HAVE_MPI
  if (initialised_here && world_size > 1) {
    MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  }
#endif
  return result;
}

void abort_all(int status, const std::string& message) {
  // Written raw to the terminal: the message (a path, an argument) escaped as error lines are.
  const std::string line =
      "acclab: rank " + std::to_string(world_rank) + " of " + std::to_string(world_size) + ": " +
      printable(message) + "\n";
  std::fflush(stderr);
  if (write(terminal_fd, line.data(), line.size()) < 0) {
    // Nowhere left to say it; the exit status still does.
  }
#ifdef ACCLAB_HAVE_MPI
  if (initialised_here && world_size > 1) MPI_Abort(MPI_COMM_WORLD, status);
#endif
  std::exit(status);
}

}  // namespace acclab::mpi
