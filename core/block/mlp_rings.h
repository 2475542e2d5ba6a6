#pragma once

// The MLP block's collectives (MlpCosts::collectives) run step by step on the devices' buffers,
// as one Linear's output collective is (devices/ring_collective.h), one ring of P = tp_size
// devices along "model", each device's buffer the whole batch (N rows):
//   the partial sums' all-reduce (Megatron, bias2-per-partial): device m starts with linear2's
//     partial sum m, (N, features) cut into P chunks (featureChunks); a reduce-scatter, bias2
//     added once by each chunk's owner (Megatron only: bias2-per-partial's partials hold it
//     already), then an all-gather leave every device with y, summed in ring order rather than
//     partial_0 + partial_1 + ...; checked against the split's output with the rounding bound of
//     a @ kernel2 + bias2 (K = hidden; bias2-per-partial's bias P times);
//   gather-between's all-gather of a: device m starts with its slice m of a (NaN elsewhere), the
//     chunks linear1's slices; values only move, so every bit must match a;
//   the all-gather of y (a column-parallel linear2): device m starts with its block of y's
//     columns; every bit must match;
//   row-then-column's all-reduce of the GeLUs: device m starts with gelu(h_m) of its partial sum,
//     (N, hidden); checked against the split's a within 2 gamma(P) sum_m |gelu(h_m)|, the rounding
//     of two sums of P terms in any order;
//   dx's all-reduce (backward, Megatron's f): device m starts with its partial dx_m; checked
//     against the split's dx with the rounding bound of dh @ kernel1^T (K = hidden).

#include "block/mlp_backward.h"
#include "block/mlp_costs.h"
#include "devices/ring_collective.h"

#include <vector>

namespace tp {

/// What running collective `collective` allocates (its three stacks and its check's operands),
/// the step buffers left out.
std::int64_t mlpRingBytes(const LayerConfig& config, const MlpCollective& collective);

/// One RingRun per entry of costs.collectives, in its order, each run as above when its buffers
/// fit the memory budget beside the scene (mlpBytesNeeded, with `backward` the backward's too)
/// and the runs before it; else simulated false and the note says why. `forward` is the split
/// pass with `mistake` made; `backward` the split backward pass when costs lists dx's all-reduce.
std::vector<RingRun> runMlpRings(const LayerConfig& config, Mistake mistake,
                                 const MlpParams& params, const MlpForward& forward,
                                 const MlpCosts& costs, const MlpBackward* backward,
                                 const CheckSettings& check = {});

}  // namespace tp
