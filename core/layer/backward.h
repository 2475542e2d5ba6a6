#pragma once

// The layer's backward pass: the gradients of y = x @ kernel + bias for a cotangent dy, whole (as
// jax.vjp of the full layer gives them) and split across the tensor-parallel groups.

#include "layer/eigen_types.h"
#include "layer/layer_config.h"
#include "layer/partials.h"
#include "layer/sharding_plan.h"
#include "layer/verification.h"

#include <vector>

namespace tp {

/// The gradients jax.vjp(layer, x, kernel, bias) returns for dy (batch, features):
///   dx = dy @ kernel^T (batch, inDim), dkernel = x^T @ dy (inDim, features), dbias = dy.sum(0).
struct Gradients {
    Matrix dx;
    Matrix dkernel;
    RowVector dbias;
};

/// A split backward pass, with each group's part kept as the devices hold it.
///   Column, group g with columns cols: dkernel[:, cols] = x^T @ dy[:, cols], dbias[cols] =
///     dy[:, cols].sum(0), and dxPartials[g] = dy[:, cols] @ kernel[:, cols]^T, a partial sum of
///     the whole (batch, inDim) dx: dx = sum_g dxPartials[g] (the all-reduce over "model").
///   Row, group g with rows rows: dkernel[rows, :] = x[:, rows]^T @ dy, dx[:, rows] = dy @
///     kernel[rows, :]^T (its own slice of dx, nothing summed), dbias = dy.sum(0) once.
/// With dataSize D > 1, dkernel and dbias are summed over the D batch blocks in order, block d
/// being rows [d*N/D, (d+1)*N/D): what each data row of the mesh computes, then the all-reduce over
/// "data".
struct BackwardResult {
    ShardingPlan plan;
    Gradients gradients;
    /// Column mode: group g's partial dx, (batch, inDim) each, made on first read (the pass sums
    /// the groups' products without storing them) with the bits the pass added: dx is
    /// dxPartials[0] + dxPartials[1] + ..., added in group order, bit for bit. Empty in row mode.
    Partials dxPartials;

    /// Group g's block of dkernel: its columns (column mode) or rows (row mode), a view.
    auto dkernelBlock(const ShardGroup& g) const {
        return gradients.dkernel.block(g.kernelRows.start, g.kernelCols.start, g.kernelRows.size(),
                                       g.kernelCols.size());
    }
    /// Group g's block of dbias: its columns (column mode), or all of it (row mode: dbias is
    /// computed once and every device holds it), a view.
    auto dbiasBlock(const ShardGroup& g) const {
        return gradients.dbias.segment(g.kernelCols.start, g.kernelCols.size());
    }
    /// Row mode: group g's own columns of dx, dx[:, rows], a view.
    auto dxBlock(const ShardGroup& g) const {
        return gradients.dx.middleCols(g.kernelRows.start, g.kernelRows.size());
    }
};

/// Bytes the backward pass needs beyond the scene's own (bytesNeeded): dy (batch, features); dx
/// and its reference (batch, inDim) each; column mode's tpSize dx partials of (batch, inDim), made
/// on demand (the devices views read them all);
/// dkernel and its reference (inDim, features) each; dbias twice; and the check's transposed
/// factor, the larger of kernel^T (for dx) and x^T (for dkernel), one at a time. For a valid
/// config.
std::int64_t backwardBytesNeeded(const LayerConfig& config);

/// The reference: jax.vjp of the full layer, each gradient from one full product.
/// x (batch, inDim), kernel (inDim, features), dy (batch, features).
Gradients backwardReference(const MatrixCRef& x, const MatrixCRef& kernel, const MatrixCRef& dy);

/// The split backward pass above, through views of the one kernel, x and dy (middleCols /
/// middleRows, never a copy per group). dataSize must divide batch. Column mode: the plan's groups
/// in place (ShardingPlan::groupsInPlace), dx the sum of the groups' products in group order
/// (layer/group_sums.h); its partials are made on demand from dy and kernel, which must outlive
/// the result, unchanged, and neither of which may be a temporary.
BackwardResult backwardParallel(const MatrixCRef& x, const MatrixCRef& kernel, const MatrixCRef& dy,
                                const ShardingPlan& plan, Index dataSize = 1);

/// Each gradient of a split pass against the reference with verify(), its two factors as the
/// operands so that the rounding bound has the K of that product:
///   dx = dy @ kernel^T: K = features (the column groups' partials add up to the same features
///     terms per element); dkernel = x^T @ dy: K = batch; dbias = ones(1, batch) @ dy: K = batch.
/// The bias of each check is zero.
struct BackwardVerification {
    Verification dx;
    Verification dkernel;
    Verification dbias;
    bool passed() const { return dx.passed() && dkernel.passed() && dbias.passed(); }
};

BackwardVerification verifyBackward(const Gradients& actual, const Gradients& reference,
                                    const MatrixCRef& x, const MatrixCRef& kernel,
                                    const MatrixCRef& dy, const CheckSettings& check = {});

}  // namespace tp
