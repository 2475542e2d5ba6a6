#pragma once

// The arrays of one layer and its input, wherever they come from (drawn as NNX draws them, the
// worked example's, or read from files).

#include "layer/eigen_types.h"

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

/// The arrays of the MLP block, from ONE nnx.Rngs(seed):
///   rngs    = nnx.Rngs(seed)
///   linear1 = nnx.Linear(inDim, hidden, rngs=rngs)      # kernel: count 0, bias: count 1
///   linear2 = nnx.Linear(hidden, features, rngs=rngs)   # kernel: count 2, bias: count 3
///   x       = jax.random.normal(rngs.params(), (batch, inDim))  # count 4
struct MlpParams {
    Matrix kernel1;   ///< (inDim, hidden), lecun_normal with fan_in inDim
    RowVector bias1;  ///< (hidden,)
    Matrix kernel2;   ///< (hidden, features), lecun_normal with fan_in hidden
    RowVector bias2;  ///< (features,)
    Matrix x;         ///< (batch, inDim), standard normal
};

}  // namespace tp
