#pragma once

// The part of the Python snippet that runs the scene's layer on a real JAX device mesh.

#include "layer/layer_config.h"
#include "layer/verification.h"

#include <string>

namespace tp {

/// Whether pythonSnippet appends the mesh version: when the config names the mesh, i.e. a data
/// axis (dataSize > 1) or an explicit output layout.
bool pythonMeshWanted(const LayerConfig& config);

/// The lines that must come before `import jax`: XLA_FLAGS gains
/// --xla_force_host_platform_device_count=D*P, so one CPU shows the D*P devices of the mesh.
std::string pythonMeshPreamble(const LayerConfig& config);

/// Python that continues pythonSnippet's script (it reads its x, kernel, bias, reference,
/// in_dim, features and tp_size): builds jax.sharding.Mesh over a (D, P) array of devices with
/// axes ("data", "model"), places each array with jax.device_put and NamedSharding under the specs
/// of partitionSpecs (column: kernel P(None, 'model'), bias P('model'), x P('data', None); row:
/// kernel P('model', None), bias P(None), x P('data', 'model')), asserts one device's shard
/// shapes and bytes (meshCosts), runs the split with shard_map (column: x @ kernel + bias per
/// device, then jax.lax.all_gather for a replicated output; row: the partial sum, then
/// jax.lax.psum (replicated) or jax.lax.psum_scatter (sharded), the bias added once), and asserts
/// the result is within the float32 rounding bound the script computed before (or, with
/// CheckRule::Allclose, np.testing.assert_allclose with its rtol and atol).
std::string pythonMeshSnippet(const LayerConfig& config, const CheckSettings& check = {});

}  // namespace tp
