#pragma once

// The MLP block's two timelines (block/mlp.h), one per story, as timeline.h tells one Linear's:
// - the loop (the Layer tab): step 0 the start; one step per device of linear1 and its GeLU
//   (Megatron: device g's slice g of h and a); with gather-between or row-then-column, the
//   collective between the layers as its sum (a gathered, or the GeLUs added); one step per
//   device of linear2 (Megatron: the partial sum of its slice; a column-parallel linear2: its
//   block of y); Megatron's closing step adds the partial sums, bias2 once (the all-reduce, g).
//   With the backward pass: dy arrives (and dbias2 = dy.sum(0), once), one step per device of
//   linear2's row backward (its dkernel2 rows and da slice: no collective), the GeLU's derivative
//   on every slice, one step per device of linear1's column backward (its dkernel1 columns,
//   dbias1 slice and partial dx_g), and dx = the sum of the partials (the all-reduce, f).
// - the mesh program (the Devices tab): every device computes linear1 and its GeLU at once, the
//   mistake's collective between the layers ring step by ring step, every device computes its
//   linear2 at once, then the block's output collective ring step by ring step (Megatron: the
//   all-reduce of the partial sums, bias2 added by each chunk's owner between its halves, as row
//   mode's all-reduce adds the bias). With the backward pass: dy arrives, every device's linear2
//   gradients, GeLU derivative and linear1 gradients at once, then dx's all-reduce ring steps.
// The collectives are MlpCosts::collectives (block/mlp_costs.h), in their order; a ring step's
// StepCollective::blockIndex says which.

#include "scene/timeline.h"

namespace tp {

/// The loop above for a valid MLP config and one of the block's mistakes (or None); `backward`
/// (no mistake) adds the backward's steps. E.g. tp 4, hidden 32:
///   "Step 1 of 9: device 0 computes hidden features 0:8: its slice of h, then the GeLU of that
///    slice, all that linear2's rows 0:8 will need"
///   "h[:, 0:8] = x @ kernel1[:, 0:8] + bias1[0:8];  a[:, 0:8] = gelu(h[:, 0:8])   (2x8 @ 8x8 + 8)"
Timeline mlpLoopTimeline(const LayerConfig& config, Mistake mistake = Mistake::None,
                         bool backward = false);

/// The mesh program above, e.g. tp 4: start, linear1 and GeLU on every device, linear2's partial
/// sums on every device, the all-reduce's 3 reduce-scatter steps, bias2, its 3 all-gather steps.
Timeline mlpMeshProgram(const LayerConfig& config, Mistake mistake = Mistake::None,
                        bool backward = false);

}  // namespace tp
