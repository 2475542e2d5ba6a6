#pragma once

// A rank's forward pass on real processes: its partial with the Eigen core, then the collective
// of the output layout over its model axis (mesh_costs.h's collectiveFor):
//   column, sharded:    none; the rank keeps its (Nd, F/P) block.
//   column, replicated: MPI_Allgather of the (Nd, F/P) column blocks into (Nd, F)
//   (allGatherColumns). row, replicated:    MPI_Allreduce (sum) of the (Nd, F) partial sums, in
//   place; bias added once. row, sharded:       MPI_Reduce_scatter_block (sum) of the partial sums
//   packed by column block;
//                       the rank keeps block m, (Nd, F/P), and adds bias[block m] once.

#include "rank_share.h"

#include <mpi.h>

namespace tp::mpi {

struct RankOutput {
    Matrix held;     ///< the output the rank holds: (Nd, F/P) sharded or (Nd, F) replicated
    Matrix partial;  ///< with keepPartial: column (Nd, F/P) with bias; row (Nd, F) unreduced
    double computeSeconds = 0;        ///< the partial product (wall clock)
    double waitSeconds = 0;           ///< the barrier before it: waiting for the slowest rank
    double communicationSeconds = 0;  ///< the collective, after all ranks of the axis are ready
};

/// The all-gather of column blocks in place: `whole` is a row-major (rows, P * width) matrix of
/// which the rank holds column block m, m its rank in `comm`, and after the call every rank holds
/// every block. One MPI_Allgather of contiguous (rows, width) blocks into `blocks`, as NCCL gathers
/// (Open MPI packs a strided datatype element by element: 3 µs against 0.6 µs for 4 KiB on 2
/// ranks), then each block copied into its columns. `blocks` is the caller's, so that later calls
/// reuse the first's pages (warm calls); it is sized and zeroed when it does not fit.
/// Returns the MPI_Allgather's wall clock alone: the copies are the rank's own memory.
double allGatherColumns(Matrix& whole, Index width, Matrix& blocks, MPI_Comm comm);

/// The output columns a rank holds after the collective: block m (F/P wide) when sharded, all
/// features when replicated.
IndexRange heldColumns(const LayerConfig& config, const RankPlace& place);

/// Runs the rank's part of the forward pass; modelComm joins the tp_size ranks of one data index
/// in model order. keepPartial keeps a copy of the partial for the full report.
RankOutput runForward(const LayerConfig& config, const RankPlace& place, const RankShare& share,
                      MPI_Comm modelComm, bool keepPartial);

}  // namespace tp::mpi
