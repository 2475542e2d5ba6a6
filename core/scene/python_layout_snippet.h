#pragma once

// The part of the Python snippet that runs one Linear on a real JAX mesh in the fsdp or sequence
// layout (tpviz-cli --python --layout fsdp|sequence), in place of python_mesh_snippet.h's tensor
// layout, after the forward part of python_snippet.h.

#include "layer/layer_config.h"
#include "layer/verification.h"

#include <string>

namespace tp {

/// Python that continues pythonSnippet's script (it reads its x, kernel, bias, reference,
/// in_dim, features and tp_size, and with the rounding rule its f64 and bound) for a config whose
/// layout is fsdp or sequence: the mesh of pythonMeshSetup, each array placed with
/// jax.device_put and NamedSharding under its spec at rest (layoutPartitionSpecs, through
/// pythonSpecOnMesh), one device's shard shapes and bytes asserted against layoutMemory's bytes
/// at rest, and layer_on_mesh in shard_map running the forward collectives of layoutCollectives
/// in their order and no others:
///   fsdp      jax.lax.all_gather(kernel_block, "data", axis=0, tiled=True) and the same of
///             bias_block, then the tensor layout's product and output collective
///             (pythonProductOnMesh)
///   sequence  column: jax.lax.all_gather(x_block, "model", axis=0, tiled=True), then the
///             product, its output sharded by columns; row: the partial sum, then
///             jax.lax.psum_scatter(partial_sum, "model", scatter_dimension=0, tiled=True)
///             along the batch rows, the bias added once
/// then mesh_output checked against the reference as pythonMeshOutputCheck does. A collective
/// over one device is left out, as layoutCollectives leaves it.
/// With `backward` (pythonBackwardSnippet's dy and check_gradients before it), a gather_rows or
/// gather_columns function where the backward gathers dy is defined before layer_on_mesh.
std::string pythonLayoutSnippet(const LayerConfig& config, const CheckSettings& check,
                                bool backward);

/// Python that continues pythonLayoutSnippet and pythonBackwardSnippet: x, kernel and dy placed
/// as they rest (dy in the output's layout), and backward_on_mesh in shard_map with the backward
/// collectives of layoutCollectives, in their order and no others (fsdp: dy's gather for a
/// sharded row output, the kernel all-gathered over "data" again, dx's psum over "model" in
/// column mode, dkernel's and dbias's jax.lax.psum_scatter over "data"; sequence: x all-gathered
/// over "model" again (column) or dy along its rows (row), dx's psum_scatter over "model" along
/// the rows (column), dkernel's and dbias's psum over "data"). Each gradient leaves laid out as
/// its array at rest (dx as x, dkernel as kernel, dbias as bias) and is asserted with
/// check_gradients.
std::string pythonLayoutBackwardSnippet(const LayerConfig& config);

}  // namespace tp
