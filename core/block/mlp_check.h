#pragma once

// The MLP block's check: each array of the split pass against the unsharded block's, within a
// bound carried through the block's stages.
//
// The split and the reference compute every stage from their own inputs, which already differ by
// the stages before: h by linear1's rounding, a = gelu(h) by that difference through the GeLU and
// by the GeLU's own rounding, and linear2's output by both. So each stage's bound has two parts:
//   a product out = A @ B (+ bias) of K terms, whose factors differ by at most dA and dB per
//   element (zero where both passes read the same array):
//     M = (|A| + dA) @ (|B| + dB) + |bias|           (a magnitude of both passes' sums)
//     D = dA @ (|B| + dB) + |A| @ dB                 (|A_s B_s - A_r B_r| <= D, exactly)
//     bound = roundingBound(M, K) + D                (verification.h: each pass's own rounding)
//   the GeLU of two inputs within dh:
//     bound = kGeluMaxSlope * dh + 2 * geluRoundingBound(|h| + dh)   (block/gelu.h)
//   and, in the backward, dh = da * gelu'(h) with da within dda and h within dhh:
//     dg = kGeluMaxCurvature * dhh + 2 * geluDerivativeRoundingBound(|h| + dhh)
//     bound = dda * (|g'| + dg) + |da| * dg + 2 u (|da| + dda)(|g'| + dg)
// The worst case is carried the same way from worstCaseBound. D and the other sums are computed in
// float32 and widened by their own rounding. A mistake's error dwarfs these bounds: the sum of
// the GeLUs of partial sums against the GeLU of their sum, or linear2's bias tp times.

#include "block/mlp.h"
#include "layer/products.h"
#include "layer/verification.h"

namespace tp {

/// The bounds of out = a @ b (+ bias) computed by two passes whose factors differ by at most `da`
/// and `db` (nullptr: both passes read the same factor), the formulas above; K = a.cols().
ElementBounds productBounds(const ProductFactor& a, const ElementBounds* da, const ProductFactor& b,
                            const ElementBounds* db, const RowVectorCRef* bias = nullptr);

/// The bounds of gelu(h) evaluated by two passes whose h differ by at most `dh`.
ElementBounds geluBounds(const MatrixCRef& h, const ElementBounds& dh);

/// The bounds of da * gelu'(h) by two passes whose da differ by at most `dda`, and h by `dhh`.
ElementBounds geluGradientBounds(const MatrixCRef& da, const ElementBounds& dda,
                                 const MatrixCRef& h, const ElementBounds& dhh);

/// Both bounds transposed, for a transposed factor.
ElementBounds transposedBounds(const ElementBounds& bounds);

/// The forward's bounds, from the reference's arrays: h (K = in_dim), a, and the output
/// (K = hidden).
struct MlpForwardBounds {
    ElementBounds h;
    ElementBounds a;
    ElementBounds output;
};

MlpForwardBounds mlpForwardBounds(const MlpParams& params, const MlpReference& reference);

/// The split forward pass's arrays against the reference's, each within its bound.
struct MlpVerification {
    Verification h;
    Verification a;
    Verification output;
    /// The block's verdict: failed if any array failed, inconclusive if any was, else passed.
    Verdict verdict() const;
    bool passed() const { return verdict() == Verdict::Passed; }
};

MlpVerification verifyMlp(const MlpForward& split, const MlpReference& reference,
                          const MlpForwardBounds& bounds, const CheckSettings& settings = {});

}  // namespace tp
