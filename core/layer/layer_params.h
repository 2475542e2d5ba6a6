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

}  // namespace tp
