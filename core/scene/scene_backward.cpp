#include "scene/scene_backward.h"

#include <algorithm>
#include <cassert>
#include <utility>

namespace tp {

SceneBackward computeBackward(const Scene& scene, const CheckSettings& check) {
    Matrix dy = cotangent(scene.config);
    BackwardResult result = backwardParallel(scene.params.x, scene.params.kernel, dy,
                                             scene.result.plan, scene.config.dataSize);
    SceneBackward backward = completeBackward(scene, std::move(dy), std::move(result), check);
    backward.rings = runBackwardRings(scene.config, backward.result, scene.params.x,
                                      scene.params.kernel, backward.dy, check);
    return backward;
}

SceneBackward completeBackward(const Scene& scene, Matrix dy, BackwardResult result,
                               const CheckSettings& check) {
    assert(scene.mistake == Mistake::None);
    const LayerParams& p = scene.params;
    SceneBackward backward;
    backward.dy = std::move(dy);
    backward.result = std::move(result);
    backward.reference = backwardReference(p.x, p.kernel, backward.dy);
    backward.verification = verifyBackward(backward.result.gradients, backward.reference, p.x,
                                           p.kernel, backward.dy, check);
    backward.collectives = backwardCollectives(scene.config);
    return backward;
}

bool SceneBackward::passed() const {
    return verification.passed() && std::all_of(rings.begin(), rings.end(), [](const RingRun& run) {
               return !run.simulated || run.check.passed();
           });
}

}  // namespace tp
