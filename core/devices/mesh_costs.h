#pragma once

// The device mesh of one scene and what each device holds, computes and sends.
//
// The mesh is `data x model`: model = tp_size devices split the layer as the sharding plan says,
// data = D devices split the batch. Device (d, m) holds batch rows block d (Nd = N / D rows) and
// model shard m. With P = tp_size and float32 (4 bytes):
//   column: kernel in_dim*F/P*4, bias F/P*4, x Nd*in_dim*4 (the full input rows), output Nd*F/P*4
//           (sharded) or Nd*F*4 (after the all-gather); flops 2*Nd*in_dim*F/P.
//   row:    kernel in_dim/P*F*4, bias F*4 (replicated, added once after the reduction), x
//           Nd*in_dim/P*4, unreduced partial Nd*F*4, output Nd*F*4 (after the all-reduce) or
//           Nd*F/P*4 (after the reduce-scatter); flops 2*Nd*in_dim/P*F.
// Ring collectives over the P devices of one model axis, V = Nd*F*4: all-gather and
// reduce-scatter send (P-1)/P*V per device in P-1 steps; all-reduce (reduce-scatter, then
// all-gather) sends 2(P-1)/P*V in 2(P-1) steps. P = 1: no collective.

#include "layer/layer_config.h"
#include "layer/sharding_plan.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace tp {

/// The collective that brings the output to its layout, over the model axis.
enum class CollectiveKind { None, AllGather, ReduceScatter, AllReduce };

/// "none", "all-gather", "reduce-scatter", "all-reduce".
std::string_view toString(CollectiveKind kind);

/// Column + sharded: none; column + replicated: all-gather; row + sharded: reduce-scatter; row +
/// replicated: all-reduce. None whenever tpSize == 1.
CollectiveKind collectiveFor(ParallelMode mode, OutputLayout layout, std::int64_t tpSize);

/// What one device holds and computes, in bytes of float32 and FLOPs (one multiply-add = 2).
struct DeviceHoldings {
    std::int64_t kernelBytes = 0;
    std::int64_t biasBytes = 0;
    std::int64_t xBytes = 0;
    std::int64_t partialBytes = 0;  ///< row mode's unreduced partial sum; 0 in column mode
    std::int64_t outputBytes = 0;   ///< the output block after the collective (if any)
    std::int64_t flops = 0;         ///< of its matmul
    /// Of those, what this program's core sums in order (inOrderFlops below): all of them when the
    /// product has at most kFewRows rows (Nd <= 8), else none.
    std::int64_t inOrderFlops = 0;
    /// What its product reads and writes once: column kernel + bias + x + its Nd*F/P*4 block of
    /// the output; row kernel + x + the partial (the bias is added after the reduction).
    std::int64_t productBytes = 0;
};

/// The FLOPs of a product of `rows` rows of x, neither factor transposed (a forward's), that this
/// program's core sums in order (layer/product_kernel.h's route for at most kFewRows rows, which a
/// preset may give its own rate): all `flops` of it, or none.
std::int64_t inOrderFlops(std::int64_t rows, std::int64_t flops);

/// A ring collective's traffic per device.
struct CollectiveCost {
    CollectiveKind kind = CollectiveKind::None;
    std::int64_t bytesSentPerDevice = 0;  ///< (P-1)/P*V, or 2(P-1)/P*V for the all-reduce
    std::int64_t ringSteps = 0;           ///< P-1, or 2(P-1) for the all-reduce
};

/// A ring collective of `kind` over `devices` devices on an array of `bytes` (V, the whole array
/// after an all-gather, or the array each device sums in a reduction): all-gather and
/// reduce-scatter send (devices-1)/devices*V per device in devices-1 steps, all-reduce twice that
/// in 2(devices-1) steps, rounded down to whole bytes (exact when V splits evenly). One device,
/// or kind None: nothing sent, no steps (the kind becomes None).
CollectiveCost ringCost(CollectiveKind kind, std::int64_t devices, std::int64_t bytes);

/// The costs of a scene's mesh, identical for every device.
struct MeshCosts {
    std::int64_t data = 1;           ///< D
    std::int64_t model = 1;          ///< P = tp_size
    std::int64_t devices = 1;        ///< D * P
    std::int64_t rowsPerDevice = 0;  ///< Nd = N / D
    OutputLayout layout = OutputLayout::Sharded;
    DeviceHoldings perDevice;
    CollectiveCost collective;
    /// The unsharded layer on one device, for comparison: kernel, bias, x, and y, in bytes.
    std::int64_t unshardedBytes = 0;
};

/// The formulas above for a valid config (assert config.validate().empty()).
MeshCosts meshCosts(const LayerConfig& config);

/// Sum of a device's holdings in bytes (kernel, bias, x, partial, output).
std::int64_t totalBytes(const DeviceHoldings& holdings);

/// Each array's layout on the mesh as JAX writes a PartitionSpec, axes "data" and "model".
/// Column: kernel P(None, 'model'), bias P('model'), x P('data', None); row: kernel
/// P('model', None), bias P(None) (replicated), x P('data', 'model'), the partial sum
/// P('data', None) before its reduction. Output: P('data', 'model') sharded, P('data', None)
/// replicated. `partial` is empty in column mode.
struct PartitionSpecs {
    std::string kernel;
    std::string bias;
    std::string x;
    std::string partial;
    std::string output;
};

PartitionSpecs partitionSpecs(const LayerConfig& config);

/// The batch rows device (d, m) holds: [d*Nd, (d+1)*Nd), Nd = N / D (the same for every m).
IndexRange batchRows(const LayerConfig& config, std::int64_t d);

}  // namespace tp
