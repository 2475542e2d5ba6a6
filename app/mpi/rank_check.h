#pragma once

// Gathering the ranks' results on rank 0 and checking them: against the single-process reference
// when the whole layer fits rank 0's memory budget, otherwise block by block on each rank.

#include "layer/verification.h"
#include "output_collective.h"

#include <mpi.h>

#include <vector>

namespace tp::mpi {

/// The project's check of an output (N, F) against its reference = x @ kernel + bias, x (N, K),
/// kernel (K, F), bias (F): the float32 rounding bound, or allclose when the settings say so
/// (tp::verify with the operands).
Verification checkOutput(const MatrixCRef& actual, const MatrixCRef& reference, const MatrixCRef& x,
                         const MatrixCRef& kernel, const RowVectorCRef& bias,
                         const CheckSettings& settings);

/// `count` floats from every rank of `world`, in rank order, on rank 0 (empty elsewhere).
/// Collective over `world`; every rank gives the same count.
std::vector<float> gatherFloats(const float* data, Index count, MPI_Comm world);

/// The (Nd, F/P) output block a rank hands to rank 0: rows d and column block m when sharded;
/// when replicated, column block (m + 1) % P, which reached the rank through the collective.
IndexRange contributedColumns(const LayerConfig& config, const RankPlace& place);

/// On rank 0: the (N, F) output assembled from every rank's contributed block. Empty elsewhere.
/// Collective over `world`.
Matrix gatherOutput(const LayerConfig& config, const RankPlace& place, const RankOutput& output,
                    MPI_Comm world);

/// On rank 0: each group's partial over the whole batch, as the core's ForwardResult holds them
/// (column (N, F/P) with bias, row (N, F) unreduced). Empty elsewhere. Collective over `world`;
/// needs the partials kept (runForward's keepPartial).
std::vector<Matrix> gatherPartials(const LayerConfig& config, const RankPlace& place,
                                   const RankOutput& output, MPI_Comm world);

/// Each rank checks its contributed block against x[rows_d] @ kernel[:, block] + bias[block],
/// drawn on that rank (after `share` has released its kernel), with checkOutput on those operands
/// (an element's rounding bound needs only its own row of x and column of kernel). Rank 0 gets
/// the merged result: passed and allclose when every block's is; elements, bit-identical, NaN
/// and over-bound counts summed; the largest ULP distance, absolute and relative error and
/// error over bound, with their place in the whole output. Collective over `world`.
Verification checkBlocks(const LayerConfig& config, const RankPlace& place,
                         const RankOutput& output, RankShare& share, const CheckSettings& settings,
                         MPI_Comm world);

}  // namespace tp::mpi
