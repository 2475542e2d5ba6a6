#pragma once

// The layer's forward pass y = x @ kernel + bias, whole and split across tensor-parallel groups.

#include "eigen_types.h"
#include "progress.h"
#include "sharding_plan.h"

#include <optional>
#include <vector>

namespace tp {

/// A split forward pass with every intermediate the UI shows, so nothing is recomputed for display.
struct ForwardResult {
    ShardingPlan plan;
    /// Column mode: partials[i] = x @ kernel[:, cols_i] + bias[cols_i], shape (N, chunk).
    /// Row mode: partials[i] = x[:, rows_i] @ kernel[rows_i, :], shape (N, features), no bias.
    std::vector<Matrix> partials;
    /// Row mode only: runningSums[k] = partials[0] + ... + partials[k], shape (N, features), no
    /// bias. Empty in column mode, where the running concatenation is a view of `output`.
    std::vector<Matrix> runningSums;
    /// (N, features). Column: the partials concatenated in group order. Row: the last running sum
    /// plus the bias, added once.
    Matrix output;

    /// Column mode: the concatenation after groups 0..k, i.e. output[:, 0:(k+1)*chunk] (a view).
    auto runningConcatenation(Index k) const { return output.leftCols((k + 1) * plan.chunk); }
};

/// The kernel block a group reads, kernel[kernelRows, kernelCols]: a view into `kernel`'s own
/// memory, never a copy. Pass an lvalue (a Matrix, or a Ref the caller keeps alive).
template <typename Derived>
auto kernelSlice(const Eigen::MatrixBase<Derived>& kernel, const ShardGroup& group) {
    return kernel.derived().block(group.kernelRows.start, group.kernelCols.start,
                                  group.kernelRows.size(), group.kernelCols.size());
}

/// The columns of x a group reads, x[:, inputCols] (all of x in column mode): a view.
template <typename Derived>
auto inputSlice(const Eigen::MatrixBase<Derived>& x, const ShardGroup& group) {
    return x.derived().middleCols(group.inputCols.start, group.inputCols.size());
}

/// Column-parallel: for each group, x @ kernel[:, cols] + bias[cols] through views of the one
/// kernel (middleCols / segment, never a copy), then the pieces concatenated in group order. The
/// groups' outputs are different columns and are never summed. x (N, inDim), kernel (inDim,
/// features), bias (features); plan.mode == Column. With progress: one unit per group; stops early
/// when cancelled (discard the result then).
ForwardResult forwardColumnParallel(const MatrixCRef& x, const MatrixCRef& kernel,
                                    const RowVectorCRef& bias, const ShardingPlan& plan,
                                    Progress* progress = nullptr);

/// Row-parallel: partial sums x[:, rows] @ kernel[rows, :] combined by addition, bias added once.
/// x (N, inDim), kernel (inDim, features), bias (features); plan.mode == Row.
ForwardResult forwardRowParallel(const MatrixCRef& x, const MatrixCRef& kernel,
                                 const RowVectorCRef& bias, const ShardingPlan& plan,
                                 Progress* progress = nullptr);

/// Dispatches on plan.mode.
ForwardResult forwardParallel(const MatrixCRef& x, const MatrixCRef& kernel,
                              const RowVectorCRef& bias, const ShardingPlan& plan,
                              Progress* progress = nullptr);

/// The reference x @ kernel + bias from one full product, shape (N, features). With at most 4
/// rows in x (and in every group's product) each element is summed in order over k, so a column
/// split's output equals it bit for bit; with more rows Eigen's blocked product computes both.
/// With `kernelMaxAbs`, also sets it to the largest |kernel element| (0 when empty), the
/// picture's colour scale, when every kernel element is finite, else to nothing; read in the
/// product's own pass over the kernel when x has at most 4 rows.
Matrix forwardReference(const MatrixCRef& x, const MatrixCRef& kernel, const RowVectorCRef& bias,
                        std::optional<float>* kernelMaxAbs = nullptr);

/// The correct split pass and the reference, computed together.
struct ForwardAndReference {
    ForwardResult split;  ///< forwardParallel(x, kernel, bias, plan)
    Matrix reference;     ///< forwardReference(x, kernel, bias), (N, features)
    /// forwardReference's kernelMaxAbs: the largest |kernel element| when all are finite.
    std::optional<float> kernelMaxAbs;
};

/// forwardParallel and forwardReference (with its kernelMaxAbs), bit for bit, from one read of
/// the kernel in column mode with at most 4 rows in x (the memory-bound case): while each column
/// block of the kernel passes, the group that owns it adds it through its own view
/// (kernelSlice) into its partial's sums, and the reference adds the same columns of the full
/// kernel into separate sums of its own (it never reads a partial), both summed in order over k.
/// Otherwise the two run one after the other. With progress: one unit per group; stops early
/// when cancelled (discard the result then).
ForwardAndReference forwardWithReference(const MatrixCRef& x, const MatrixCRef& kernel,
                                         const RowVectorCRef& bias, const ShardingPlan& plan,
                                         Progress* progress = nullptr);

}  // namespace tp
