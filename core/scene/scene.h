#pragma once

// One scene, computed end to end: parameters, the split forward pass, the reference and the check.
// The desktop app and tpviz-cli both compute through here.

#include "forward.h"
#include "layer_config.h"
#include "nnx_init.h"
#include "progress.h"
#include "verification.h"

#include <memory>
#include <optional>
#include <string>

namespace tp {

/// Where a scene's arrays come from.
enum class SceneSource {
    Nnx,    ///< nnx.Linear(inDim, features, rngs=nnx.Rngs(seed)) and x from the same Rngs
    Brief,  ///< the brief's worked example (x [[1, 2]], a 2x4 kernel, bias [0.5, -0.5, 1, 2], tp 2)
};

struct Scene {
    LayerConfig config;
    SceneSource source = SceneSource::Nnx;
    LayerParams params;
    ForwardResult result;       ///< the split forward pass with its intermediates
    Matrix reference;           ///< x @ kernel + bias from one full product
    Verification verification;  ///< result.output against reference
};

/// A computed scene, shared read-only between every view that shows it (no view copies arrays).
using ScenePtr = std::shared_ptr<const Scene>;

/// The brief's example as a config (batch 1, inDim 2, features 4, tp 2, column) and its arrays.
/// `mode` and `tpSize` of a config may be changed afterwards (e.g. row mode, tp 1).
LayerConfig briefExampleConfig();
LayerParams briefExampleParams();

/// Work units computeScene reports: parameterCount (or 0 for the brief) plus tpSize.
std::int64_t sceneWorkUnits(const LayerConfig& config, SceneSource source);

/// What to tell a user when computing a scene ran out of memory (std::bad_alloc from computeScene):
/// "not enough memory for this scene: it needs 1.5 GiB (N bytes) and an allocation failed; choose
/// smaller sizes", with N = bytesNeeded(config).
std::string allocationFailureMessage(const LayerConfig& config);

/// Computes a scene from a valid config (assert config.validate().empty()). With progress: sets the
/// total to sceneWorkUnits and advances while generating and per group; returns nullopt when
/// cancelled.
std::optional<Scene> computeScene(const LayerConfig& config, SceneSource source,
                                  Progress* progress = nullptr, Tolerance tolerance = {});

}  // namespace tp
