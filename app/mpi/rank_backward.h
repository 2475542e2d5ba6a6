#pragma once

// A rank's backward pass on real processes, after its forward pass: the cotangent dy as its device
// holds it in the output's layout, its gradients from its own shards through the core's split
// backward pass on one group, and the backward's collectives in the order backwardCollectives
// (devices/backward_collectives.h) lists them, each as a real MPI call:
//   dy, row + sharded:       MPI_Allgather of the (Nd, F/P) dy blocks over "model" into (Nd, F)
//   dx, column:              MPI_Allreduce (sum) of the (Nd, in_dim) dx partials over "model"
//   dkernel, dbias, D > 1:   MPI_Allreduce (sum) of the rank's blocks over "data"
// Rank (d, m), Nd = N / D rows, P = tp_size, holds:
//   column: dy[rows_d, cols_m] (its columns, whether the output is sharded or replicated);
//           dkernel[:, cols_m] = x_d^T @ dy, dbias[cols_m] = dy.sum(0), and dx[rows_d, :] once its
//           partial dy @ kernel_m^T is all-reduced.
//   row:    dy[rows_d, :] (replicated, or all-gathered from the sharded blocks);
//           dkernel[rows_m, :] = x_dm^T @ dy, dbias = dy.sum(0) (all of it), and its own slice
//           dx[rows_d, rows_m] = dy @ kernel_m^T.
// With D > 1, dkernel and dbias are then the sums over every batch row.

#include "layer/backward.h"
#include "rank_share.h"

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tp::mpi {

/// What a rank computed and measured in the backward pass.
struct RankGradients {
    Matrix dy;            ///< dy as the rank computed with it: (Nd, F/P) column, (Nd, F) row
    Gradients gradients;  ///< the rank's blocks, as the header says, after the collectives
    Matrix dxPartial;     ///< column mode, with keepPartial: dy @ kernel_m^T before the all-reduce
    double generateSeconds = 0;  ///< drawing dy from the seed
    double computeSeconds = 0;   ///< the gradients' products
    /// Each collective's wall clock, after all ranks of its axis are ready; in the order of
    /// backwardCollectives(config) (0 for one left out).
    std::vector<double> collectiveSeconds;
};

/// Bytes a rank needs for its backward pass beside its forward share: dy as held (and its own
/// block before the all-gather, row + sharded), the dkernel and dbias blocks, and dx (column: the
/// partial and the sum, (Nd, in_dim) each; row: (Nd, in_dim / P)).
std::int64_t rankBackwardBytesNeeded(const LayerConfig& config);

/// The largest number of floats one of the rank's backward collectives moves in one MPI call: the
/// gathered dy, dx, or the dkernel block.
std::int64_t largestBackwardMessage(const LayerConfig& config);

/// dy as the rank holds it in the tensor layout before any collective: column mode its
/// (Nd, F/P) columns; row mode all of its rows' dy, or (row + sharded) its block in its columns
/// of an (Nd, F) matrix, zeros where the all-gather brings the others' blocks.
Matrix rankCotangent(const LayerConfig& config, const RankPlace& place, const RankShare& share);

/// Sends each rank's (rows, cols) block that `wanted` accepts to rank 0, which hands them, in
/// rank order, to `put`. Every rank of `world` calls it with the same `tag` and block shape.
void collectOnRankZero(const LayerConfig& config, const RankPlace& place, const float* block,
                       Index rows, Index cols, const std::function<bool(const RankPlace&)>& wanted,
                       const std::function<void(const RankPlace&, const MatrixCRef&)>& put, int tag,
                       MPI_Comm world);

/// Runs the rank's backward pass. `share` still holds its kernel block and x block; modelComm
/// joins the tp_size ranks of one data index in model order, dataComm the data ranks of one model
/// index in data order. keepPartial keeps column mode's dx partial for the full report.
/// `skipped` names an array whose collective is left out ("" for none; a test's fault).
RankGradients runBackward(const LayerConfig& config, const RankPlace& place, const RankShare& share,
                          MPI_Comm modelComm, MPI_Comm dataComm, bool keepPartial,
                          const std::string& skipped = {});

/// On rank 0: the whole gradients assembled from the ranks' blocks (dx, dkernel, dbias: from the
/// ranks that hold each block, the first data row for the data-summed ones), with the plan and,
/// when the ranks kept them, column mode's dx partials over the whole batch, as the core's
/// BackwardResult holds them. Empty elsewhere. Collective over `world`.
BackwardResult gatherGradients(const LayerConfig& config, const RankPlace& place,
                               const RankGradients& mine, MPI_Comm world);

}  // namespace tp::mpi
