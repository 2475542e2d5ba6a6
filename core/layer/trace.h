#pragma once

// Tracing one output value back to its inputs: y[i, j] = sum_k x[i, k] * kernel[k, j] + bias[j],
// term by term, and (row mode) each group's partial contribution.

#include "layer/eigen_types.h"
#include "layer/forward.h"

#include <vector>

namespace tp {

/// One term x[i, k] * kernel[k, j] of the sum.
struct TraceTerm {
    Index k = 0;
    float x = 0.0f;       ///< x[i, k]
    float kernel = 0.0f;  ///< kernel[k, j]
    double product = 0;   ///< x[i, k] * kernel[k, j], exact in double
    int group = -1;       ///< row mode: the group whose kernel rows hold k; column mode: -1
};

/// A row-mode group's share of y[i, j]: partials[g](i, j) = sum over its rows k of the terms.
struct GroupContribution {
    int group = 0;
    IndexRange kernelRows;  ///< the kernel rows (and x columns) the group reads
    float partial = 0.0f;   ///< partials[g](i, j), as the split computed it (float32)
};

/// Everything the trace panel shows for y[row, col].
struct OutputTrace {
    Index row = 0;
    Index col = 0;
    /// The terms shown: all of them (k = 0, 1, ...) when in_dim <= maxTerms, else the maxTerms
    /// largest |product| in decreasing order, NaN products first (above +-inf).
    std::vector<TraceTerm> terms;
    Index omittedCount = 0;  ///< how many terms are not listed
    double omittedSum = 0;   ///< their sum (exact in double)
    double termSum = 0;      ///< sum of all in_dim terms, in double
    float bias = 0.0f;       ///< bias[col], added once
    double exact = 0;        ///< termSum + bias, in double
    float result = 0.0f;     ///< output(row, col): the float32 value the split produced
    float reference = 0.0f;  ///< reference(row, col): the float32 value of one full product
    int ownerGroup = -1;     ///< column mode: the group whose columns hold col; row mode: -1
    /// Row mode: each group's partial[g](row, col), in group order; empty in column mode.
    std::vector<GroupContribution> contributions;
};

/// The trace of y[row, col] for x (N, inDim), kernel (inDim, features), bias (features), the split
/// `result` and the `reference` (N, features). Terms are listed in full for inDim <= maxTerms,
/// else the maxTerms largest by |product| and the rest summed. row < N and col < features.
OutputTrace traceOutput(const MatrixCRef& x, const MatrixCRef& kernel, const RowVectorCRef& bias,
                        const ForwardResult& result, const MatrixCRef& reference, Index row,
                        Index col, Index maxTerms = 8);

/// The group (of plan) whose kernel block holds kernel[k, j], and the output columns that element
/// feeds: column mode the one output column j (in the group's outputCols); row mode every
/// group's partial writes all columns but kernel[k, j] feeds only output column j.
struct KernelCellTrace {
    int group = -1;
    Index outputCol = 0;    ///< y[:, j]: the output column kernel[k, j] feeds
    Index flatIndex = 0;    ///< k * features + j, its position in the row-major kernel
    IndexRange groupRange;  ///< the group's kernel columns (column mode) or rows (row mode)
};

/// Where kernel[k, j] sits in the split.
KernelCellTrace traceKernelCell(const ShardingPlan& plan, Index k, Index j);

}  // namespace tp
