#pragma once

// One Linear's collectives and memory per device on the `data x model` mesh in each sharding
// layout (LayerConfig::layout), forward and backward, in the order they run.
//
// P = tp_size, D = data, Nd = N / D, float32 (4 bytes). A device's kernel block is its model
// shard (column: in_dim x F/P; row: in_dim/P x F), its bias block column F/P, row F (replicated
// over "model"). Every collective is a ring (ringCost, mesh_costs.h); one over a single device is
// left out.
//   tensor    forward: the output collective over "model" (collectiveFor); backward:
//             backwardCollectives (backward_collectives.h).
//   fsdp      at rest each device holds 1/D of its kernel block (its rows) and bias block.
//             Forward: the kernel block and the bias block all-gathered over "data", the
//             product, both freed, then the output collective. Backward: dy all-gathered over
//             "model" (row + sharded), the kernel block all-gathered over "data" again, dx
//             all-reduced over "model" (column), then dkernel's and dbias's blocks
//             reduce-scattered over "data": each device keeps its 1/D of them.
//   sequence  the activations rest split over "model" along the batch rows, Nd/P rows a device.
//             Column: forward all-gathers x over "model" (V = Nd*in_dim*4), the output stays
//             sharded by its columns; backward all-gathers x again (the forward freed it),
//             reduce-scatters dx's partial sums over "model" along the rows instead of
//             all-reducing them, and all-reduces dkernel and dbias over "data" as tensor does.
//             Row: x is split by in_dim as in tensor; forward reduce-scatters the partial sums
//             over "model" along the rows (V = Nd*F*4), the bias added once to each device's
//             rows; backward all-gathers dy along the rows, then dkernel and dbias over "data".
//
// Memory: each array's bytes at rest (between passes) and at its largest, and the device's total
// at rest (the parameters and x it keeps between passes) and at its peak, the largest sum over
// the program's moments: the forward's product (every operand in use and the output buffer), its
// output collective (the arrays at rest and the output's largest), and with the backward its
// products (the kernel block, x and dy in use and every gradient buffer at once).

#include "devices/backward_collectives.h"
#include "devices/hardware.h"
#include "devices/mesh_costs.h"
#include "layer/layer_config.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tp {

/// The pass a collective belongs to.
enum class PassPhase { Forward, Backward };

/// "forward" / "backward".
std::string_view toString(PassPhase phase);

/// One collective of a layout's program.
struct LayoutCollective {
    PassPhase phase = PassPhase::Forward;
    MeshAxis axis = MeshAxis::Model;
    std::string of;       ///< the array it moves: "kernel", "bias", "x", "output", "dy", ...
    CollectiveCost cost;  ///< its kind, bytes sent per device and ring steps
};

/// The layout's collectives for a valid one-Linear config, forward then (with `backward`) the
/// backward, in the order they run (the table above).
std::vector<LayoutCollective> layoutCollectives(const LayerConfig& config, bool backward);

/// One array's bytes on a device.
struct ArrayMemory {
    std::string name;
    std::int64_t atRest = 0;  ///< what the device keeps of it between passes (0: a temporary)
    std::int64_t peak = 0;    ///< the most it holds of it at once
};

struct LayoutMemory {
    std::vector<ArrayMemory> arrays;  ///< kernel, bias, x, output; dy, dx, dkernel, dbias
    std::int64_t atRest = 0;          ///< kernel, bias and x at rest
    std::int64_t peak = 0;            ///< the largest moment (above)
};

/// A device's memory for a valid one-Linear config; the gradients' arrays with `backward`.
LayoutMemory layoutMemory(const LayerConfig& config, bool backward);

/// Each array's PartitionSpec at rest in the config's layout, written as partitionSpecs
/// (mesh_costs.h) writes them; a dimension split over both axes names them major first.
///   tensor    partitionSpecs(config)
///   fsdp      column: kernel P('data', 'model'), bias P(('model', 'data')); row: kernel
///             P(('model', 'data'), None), bias P('data'): each model block's rows, and its bias
///             block, split again over "data"; x and the output as tensor's
///   sequence  column: x P(('data', 'model'), None), each data row's batch rows split over
///             "model"; row: the output P(('data', 'model'), None), reduce-scattered along the
///             rows; the rest as tensor's
/// `partial` is partitionSpecs' (row mode's partial sum before its reduction).
PartitionSpecs layoutPartitionSpecs(const LayerConfig& config);

/// Bytes sent per device in the collectives of `phase`.
std::int64_t bytesSent(const std::vector<LayoutCollective>& collectives, PassPhase phase);

/// The pass `phase` of a valid one-Linear config on `hardware` (estimatePassTime): the products
/// every layout computes alike (the forward's of meshCosts, the backward's of backwardHoldings,
/// after any gather) and that pass's collectives of layoutCollectives one after the other. The
/// tensor layout's are estimateTime's and estimateBackwardTime's.
TimeEstimate layoutEstimate(const LayerConfig& config, PassPhase phase,
                            const HardwarePreset& hardware);

/// One layout of a config, side by side with the others.
struct LayoutSummary {
    ShardingLayout layout = ShardingLayout::Tensor;
    /// Why the config cannot take this layout (LayerConfig::validate's words); empty when it can,
    /// and then the figures below are set.
    std::string refusal;
    std::int64_t bytesAtRest = 0;  ///< layoutMemory's totals per device
    std::int64_t bytesPeak = 0;
    std::int64_t forwardSent = 0;  ///< bytes sent per device in the forward's collectives
    std::int64_t backwardSent = 0;
    TimeEstimate forward;  ///< layoutEstimate on the hardware
    TimeEstimate backward;
};

/// `config` in each of the three layouts (tensor, fsdp, sequence), with the backward when asked,
/// on `hardware`; a layout the config cannot take carries its refusal. One-Linear configs only.
std::vector<LayoutSummary> compareLayouts(LayerConfig config, bool backward,
                                          const HardwarePreset& hardware);

/// The mesh size a sweep of the layouts varies: tp_size (the model axis) or D (the data axis).
enum class MeshSize { Tp, Data };

/// One value of a sweep: the three layouts of the config with that tp_size or D.
struct LayoutSweepPoint {
    std::int64_t value = 1;
    std::vector<LayoutSummary> layouts;  ///< compareLayouts' tensor, fsdp, sequence
};

/// `config` with tp_size set to each divisor of its split dimension, or D to each divisor of its
/// batch, that the tensor layout takes (LayerConfig::validate), in increasing order, and the three
/// layouts at each (a layout that value refuses carries its refusal). One-Linear configs only.
std::vector<LayoutSweepPoint> layoutSweep(LayerConfig config, MeshSize size, bool backward,
                                          const HardwarePreset& hardware);

}  // namespace tp
