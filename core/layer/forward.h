#pragma once

// The layer's forward pass y = x @ kernel + bias, whole and split across tensor-parallel groups.

#include "layer/eigen_types.h"
#include "layer/partials.h"
#include "layer/products.h"
#include "layer/progress.h"
#include "layer/sharding_plan.h"

namespace tp {

/// A split forward pass with the intermediates the UI shows. A split's partials (and a row split's
/// running sums) are not stored by its pass but made on demand (partials, runningSum), each
/// partial by the calls that made the one the pass added: the same bits.
struct ForwardResult {
    ShardingPlan plan;
    /// Column mode: partials[i] = x @ kernel[:, cols_i] + bias[cols_i], shape (N, chunk), the
    /// output's columns of group i. Row mode: partials[i] = x[:, rows_i] @ kernel[rows_i, :],
    /// shape (N, features), no bias. Made on first read from the x, kernel and bias the pass was
    /// given (kept as made by the mistakes' passes and the fused pass of few rows).
    Partials partials;
    /// Whether the partials are combined by addition, so that runningSum(result, k) means
    /// something: row mode, and the sum-groups mistake. False in column mode, where the running
    /// concatenation is a view of `output`, and for the concat-partials mistake.
    bool partialsAdded = false;
    /// (N, features). Column: the partials concatenated in group order. Row: the partials added in
    /// group order (the last running sum) plus the bias, added once.
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
/// kernel (middleCols / segment, never a copy), each written into its own columns of the output:
/// the pieces concatenated in group order. The groups' outputs are different columns and are never
/// summed. x (N, inDim), kernel (inDim, features), bias (features); plan.mode == Column. No
/// partial is stored: result.partials makes them on first read, by the same products, from x,
/// kernel and bias, which must outlive the result, unchanged (a Scene keeps them in its params),
/// and none of which may be a temporary. With progress: one unit per group; stops early when
/// cancelled (discard the result then).
ForwardResult forwardColumnParallel(const MatrixCRef& x, const MatrixCRef& kernel,
                                    const RowVectorCRef& bias, const ShardingPlan& plan,
                                    Progress* progress = nullptr);

/// Row-parallel: partial sums x[:, rows] @ kernel[rows, :] combined by addition, bias added once.
/// x (N, inDim), kernel (inDim, features), bias (features); plan.mode == Row. The pass goes through
/// the output by tiles, each group's product summed apart and added to the sum of the groups before
/// it, in group order and in registers (sumGroupProducts, layer/products.h), so no partial is
/// stored; result.partials makes them on first read, the same products with the same bits, from x
/// and kernel: both must outlive the result, unchanged (a Scene keeps them in its params), and
/// neither may be a temporary. With progress: tp units in all.
ForwardResult forwardRowParallel(const MatrixCRef& x, const MatrixCRef& kernel,
                                 const RowVectorCRef& bias, const ShardingPlan& plan,
                                 Progress* progress = nullptr);

/// Dispatches on plan.mode.
ForwardResult forwardParallel(const MatrixCRef& x, const MatrixCRef& kernel,
                              const RowVectorCRef& bias, const ShardingPlan& plan,
                              Progress* progress = nullptr);

/// The reference x @ kernel + bias from one full product, shape (N, features). With at most
/// kFewRows rows in x (and in every group's product) each element is summed in order over k, so a
/// column split's output equals it bit for bit on every SIMD path; with more rows the blocked
/// product computes both (layer/products.h).
Matrix forwardReference(const MatrixCRef& x, const MatrixCRef& kernel, const RowVectorCRef& bias);

/// Column mode: result.output, (N, features), from result.partials concatenated in group order
/// along the last axis, each partial into its group's outputCols (jnp.concatenate(partials, -1)):
/// for a pass that keeps its partials (the fused pass of few rows).
void concatenateInGroupOrder(ForwardResult& result);

/// partials[0] + ... + partials[count - 1], each element added in group order (the same bits
/// however the work is shared), in one pass over the rows that keeps no running sum: shape of a
/// partial. Over all of a row split's partials, its output before the bias.
Matrix sumInGroupOrder(const Partials& partials, std::size_t count);

/// The running sum after group k (0 <= k < tp), partials[0] + ... + partials[k], added element by
/// element in group order: sumInGroupOrder over the first k + 1 partials, computed on demand
/// (nothing of it is kept in the result); for k = tp - 1 it is the row output before its bias.
/// Meaningful where result.partialsAdded.
Matrix runningSum(const ForwardResult& result, Index k);

/// The running sum after group k (0 <= k < tp) from `previous`, the one after group k - 1:
/// previous + partials[k], one addition, the same bits as runningSum(result, k); for k = 0 the
/// first partial (`previous` unread). For stepping through the groups in order (a report, the
/// exported arrays, the picture's Next).
Matrix nextRunningSum(const ForwardResult& result, const MatrixCRef& previous, Index k);

}  // namespace tp
