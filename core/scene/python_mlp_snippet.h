#pragma once

// The Python script of the Megatron MLP block (tpviz-cli --python --block mlp): JAX and Flax NNX
// build the block, and shard_map runs it on a real mesh of tp_size CPU devices.

#include "layer/layer_config.h"
#include "layer/mistakes.h"
#include "layer/verification.h"
#include "scene/python_snippet.h"

#include <string>

namespace tp {

/// A runnable script (jax, flax.nnx, numpy) for a valid MLP config (block/mlp.h): XLA_FLAGS for
/// tp_size CPU devices and the PRNG flags first, then
///   class MLP(nnx.Module): linear1 = nnx.Linear(in_dim, hidden, rngs=rngs),
///                          linear2 = nnx.Linear(hidden, features, rngs=rngs),
///                          __call__: linear2(nnx.gelu(linear1(x)))
///   rngs = nnx.Rngs(seed); model = MLP(...)                  # counts 0 to 3
///   x = jax.random.normal(rngs.params(), (batch, in_dim))    # count 4
///   dy = jax.random.normal(rngs.params(), (batch, features)) # count 5, with the backward
/// as initMlp draws them; asserts the bits of those arrays (pythonMlpBitsCheck); the reference
/// model(x); the block in shard_map over a "model" axis, linear1 column-parallel, the GeLU on each
/// device's slice, linear2 row-parallel and one jax.lax.psum of the partial sums, bias2 added
/// once; and asserts that the mesh's output is the reference's within the bound the block's check
/// carries through its stages (block/mlp_check.h), with the worst-case rounding bound of each
/// product and the GeLU's allowance widened for XLA's tanh; or, with CheckRule::Allclose,
/// np.testing.assert_allclose with its rtol and atol. It prints the collectives the mesh program
/// runs (the names of their primitives in its jaxpr).
/// With a mistake (one of the block's): the shard_map program replaced by the same wrong code
/// block/mlp.h runs, marked with a "# MISTAKE" comment, followed by the check that exposes it,
/// printed instead of asserted: every element against the bound, then, for gather-between, whose
/// output is right, the all-gathers the program runs that the Megatron split has not.
/// With SnippetPasses::ForwardAndBackward (no mistake): the reference gradients from jax.vjp of
/// the block on plain arrays, and the gradients in shard_map (linear2's row backward, the GeLU's
/// derivative from jax.vjp of nnx.gelu on each slice, linear1's column backward, one
/// jax.lax.psum of dx), each asserted against jax.vjp's within its carried bound (or allclose).
std::string pythonMlpSnippet(const LayerConfig& config, Mistake mistake = Mistake::None,
                             const CheckSettings& check = {},
                             SnippetPasses passes = SnippetPasses::Forward);

/// The part of pythonMlpSnippet that asserts the bits the core promises, as plain numpy: it reads
/// the script's np, os, sys, kernel1, bias1, kernel2, bias2, x (and dy with the backward) and
/// asserts the float32 bits of each array's first four values (row-major) and its last one, drawn
/// here by mlpArrayBlock; given a folder as its first argument (what tpviz-cli --block mlp
/// --save-npy writes), it asserts every value of each array against that folder's .npy file, bit
/// for bit.
std::string pythonMlpBitsCheck(const LayerConfig& config,
                               SnippetPasses passes = SnippetPasses::Forward);

}  // namespace tp
