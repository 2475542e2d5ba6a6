#pragma once

// A computed scene's backward pass: the cotangent, each group's gradients, the reference, the check
// and the collectives the devices would run.

#include "devices/backward_collectives.h"
#include "devices/backward_ring.h"
#include "layer/backward.h"
#include "scene/scene.h"

#include <vector>

namespace tp {

struct SceneBackward {
    /// (batch, features): jax.random.normal(rngs.params(), (batch, features)), count 3 (cotangent)
    Matrix dy;
    BackwardResult result;              ///< the split backward pass (groups, and D's block sums)
    Gradients reference;                ///< jax.vjp of the full layer at (x, kernel, bias) with dy
    BackwardVerification verification;  ///< result against reference, with each product's K
    std::vector<BackwardCollective> collectives;  ///< in the order they run
    /// rings[i]: collectives[i] run on the devices' buffers (computeBackward; empty from
    /// completeBackward)
    std::vector<RingRun> rings;

    /// Every gradient passed its check, and every collective run on the buffers passed its own.
    bool passed() const;
};

/// The backward pass of a correct scene (no mistake: the mistakes are the forward's) on its own
/// parameters, checked with `check` as the forward pass is.
SceneBackward computeBackward(const Scene& scene, const CheckSettings& check = {});

/// The rest of computeBackward around a split pass `result` computed from `dy` elsewhere (on MPI
/// ranks): the reference from the scene's parameters, the check with `check`, the collectives;
/// not their simulated runs (rings stays empty: the ranks ran the real ones).
SceneBackward completeBackward(const Scene& scene, Matrix dy, BackwardResult result,
                               const CheckSettings& check = {});

}  // namespace tp
