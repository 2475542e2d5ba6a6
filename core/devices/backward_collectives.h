#pragma once

// The collectives a scene's backward pass needs on its data x model mesh, in the order they run.
//
// The cotangent dy arrives in the output's layout. Column mode: each device keeps or takes its
// own columns of dy (sharded, or the replicated dy after the forward's all-gather), computes its
// columns of dkernel and dbias and a partial sum of the whole dx, so dx is all-reduced over
// "model" (Megatron's f, whose forward is the identity). Row mode: each device computes its own
// slice of dx from all of dy and nothing is summed over "model"; with a sharded output the
// forward's reduce-scatter is answered by an all-gather of dy first (the conjugate of a
// reduce-scatter). With D > 1, each device's dkernel and dbias blocks cover only its batch rows,
// so they are all-reduced over "data": data parallelism's all-reduce. With Nd = N / D, P =
// tp_size and float32:
//   dy all-gather (row + sharded):  V = Nd*F*4 over P devices
//   dx all-reduce (column):         V = Nd*in_dim*4 over P devices
//   dkernel all-reduce (D > 1):     V = in_dim*F/P*4 over D devices
//   dbias all-reduce (D > 1):       V = F/P*4 (column) or F*4 (row, replicated) over D devices
// each costing ringCost (mesh_costs.h). A collective over one device is left out.

#include "devices/mesh_costs.h"
#include "layer/layer_config.h"

#include <string>
#include <string_view>
#include <vector>

namespace tp {

/// The mesh's two axes, as JAX's Mesh names them.
enum class MeshAxis { Model, Data };

/// "model" / "data".
std::string_view toString(MeshAxis axis);

/// One collective of the backward pass.
struct BackwardCollective {
    MeshAxis axis = MeshAxis::Model;
    std::string of;       ///< the array it moves: "dy", "dx", "dkernel" or "dbias"
    CollectiveCost cost;  ///< its kind, bytes sent per device and ring steps
};

/// The backward's collectives for a valid config, in the order they run (the table above).
std::vector<BackwardCollective> backwardCollectives(const LayerConfig& config);

/// One collective in words: "all-reduce of dx over "model": 16 bytes sent per device in 2 ring
/// steps".
std::string describe(const BackwardCollective& collective);

}  // namespace tp
