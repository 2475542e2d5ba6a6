#include "scene/scene.h"

#include "block/mlp_rings.h"
#include "scene/mlp_scene.h"
#include "scene/scene_backward.h"

#include "devices/backward_costs.h"
#include "devices/backward_ring.h"
#include "devices/layout_costs.h"
#include "devices/layout_rings.h"
#include "layer/backward.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace tp {

LayerConfig briefExampleConfig() {
    LayerConfig config;
    config.batch = 1;
    config.inDim = 2;
    config.features = 4;
    config.tpSize = 2;
    return config;
}

LayerParams briefExampleParams() {
    LayerParams params;
    params.x = Matrix{{1.f, 2.f}};
    params.kernel = Matrix{{1.f, 0.f, 2.f, -1.f}, {0.f, 1.f, 1.f, 3.f}};
    params.bias = RowVector{{0.5f, -0.5f, 1.f, 2.f}};
    return params;
}

std::int64_t productWorkUnits(const LayerConfig& config) {
    const double multiplyAdds =
        double(config.batch) * double(config.inDim) * double(config.features);
    const auto perGroup = std::int64_t(
        std::ceil(multiplyAdds / double(kMultiplyAddsPerUnit) / double(config.tpSize)));
    return std::max<std::int64_t>(perGroup, 1) * config.tpSize;
}

std::int64_t sceneWorkUnits(const LayerConfig& config, SceneSource source, bool backward) {
    return (source == SceneSource::Nnx ? parameterCount(config) : 0) +
           2 * productWorkUnits(config) + config.batch * config.features +
           (backward ? backwardWorkUnits(config) : 0);
}

std::int64_t backwardWorkUnits(const LayerConfig& config) {
    return 4 * productWorkUnits(config) + config.batch * config.inDim +
           config.inDim * config.features;
}

std::string allocationFailureMessage(const LayerConfig& config, bool backward) {
    const std::int64_t need = bytesNeeded(config) + (backward ? backwardBytesNeeded(config) : 0);
    return std::string("not enough memory for this scene") +
           (backward ? " with its backward pass" : "") + ": it needs " + formatBytesExactly(need) +
           " and an allocation failed; choose smaller sizes";
}

bool Scene::passed() const {
    if (mlp)
        return mlp->passed();
    return verification.passed() && (!backward || backward->passed());
}

SceneCosts computeSceneCosts(const Scene& scene, const HardwarePreset& hardware,
                             const CheckSettings& check) {
    SceneCosts costs;
    costs.hardware = hardware;
    if (const MlpScene* mlp = scene.mlp.get()) {
        costs.estimate = mlpEstimate(mlp->costs, false, hardware);
        if (mlp->backward)
            costs.backwardEstimate = mlpEstimate(mlp->costs, true, hardware);
        costs.blockRings =
            runMlpRings(scene.config, mlp->mistake, mlp->params, mlp->split, mlp->costs,
                        mlp->backward ? &mlp->backward->split : nullptr, check);
        return costs;
    }
    costs.mesh = meshCosts(scene.config);
    costs.estimate = layoutEstimate(scene.config, PassPhase::Forward, hardware);
    costs.backwardEstimate = layoutEstimate(scene.config, PassPhase::Backward, hardware);
    costs.ring = simulateRing(scene.config, scene.result, scene.params, check);
    if (scene.config.layout != ShardingLayout::Tensor) {
        const LayerConfig& c = scene.config;
        std::int64_t taken = bytesNeeded(c) + ringRunBytes(c);
        LayoutBackwardInputs backward;
        if (scene.backward) {
            backward = {&scene.backward->result, &scene.backward->dy};
            taken += backwardBytesNeeded(c) + backwardRingBytes(c);
        }
        costs.layoutRings = runLayoutRings(c, scene.params, scene.result, backward, taken, check);
    }
    return costs;
}

bool SceneCosts::ringsPassed() const {
    auto passed = [](const RingRun& run) { return !run.simulated || run.check.passed(); };
    return passed(ring) && std::all_of(layoutRings.begin(), layoutRings.end(), passed) &&
           std::all_of(blockRings.begin(), blockRings.end(), passed);
}

}  // namespace tp
