#include "mlp_check_subject.h"

#include "mlp_panel.h"

namespace tp {

VerificationView::Subject mlpCheckSubject(bool backward) {
    const QString bound =
        MlpPanel::tr(
            "Bound of element (i, j), carried through the block's stages: each product A @ B "
            "(+ bias) of K terms adds its own rounding, 2 &middot; &gamma;~(K+1) &middot; M with "
            "M = (|A| + dA) @ (|B| + dB) + |bias|, to D = dA @ (|B| + dB) + |A| @ dB, where dA "
            "and dB bound how far the two passes' factors already differ (%1); &gamma;~(n) = "
            "exp(%2&radic;n u + n u&sup2;/(1-u)) - 1, the probabilistic bound of Higham and Mary "
            "(a correct split exceeds it with a chance below 1e-9)")
            .arg(backward ? MlpPanel::tr("dx = dh @ kernel1^T sums K = hidden terms; dh = da "
                                         "&middot; gelu'(h) carries da's bound and h's through "
                                         "the GeLU's derivative")
                          : MlpPanel::tr("y = a @ kernel2 + bias2 sums K = hidden terms; a = "
                                         "gelu(h) carries h's bound through the GeLU's slope, "
                                         "with the GeLU's own rounding"))
            .arg(kRoundingLambda);
    if (backward)
        return {.array = MlpPanel::tr("dx"),
                .reference = MlpPanel::tr("the unsharded block's dx (jax.vjp)"),
                .referenceLong = MlpPanel::tr("the unsharded block's dx (jax.vjp)"),
                .figures = MlpPanel::tr("dx vs the unsharded block's (jax.vjp)"),
                .bound = bound};
    return {.array = MlpPanel::tr("y"),
            .reference = MlpPanel::tr("the unsharded block's y"),
            .referenceLong = MlpPanel::tr("the unsharded block's y (one full product per layer)"),
            .figures = MlpPanel::tr("y vs the unsharded block's (one full product per layer)"),
            .bound = bound};
}

}  // namespace tp
