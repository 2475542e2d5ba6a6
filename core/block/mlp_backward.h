#pragma once

// The MLP block's backward pass for a cotangent dy (batch, features), as jax.vjp of the unsharded
// block gives it:
//   dkernel2 = a^T @ dy, dbias2 = dy.sum(0), da = dy @ kernel2^T,
//   dh = da * gelu'(h), dkernel1 = x^T @ dh, dbias1 = dh.sum(0), dx = dh @ kernel1^T,
// and split the Megatron way. Device g, hidden slice s:
//   linear2's row backward: dkernel2[s, :] = a[:, s]^T @ dy and da[:, s] = dy @ kernel2[s, :]^T,
//     its own slice of da: no collective (the conjugate of the forward's all-reduce, g);
//   dbias2 = dy.sum(0) once (every device could, none needs another's);
//   the GeLU's derivative on its own slice: dh[:, s] = da[:, s] * gelu'(h[:, s]);
//   linear1's column backward: dkernel1[:, s] = x^T @ dh[:, s], dbias1[s] = dh[:, s].sum(0), and a
//     partial dx_g = dh[:, s] @ kernel1[:, s]^T of the whole dx: dx = sum_g dx_g, the block's one
//     backward all-reduce (Megatron's f).

#include "block/mlp.h"
#include "block/mlp_check.h"
#include "layer/partials.h"

namespace tp {

struct MlpGradients {
    Matrix dx;         ///< (batch, in_dim)
    Matrix dkernel1;   ///< (in_dim, hidden)
    RowVector dbias1;  ///< (hidden,)
    Matrix dkernel2;   ///< (hidden, features)
    RowVector dbias2;  ///< (features,)
    Matrix da;         ///< (batch, hidden): the cotangent of a
    Matrix dh;         ///< (batch, hidden): the cotangent of h
};

/// The split backward pass, each device's blocks placed in the whole arrays, and the devices'
/// partials of dx.
struct MlpBackward {
    MlpGradients gradients;
    /// tp (batch, in_dim), summed into gradients.dx. The pass stores none: each is made on first
    /// read from gradients.dh and the params' kernel1, which must outlive it, unchanged.
    Partials dxPartials;
};

/// The split above, from the correct split forward pass `forward` (its h and a) and dy. With
/// progress: one unit per device.
MlpBackward mlpBackwardParallel(const MlpParams& params, const MlpForward& forward,
                                const MatrixCRef& dy, Progress* progress = nullptr);

/// jax.vjp of the unsharded block at the reference's h and a.
MlpGradients mlpBackwardReference(const MlpParams& params, const MlpReference& reference,
                                  const MatrixCRef& dy);

/// Each gradient of the split against the reference's, within bounds carried from the forward's
/// (mlp_check.h): dkernel2 (K = batch, a's difference carried), dbias2 (K = batch), da
/// (K = features), dh (the GeLU's derivative's), dkernel1 and dbias1 (K = batch), dx (K = hidden).
struct MlpBackwardVerification {
    Verification dx;
    Verification dkernel1;
    Verification dbias1;
    Verification dkernel2;
    Verification dbias2;
    bool passed() const;
};

MlpBackwardVerification verifyMlpBackward(const MlpGradients& split, const MlpGradients& reference,
                                          const MlpParams& params,
                                          const MlpReference& forwardReference,
                                          const MlpForwardBounds& forwardBounds,
                                          const MatrixCRef& dy, const CheckSettings& settings = {});

}  // namespace tp
