#pragma once

// The fsdp and sequence layouts of one Linear on real ranks: the collectives of
// layoutCollectives (devices/layout_costs.h) in its order, each a real MPI call on the data or
// model communicator. Rank (d, m), P = tp_size, D = data, Nd = N / D. The products use the tensor
// layout's blocks (rank_share.h); what a rank keeps between passes and where its results end:
//   fsdp      rows chunk d (of D) of its kernel block and values chunk d of its bias block.
//             MPI_Allgather over "data" rebuilds both (in place, along the rows) before the
//             forward's product, and the kernel block again once dy is in place; both are freed
//             after use. The output collective and dy's gather are the tensor layout's
//             (output_collective.h, rank_backward.h); dkernel's and dbias's blocks are
//             MPI_Reduce_scatter_block'ed over "data" along their rows: the rank keeps chunk d.
//   sequence  column: x rows chunk m (Nd/P rows) of data row d, all-gathered over "model" before
//             the product, in the forward and again in the backward; the output stays sharded by
//             its columns; dx's partials (Nd, in_dim) are reduce-scattered over "model" along the
//             rows: the rank keeps dx's rows chunk m. Row: x as in the tensor layout; the
//             partial sums (Nd, F) are reduce-scattered over "model" along the rows, the rank
//             keeping rows chunk m (Nd/P, F) with the bias added once; dy rests as those rows
//             and is all-gathered along them before the products. dkernel and dbias are
//             all-reduced over "data", as in the tensor layout.
// Each collective is timed after a barrier on its communicator (the barrier's wait apart).
// A layout's output is checked whole on rank 0: gatherLayoutOutput and gatherLayoutGradients.

#include "layer/backward.h"
#include "output_collective.h"
#include "rank_backward.h"

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace tp::mpi {

/// Rows and columns of a whole array.
struct HeldBlock {
    IndexRange rows;
    IndexRange cols;
};

/// Where a rank's results end in the whole arrays, as the header says: the output (N, F), dx
/// (N, in_dim), dkernel (in_dim, F) and dbias (one row of F).
struct LayoutHeld {
    HeldBlock output, dx, dkernel, dbias;
};

LayoutHeld layoutHeld(const LayerConfig& config, const RankPlace& place);

/// A rank's run of a layout.
struct LayoutRankRun {
    /// held: the output block of layoutHeld; partial: the tensor layout's (with keepPartial);
    /// the times: the forward's product, its collectives' barriers and its collectives, summed.
    RankOutput output;
    RankGradients backward;  ///< with the backward: the blocks of layoutHeld
    /// Each collective's wall clock, one per entry of layoutCollectives(config, backward).
    std::vector<double> collectiveSeconds;
    double generateSeconds = 0;          ///< drawing the arrays at rest from the seed
    std::int64_t kernelBytesAtRest = 0;  ///< kernel, bias and x kept between passes
    std::int64_t biasBytesAtRest = 0;
    std::int64_t xBytesAtRest = 0;
    /// The most the rank's arrays hold at once, at layoutMemory's moments: the forward's product
    /// (the operands in use and the output buffer), its output collective (the arrays at rest,
    /// the output and the partial sums it reduces) and the backward's products (the kernel block,
    /// the bias at rest, x and dy in use, and the dx, dkernel and dbias buffers).
    std::int64_t bytesPeak = 0;
};

/// Runs the layout (config.layout fsdp or sequence, a valid one-Linear config) on this rank:
/// draws its arrays at rest from the seed, the forward pass and with `backward` the backward.
/// modelComm joins the tp_size ranks of data index d in model order, dataComm the data ranks of
/// model index m in data order. keepPartial keeps the partial and column mode's dx partial for
/// the full report.
LayoutRankRun runLayoutRanks(const LayerConfig& config, const RankPlace& place, MPI_Comm modelComm,
                             MPI_Comm dataComm, bool backward, bool keepPartial);

/// On rank 0: the whole output assembled from every rank's held block. Empty elsewhere.
/// Collective over `world`.
Matrix gatherLayoutOutput(const LayerConfig& config, const RankPlace& place, const Matrix& held,
                          MPI_Comm world);

/// On rank 0: the whole gradients from every rank's blocks (layoutHeld) and, when the ranks kept
/// them, column mode's dx partials, as gatherGradients assembles the tensor layout's. Empty
/// elsewhere. Collective over `world`.
BackwardResult gatherLayoutGradients(const LayerConfig& config, const RankPlace& place,
                                     const RankGradients& mine, MPI_Comm world);

}  // namespace tp::mpi
