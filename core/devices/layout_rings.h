#pragma once

// The collectives that the fsdp and sequence layouts add or change (layout_costs.h), run step by
// step on the devices' buffers as the tensor layout's are (ring_collective.h, backward_ring.h).
// Their chunks are cut along rows: fsdp's along its kernel block's rows (and its bias block's
// values), sequence's along the batch rows. Each device's block runs transposed through
// runRingSteps, whose chunks are columns, so a RingRun's stacks hold the blocks transposed.
//   gathers: fsdp's kernel and bias blocks over "data" (one ring of D devices per model shard,
//     forward and again in the backward), sequence's x (column mode, forward and backward) and dy
//     (row mode, backward) over "model" (one ring of P devices per data row). Each device starts
//     with its own chunk of the block; values only move, so every bit must arrive.
//   reduce-scatters: sequence's row-mode partial sums (the bias then added once to each
//     device's rows) and column-mode dx partials over "model" along the batch rows, and fsdp's
//     dkernel and dbias blocks over "data" along their rows, each device starting from its own
//     batch rows' block. The rows each device ends with are checked against the split pass's
//     with the rounding bound of their product (K = in_dim for the output, features for dx,
//     batch for dkernel and dbias).
// The layout's other collectives are the tensor layout's, run where the tensor layout runs them
// (SceneCosts::ring, SceneBackward::rings).

#include "devices/layout_costs.h"
#include "devices/ring_collective.h"
#include "layer/backward.h"
#include "layer/forward.h"
#include "layer/layer_params.h"

#include <vector>

namespace tp {

/// The gradients a layout's backward runs start from; both null for the forward alone.
struct LayoutBackwardInputs {
    const BackwardResult* result = nullptr;
    const Matrix* dy = nullptr;
};

/// One RingRun per entry of layoutCollectives(config, backward inputs given), in its order. The
/// layout's own collectives run as above when their buffers fit the memory budget beside what
/// the scene holds (`taken` bytes; else simulated false and the note says why); a collective
/// the tensor layout also runs is not simulated here, and its note says where its run is.
/// `forward` is the split pass on `params`, `backward` the split backward on the same layer.
std::vector<RingRun> runLayoutRings(const LayerConfig& config, const LayerParams& params,
                                    const ForwardResult& forward,
                                    const LayoutBackwardInputs& backward, std::int64_t taken,
                                    const CheckSettings& check = {});

}  // namespace tp
