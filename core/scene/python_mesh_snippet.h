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

/// A spec of partitionSpecs or layoutPartitionSpecs as pythonSpec writes it, with each mesh axis
/// of one device left out: P(('data', 'model'), None) at D = 1 is P("model", None), 'model' at
/// tp_size 1 is None. shard_map's check (check_vma) counts an axis named in in_specs as one the
/// values vary over even when it has one device, and would then ask for a collective over that
/// one device before a value could leave as one copy over the axis.
std::string pythonSpecOnMesh(const std::string& spec, const LayerConfig& config);

/// def NAME(block): the all-gather over "model" along `axis` (tiled) whose result shard_map takes
/// as one copy over "model" (its invariant form: all_gather's to="invarying", or
/// all_gather_invariant, in the JAX versions that have them). `oneCopy` says in its comment what
/// that copy is.
std::string pythonInvariantGatherFunction(const std::string& name, int axis,
                                          const std::string& oneCopy);

/// def gather_columns(block): pythonInvariantGatherFunction along the columns (axis 1).
std::string pythonGatherColumnsFunction(const std::string& oneCopy);

/// Whether pythonSnippet appends the mesh version: when the config names the mesh, i.e. a data
/// axis (dataSize > 1), an explicit output layout or the fsdp or sequence layout (whose script
/// is python_layout_snippet.h's), or when the forward pass or (with the
/// backward) the backward pass has a collective: always in row mode, at tpSize > 1 with the
/// backward (column mode's all-reduce of dx).
bool pythonMeshWanted(const LayerConfig& config, SnippetPasses passes = SnippetPasses::Forward);

/// The lines that must come before `import jax`: XLA_FLAGS gains
/// --xla_force_host_platform_device_count=D*P, so one CPU shows the D*P devices of the mesh.
std::string pythonMeshPreamble(const LayerConfig& config);

/// The imports of the mesh part (functools.partial, inspect, jax.sharding's Mesh, NamedSharding
/// and PartitionSpec as P, shard_map from jax or, before JAX 0.6, jax.experimental.shard_map),
/// data_size, and `mesh`: jax.make_mesh((data_size, tp_size), ("data", "model")) over the CPU
/// devices, or Mesh for JAX before make_mesh.
std::string pythonMeshSetup(const LayerConfig& config);

/// The body of layer_on_mesh(x_block, kernel_block, bias_block) from the product on, each block
/// as the tensor layout uses it (partitionSpecs): column: x_block @ kernel_block + bias_block,
/// then gather_columns for a replicated output; row: the partial sum, then jax.lax.psum
/// (replicated) or jax.lax.psum_scatter over the features (sharded), the bias added once.
std::string pythonProductOnMesh(const LayerConfig& config);

/// mesh_output against the reference: within the rounding bound the script computed before (or,
/// with CheckRule::Allclose, np.testing.assert_allclose with its rtol and atol), then its layout
/// printed.
std::string pythonMeshOutputCheck(const CheckSettings& check);

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
