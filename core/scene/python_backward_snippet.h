#pragma once

// The part of the Python snippet that runs the scene's backward pass (tpviz-cli --python
// --backward), after the forward part of python_snippet.h and python_mesh_snippet.h.

#include "devices/backward_collectives.h"
#include "layer/layer_config.h"
#include "layer/verification.h"

#include <string>
#include <vector>

namespace tp {

/// Python that continues the forward script (it reads its rngs, x, kernel, bias, batch, in_dim,
/// features and tp_size, and with the rounding rule its f64 and rounding_bound):
///   dy = jax.random.normal(rngs.params(), (batch, features), dtype=jnp.float32)  # count 3
/// as initLayer draws it, the reference from jax.vjp of the full layer at (x, kernel, bias), and
/// the split backward pass over slices of the one kernel as backwardParallel computes it (column:
/// each group's dkernel and dbias columns, its dx partial, the partials added; row: each group's
/// dkernel rows and its own columns of dx, dbias once). check_gradients(where, dx, dkernel,
/// dbias) asserts every gradient against the reference as verifyBackward checks it: each element
/// within the rounding bound of its own product (K = features for dx, batch for dkernel and
/// dbias), or, with CheckRule::Allclose, np.testing.assert_allclose with its rtol and atol.
std::string pythonBackwardSnippet(const LayerConfig& config, const CheckSettings& check = {});

/// Python that continues the mesh script (python_mesh_snippet.h: it reads its mesh and
/// gather_columns) and pythonBackwardSnippet's dy and check_gradients: x, kernel and dy placed
/// with jax.device_put as the backward's specs say (dy in the output's layout), and the same
/// gradients in shard_map, each leaving in its array's layout (dx as x, dkernel as kernel, dbias
/// as bias). The collectives are those of
/// backwardCollectives(config), in its order and no others: dy's all-gather over "model"
/// (gather_columns, row + sharded) before the products; then jax.lax.psum(dx_partial, "model")
/// (column) and jax.lax.psum over "data" of dkernel and dbias (D > 1). The backward's specs are
/// partitionSpecs' without the axes of one device (D = 1, tp_size 1), so that shard_map's check
/// takes a gradient as one copy over such an axis without a collective over one device. The
/// gradients are asserted with check_gradients.
std::string pythonBackwardMeshSnippet(const LayerConfig& config);

/// The backward mesh part up to its body: the collectives in words (describe, in order), the
/// backward's specs (`specs` through pythonSpecOnMesh: x, kernel and dy in, dx, dkernel and dbias
/// out, dy as the output and each gradient as its array), x, kernel and dy placed under them, and
/// the line `def backward_on_mesh(x_block, kernel_block, dy_block):` under its shard_map.
std::string pythonBackwardMeshOpening(const LayerConfig& config, const PartitionSpecs& specs,
                                      const std::vector<BackwardCollective>& collectives);

/// backward_on_mesh's products once x_block, kernel_block and dy_block are as the tensor layout
/// uses them: column: this device's columns of dy (sliced from a replicated dy), dkernel_block =
/// x_block.T @ dy_block, dbias_block, and dx_partial = dy_block @ kernel_block.T (dx_block itself
/// when not `dxSummed`); row: dkernel_block, dbias_block and dx_block, its own columns of dx.
std::string pythonGradientsOnMesh(const LayerConfig& config, bool dxSummed);

/// backward_on_mesh's return, its call on x_b, kernel_b and dy_b, and check_gradients("mesh").
std::string pythonBackwardMeshClosing();

}  // namespace tp
