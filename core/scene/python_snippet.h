#pragma once

// A Python script that builds a scene with JAX and Flax NNX, for checking tpviz against them.

#include "layer/layer_config.h"
#include "layer/mistakes.h"
#include "layer/verification.h"

#include <string>

namespace tp {

/// What the script computes: the forward pass alone, or the forward pass and then the backward.
enum class SnippetPasses { Forward, ForwardAndBackward };

/// A runnable Python script (jax, flax.nnx, numpy) for `config`: it sets the PRNG flags first
/// (jax_threefry_partitionable True/False, jax_enable_x64 when config.x64), builds
///   rngs = nnx.Rngs(seed); model = nnx.Linear(in_dim, features, rngs=rngs
///                                             [, bias_init=nnx.initializers.normal(stddev)])
///   x = jax.random.normal(rngs.params(), (batch, in_dim), dtype=jnp.float32)
/// exactly as initLayer does, runs the split forward pass over slices of the one kernel (column:
/// pieces concatenated with jnp.concatenate(pieces, axis=-1); row: partial sums added, bias
/// once), and checks it against x @ kernel + bias as `check` says: by default an assertion that
/// every element is within the float32 rounding bound 2 * gamma(K + 1) * (|x| @ |kernel| + |bias|)
/// of verification.h; with CheckRule::Allclose, np.testing.assert_allclose with its rtol and atol.
/// It prints a few values.
/// With a mistake (one mistakeProblems accepts): the same script with the split replaced by the
/// same wrong code tpviz runs (forwardWithMistake), marked with a "# MISTAKE" comment, followed by
/// the check that exposes it: the shapes, then every element against the rounding bound.
/// When the config names the mesh (pythonMeshWanted: --data D > 1 or --output given) the script
/// also runs the layer on a real JAX mesh (python_mesh_snippet.h).
/// With SnippetPasses::ForwardAndBackward (a correct split only: mistake must be None), the script
/// goes on with the backward pass (python_backward_snippet.h): dy drawn after x, the reference
/// from jax.vjp, the split gradients and, on a mesh, the same gradients in shard_map with the
/// collectives of backwardCollectives.
/// In the fsdp or sequence layout (config.layout), the mesh part is that layout's
/// (python_layout_snippet.h): its specs at rest and its collectives, forward and backward.
/// The MLP block's config (Block::Mlp) gets the block's script, pythonMlpSnippet
/// (python_mlp_snippet.h).
std::string pythonSnippet(const LayerConfig& config, Mistake mistake = Mistake::None,
                          const CheckSettings& check = {},
                          SnippetPasses passes = SnippetPasses::Forward);

/// def rounding_bound(K, s), each line after `indent`: the float32 rounding bound
/// 2 * gamma(K + 1) * s + 2 * (K + 1) * 2^-125 of a product of K terms per element with magnitude
/// s (verification.h's worst case), for each check with its own K.
std::string pythonRoundingBoundFunction(const std::string& indent = "");

/// A Python float literal that reads back as `value` after float64 parsing and rounding to
/// float32 (as jnp.array(value, jnp.float32) does): the shortest float32 form when that survives
/// the double rounding, else the exact decimal value.
std::string pythonFloatLiteral(float value);

/// A Python float literal for a double: the shortest form that reads back as `value`, with the
/// exponent unpadded as Python code is usually written ("1e-5", "0.001").
std::string pythonDoubleLiteral(double value);

}  // namespace tp
