#pragma once

// What one device of the MLP block holds, computes and sends, in bytes of float32 and FLOPs, for
// the Megatron split and for each of the block's mistakes. With N = batch, P = tp_size, c = H / P:
//   Megatron:  kernel1 in_dim*c, bias1 c, kernel2 c*F, bias2 F (added once, by the all-reduce's
//              owner of each chunk or before it: every device holds it), x N*in_dim, h and a
//              N*c each, the partial sum N*F, the output N*F (after the all-reduce);
//              forward FLOPs 2*N*in_dim*c + 2*N*c*F; one all-reduce of the partial sums (V =
//              N*F*4). Backward: dy N*F, da and dh N*c each, dkernel1 in_dim*c, dbias1 c, dkernel2
//              c*F, dbias2 F, dx N*in_dim (its partial, then the all-reduced dx); FLOPs 2*N*c*F
//              twice (dkernel2, da) and 2*N*in_dim*c twice (dkernel1, dx); one all-reduce of dx (V
//              = N*in_dim*4).
//   gather-between: the same linear1 and GeLU; a gathered whole (N*H instead of N*c), linear2
//              column-parallel on it (kernel2 H*F/P, its output block N*F/P), then y gathered:
//              all-gather of a (V = N*H*4) and of y (V = N*F*4).
//   row-then-column: linear1 row-parallel (kernel1 in_dim/P*H, x N*in_dim/P, its partial sum and
//              GeLU N*H each), the GeLUs all-reduced (V = N*H*4), linear2 column-parallel as
//              above, then y gathered.
//   bias2-per-partial: the Megatron holdings and collective.

#include "devices/backward_collectives.h"
#include "devices/hardware.h"
#include "layer/layer_config.h"
#include "layer/mistakes.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tp {

/// One collective of the block, in the order it runs.
struct MlpCollective {
    bool backward = false;  ///< a collective of the backward pass
    MeshAxis axis = MeshAxis::Model;
    std::string of;  ///< "the partial sums", "a", "y", "the GeLUs of the partial sums", "dx"
    CollectiveCost cost;
};

struct MlpHoldings {
    std::int64_t kernel1Bytes = 0, bias1Bytes = 0, kernel2Bytes = 0, bias2Bytes = 0;
    std::int64_t xBytes = 0;
    std::int64_t hiddenBytes = 0;   ///< h and a together, as the device holds them
    std::int64_t partialBytes = 0;  ///< linear2's partial sum (0 where it is column-parallel)
    std::int64_t outputBytes = 0;   ///< the output as the device holds it at the end
    std::int64_t flops = 0;
    std::int64_t inOrderFlops = 0;  ///< of those, summed in order: all when N <= kFewRows
    std::int64_t total() const;
};

struct MlpBackwardHoldings {
    std::int64_t dyBytes = 0, daBytes = 0, dhBytes = 0, dkernel1Bytes = 0, dbias1Bytes = 0,
                 dkernel2Bytes = 0, dbias2Bytes = 0, dxBytes = 0;
    std::int64_t flops = 0;
    std::int64_t total() const;
};

struct MlpCosts {
    std::int64_t devices = 1;
    MlpHoldings perDevice;
    MlpBackwardHoldings backward;  ///< the Megatron split's (the mistakes have no backward)
    std::vector<MlpCollective> collectives;  ///< forward, then (with `backward`) backward
    /// The unsharded block on one device: both kernels and biases, x, h, a and y.
    std::int64_t unshardedBytes = 0;
};

/// The formulas above for a valid MLP config and a mistake mistakeProblems accepts; the backward's
/// collective is listed when `backward`.
MlpCosts mlpCosts(const LayerConfig& config, Mistake mistake = Mistake::None,
                  bool backward = false);

/// The block's forward (or its backward) on `hardware` (estimatePassTime): that pass's FLOPs per
/// device, the arrays the device holds for it read or written once, and that pass's collectives
/// one after the other.
TimeEstimate mlpEstimate(const MlpCosts& costs, bool backward, const HardwarePreset& hardware);

}  // namespace tp
