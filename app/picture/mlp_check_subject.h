#pragma once

// What the MLP block's check box judges, in its words: y against the unsharded block's in the
// forward, dx against jax.vjp's in the backward, and the bound carried through the block's stages
// (block/mlp_check.h) in its tooltip.

#include "verification_view.h"

namespace tp {

/// The box's subject for the forward pass's y, or with `backward` for dx.
VerificationView::Subject mlpCheckSubject(bool backward);

}  // namespace tp
