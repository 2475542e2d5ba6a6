#pragma once

// What one MPI rank holds of a scene, and its partial product, with the Eigen core.
//
// Rank r sits at device (d, m) of the data x model mesh: d = r / P, m = r % P, P = tp_size. It
// holds batch rows block d (Nd = N / D rows) and model shard m, as meshCosts describes:
//   column: kernel[:, cols_m], bias[cols_m], x[rows_d, :]; partial x_d @ kernel_m + bias_m,
//           (Nd, F/P).
//   row:    kernel[rows_m, :], bias (all of it, added once after the reduction), x[rows_d, rows_m];
//           partial x_dm @ kernel_m, (Nd, F), unreduced.
// Every array is drawn straight from the seed with the sliced NNX generation, never the whole
// kernel.

#include "layer/eigen_types.h"
#include "layer/layer_config.h"

#include <cstdint>

namespace tp::mpi {

/// Where a rank sits on the mesh.
struct RankPlace {
    int rank = 0;
    std::int64_t d = 0;  ///< data index: batch rows block d
    std::int64_t m = 0;  ///< model index: shard m
};

/// rank -> (rank / tp_size, rank % tp_size).
RankPlace rankPlace(const LayerConfig& config, int rank);

/// The ranges of the full arrays a rank holds.
struct ShareRanges {
    IndexRange batchRows;   ///< rows of x and of the output: [d*Nd, (d+1)*Nd)
    IndexRange kernelRows;  ///< column: all of in_dim; row: chunk m
    IndexRange kernelCols;  ///< column: chunk m; row: all features
    IndexRange biasCols;    ///< column: chunk m; row: all features
    IndexRange xCols;       ///< column: all of in_dim; row: chunk m
};

ShareRanges shareRanges(const LayerConfig& config, const RankPlace& place);

/// A rank's own arrays, drawn from the seed.
struct RankShare {
    ShareRanges ranges;
    Matrix kernel;   ///< kernel[kernelRows, kernelCols]
    RowVector bias;  ///< bias[biasCols]
    Matrix x;        ///< x[batchRows, xCols]
};

/// Draws a rank's kernel block, bias slice and x block with kernelBlock / biasSlice / inputBlock
/// (bit-identical to slicing the full layer's arrays).
RankShare drawShare(const LayerConfig& config, const RankPlace& place);

/// Column mode: out = x @ kernel + bias, the expression of the core's column-parallel pass, so
/// the result is bit-identical to that group's rows of its partial. out is (Nd, F/P) and may be a
/// block of a wider row-major matrix (a column block of the replicated output).
void columnPartial(const RankShare& share, Eigen::Ref<Matrix, 0, Eigen::OuterStride<>> out);

/// Row mode: out = x @ kernel, the core's row-parallel partial sum (groupProduct,
/// layer/group_sums.h), (Nd, F), no bias: bit-identical to that group's rows of the single
/// process's partial.
void rowPartial(const RankShare& share, Eigen::Ref<Matrix> out);

/// Row mode, packed for a reduce-scatter: out (P*Nd, F/P) holds column block b of the partial sum
/// in rows [b*Nd, (b+1)*Nd): out[b*Nd + i, j] = (x @ kernel)[i, b*F/P + j]. The bits are
/// rowPartial's.
void rowPartialPacked(const RankShare& share, std::int64_t tpSize, Eigen::Ref<Matrix> out);

/// Bytes a rank needs at its peak: its holdings as meshCosts counts them (kernel, bias, x,
/// unreduced partial, output), or, if larger, what the per-block check holds once the kernel is
/// released: the rest of the holdings plus a reference kernel block (in_dim, F/P), x's full rows
/// (Nd, in_dim), a bias slice (F/P), and the reference and checked blocks (Nd, F/P) each.
std::int64_t rankBytesNeeded(const LayerConfig& config);

}  // namespace tp::mpi
