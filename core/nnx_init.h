#pragma once

// The parameters of nnx.Linear(inDim, features, rngs=nnx.Rngs(seed)) and the input x, bit for bit
// as Flax NNX and JAX make them (spec: shared/spec/nnx-init.md, §14 "the scene").

#include "eigen_types.h"
#include "layer_config.h"
#include "progress.h"

namespace tp {

/// The arrays of one scene:
///   rngs  = nnx.Rngs(seed)
///   model = nnx.Linear(inDim, features, rngs=rngs)          # kernel: count 0, bias: count 1
///   x     = jax.random.normal(rngs.params(), (batch, inDim))  # count 2
struct LayerParams {
    Matrix kernel;   ///< (inDim, features), lecun_normal
    RowVector bias;  ///< (features,), zeros or normal(stddev)
    Matrix x;        ///< (batch, inDim), standard normal
};

/// Number of float32 values initLayer draws: inDim*features + features + batch*inDim.
std::int64_t parameterCount(const LayerConfig& config);

/// Generates the whole scene. With progress: advances one unit per value drawn (parameterCount in
/// all; the caller sets the total); stops early when cancelled (discard the result then).
LayerParams initLayer(const LayerConfig& config, Progress* progress = nullptr);

/// kernel[rows, cols] generated directly, without the full kernel; bit-identical to slicing it.
Matrix kernelBlock(const LayerConfig& config, IndexRange rows, IndexRange cols);

/// bias[cols] generated directly; bit-identical to slicing the full bias.
RowVector biasSlice(const LayerConfig& config, IndexRange cols);

/// x[rows, cols] generated directly; bit-identical to slicing the full x.
Matrix inputBlock(const LayerConfig& config, IndexRange rows, IndexRange cols);

}  // namespace tp
