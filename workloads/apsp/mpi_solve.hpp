// acclab apsp GRAPH with a distributed step (mpi_host, mpi_acc, and any step built on
// mpi_blocks.hpp): solve_graph's work across the MPI ranks (one rank without mpirun), no rank
// ever holding the whole matrix. Every rank holds the graph's edges (graph_from_rank_0) and
// builds its own blocks; the step's rounds run; then the ranks examine the result together:
//   - cycles on the distributed diagonal and overflows, each rank scanning its blocks, the
//     lowest vertex (element) over the ranks refused, as solve_graph refuses it;
//   - the summary (reachable pairs, the extreme distance) reduced over the ranks, and the
//     matrix's digest, each rank's share_digest_sum added over the ranks;
//   - paths: the successors stay beside the distances, each hop of every walk asked of the rank
//     holding it, all walks a hop at a time (one collective a hop);
//   - --out: binary written collectively with MPI-IO (each rank its blocks at their offsets,
//     through an MPI_Type_create_darray view; the header by rank 0), CSV streamed by rank 0 one
//     block row at a time, each block row gathered from the ranks of its process row.
// The figures and files are those of the single-process solve of the same graph, byte for byte.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "core/machine.hpp"
#include "core/params.hpp"
#include "core/registry.hpp"
#include "workloads/apsp/graph_solve.hpp"

namespace acclab::apsp {

class MpiApspInstance;

// Runs the distributed step `variant` on `edges` and examines its result as solve_graph does in
// one process. Called by solve_graph on every rank once it has checked the options; `params` as
// it resolved them (block narrowed here by fitted_block). The step plugs in through its factory:
// any instance derived from MpiApspInstance (its phases on the host or a device) will do.
// Before setup every rank's share (blocks, panels, successors, the edges' copy) is checked
// against its node's available host memory, summed over the node's ranks: a UsageError with the
// figures on every rank. Afterwards, every rank throws solve_graph's UsageError for a cycle or
// an overflow. The solution's `spread` writes --out.
GraphSolution solve_graph_across_ranks(const UserGraph& user, const std::vector<Edge>& edges,
                                       const Variant& variant, Params params,
                                       const GraphSolveOptions& options,
                                       std::optional<std::pair<int, int>> query, Machine& machine);

// `block` halved (down to 1) until each process row and column of `dims` holds a block of the n
// rows: a small graph still runs on many ranks. The result is bitwise the same for any block.
int fitted_block(int n, int block, std::array<int, 2> dims);

// The blocks of `blocks` (after finish(), the result kept on the ranks) as the matrix of the
// graph's `vertices` (p.n, or 1 for a one-vertex graph run as two), written by the ranks
// together (mpi_output.cpp).
std::unique_ptr<SpreadResult> spread_result(const Problem& p, std::int64_t vertices,
                                            const MpiApspInstance& blocks);

}  // namespace acclab::apsp
