#pragma once

// The part of the Python snippet that runs the scene's layer on a real JAX device mesh.

#include "layer/layer_config.h"
#include "layer/verification.h"
#include "scene/python_snippet.h"

#include <string>

namespace tp {

/// A PartitionSpec of partitionSpecs ("P('data', None)") with the quotes Python code uses here
/// ("P(\"data\", None)").
std::string pythonSpec(const std::string& spec);

/// def gather_columns(block): the all-gather over "model" along the columns (axis 1, tiled) whose
/// result shard_map takes as one copy over "model" (its invariant form: all_gather's
/// to="invarying", or all_gather_invariant, in the JAX versions that have them). `oneCopy` says
/// in its comment what that copy is.
std::string pythonGatherColumnsFunction(const std::string& oneCopy);

/// Whether pythonSnippet appends the mesh version: when the config names the mesh, i.e. a data
/// axis (dataSize > 1) or an explicit output layout, or when the forward pass or (with the
/// backward) the backward pass has a collective: always in row mode, at tpSize > 1 with the
/// backward (column mode's all-reduce of dx).
bool pythonMeshWanted(const LayerConfig& config, SnippetPasses passes = SnippetPasses::Forward);

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
/// CheckRule::Allclose, np.testing.assert_allclose with its rtol and atol). With the backward it
/// also defines gather_columns when the backward gathers dy (row + sharded).
std::string pythonMeshSnippet(const LayerConfig& config, const CheckSettings& check = {},
                              SnippetPasses passes = SnippetPasses::Forward);

}  // namespace tp
