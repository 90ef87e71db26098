// The process's place among MPI ranks. acclab is one binary: started by an MPI launcher
// (mpirun, srun) it joins MPI_COMM_WORLD; started alone it never calls MPI at all, so that a
// plain run pays no MPI start-up and prints no MPI warnings. Everything here answers as a
// single rank (rank 0 of 1) when MPI was not initialised or not built.
#pragma once

#include <string>
#include <vector>

namespace acclab::mpi {

// Whether this binary was built with MPI (the mpi_* steps exist).
bool built();

// Whether an MPI launcher started this process: Open MPI's, PMIx's or PMI's variables say so.
bool launched_by_mpirun();

// MPI_Init_thread (funneled) when built and launched_by_mpirun(), else nothing. Idempotent.
void init_if_launched(int* argc, char*** argv);
// MPI_Finalize when init_if_launched initialised MPI.
void finalize();

bool initialised();
int rank();  // in MPI_COMM_WORLD; 0 when not initialised
int size();  // 1 when not initialised
// The rank among the ranks of this node (MPI_Comm_split_type, shared memory): which GPU a rank
// takes is local_rank() modulo the GPUs present.
int local_rank();
int local_size();  // the ranks on this node
bool is_root();    // rank() == 0

// The MPI library's version line (MPI_Get_library_version), first line only; "" without MPI.
std::string library_version();

// Every rank's (status, message) agreed: the largest status, and the message of the lowest rank
// that reported that status. A single process returns its own. Collective when size() > 1.
struct Agreement {
  int status = 0;
  std::string message;
  int rank = 0;  // the rank the message comes from
};
Agreement agree(int status, const std::string& message);

// On every rank but 0: stdout and stderr go to /dev/null, so that rank 0 alone prints
// (abort_all still reaches the terminal).
void quiet_unless_root();

// Rank 0's `text` on every rank (MPI_Bcast); `text` for a single process.
std::string broadcast(const std::string& text);

// MPI_Barrier over every rank; nothing for a single process.
void barrier();

// Each rank's value, on every rank (MPI_Allgather); {value} for a single process.
std::vector<double> all_gather(double value);

// The largest value over the ranks (MPI_Allreduce with MPI_MAX); `value` for one process.
double max_over_ranks(double value);

// Stops every rank (MPI_Abort) after printing `message`: for a failure on one rank that would
// leave the others waiting in a collective. A single process exits with `status`.
[[noreturn]] void abort_all(int status, const std::string& message);

}  // namespace acclab::mpi
