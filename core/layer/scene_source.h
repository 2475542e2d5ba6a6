#pragma once

// Where a scene's arrays come from, in the lowest folder so that the files, the scene and the app
// all name it.

namespace tp {

/// Where a scene's arrays come from.
enum class SceneSource {
    Nnx,    ///< nnx.Linear(inDim, features, rngs=nnx.Rngs(seed)) and x from the same Rngs
    Brief,  ///< the brief's worked example (x [[1, 2]], a 2x4 kernel, bias [0.5, -0.5, 1, 2], tp 2)
    Files,  ///< arrays read from files (see array_source.h); the others drawn as for Nnx
};

}  // namespace tp
