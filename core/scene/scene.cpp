#include "scene.h"

#include "finite_max_abs.h"
#include "fused_forward.h"

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

std::int64_t sceneWorkUnits(const LayerConfig& config, SceneSource source) {
    return (source == SceneSource::Nnx ? parameterCount(config) : 0) +
           2 * productWorkUnits(config) + config.batch * config.features;
}

std::string allocationFailureMessage(const LayerConfig& config) {
    const std::int64_t need = bytesNeeded(config);
    return "not enough memory for this scene: it needs " + formatBytes(need) + " (" +
           std::to_string(need) + " bytes) and an allocation failed; choose smaller sizes";
}

namespace {

// The split forward pass (with run.mistake made for real), the reference and the check over
// scene.params.
std::optional<Scene> computeOverParams(Scene scene, Progress* progress, const SceneRun& run) {
    const LayerConfig& config = scene.config;
    const LayerParams& p = scene.params;
    scene.mistake = run.mistake;
    if (run.mistake == Mistake::InitPerGroup)
        scene.groupLayer = groupLayer(config);
    scene.mistakeWithoutEffect = mistakeWithoutEffect(config, run.mistake, p.bias.isZero());
    if (scene.source == SceneSource::Nnx)  // the other sources' bias is fixed
        scene.biasShowingMistake = tp::biasShowingMistake(config, run.mistake, p.bias.isZero());
    const ShardingPlan plan = ShardingPlan::make(config);
    // The forward pass counts one unit per group: each weighs its share of the products.
    const std::int64_t productUnits = productWorkUnits(config);
    if (progress)
        progress->setUnitSize(productUnits / config.tpSize);
    if (run.mistake == Mistake::None) {
        // The correct split and the reference: one read of a big kernel serves both.
        ForwardAndReference both = forwardWithReference(p.x, p.kernel, p.bias, plan, progress);
        scene.result = std::move(both.split);
        scene.reference = std::move(both.reference);
        scene.kernelMaxAbs = both.kernelMaxAbs;
    } else {
        scene.result = forwardWithMistake(run.mistake, p.x, p.kernel, p.bias, plan,
                                          scene.groupLayer, progress);
        if (!isCancelled(progress)) {
            scene.reference = forwardReference(p.x, p.kernel, p.bias);
            scene.kernelMaxAbs = finiteMaxAbs(p.kernel);
        }
    }
    if (progress)
        progress->setUnitSize(1);
    if (isCancelled(progress))
        return std::nullopt;
    advance(progress, productUnits);  // the reference's share of the products
    scene.verification =
        verify(scene.result.output, scene.reference, p.x, p.kernel, p.bias, run.check);
    advance(progress, config.batch * config.features);
    return scene;
}

}  // namespace

std::optional<Scene> computeScene(const LayerConfig& config, SceneSource source, Progress* progress,
                                  const SceneRun& run) {
    assert(config.validate().empty());
    assert(source != SceneSource::Files);  // computeSceneFromArrays
    assert(mistakeProblems(config, run.mistake, source == SceneSource::Nnx).empty());
    if (progress)
        progress->setTotal(sceneWorkUnits(config, source));

    Scene scene;
    scene.config = config;
    scene.source = source;
    if (source == SceneSource::Brief) {
        scene.params = briefExampleParams();
        assert(scene.params.kernel.rows() == config.inDim && scene.params.x.rows() == config.batch);
    } else {
        scene.params = initLayer(config, progress);
        scene.kernelDrawn = true;
    }
    if (isCancelled(progress))
        return std::nullopt;
    return computeOverParams(std::move(scene), progress, run);
}

std::optional<Scene> computeSceneFromArrays(const LayerConfig& config, LoadedArrays loaded,
                                            Progress* progress, const SceneRun& run) {
    assert(config.validate().empty());
    assert(mistakeProblems(config, run.mistake, false).empty());
    if (progress)
        progress->setTotal(sceneWorkUnits(config, SceneSource::Files));
    Scene scene;
    scene.config = config;
    scene.source = SceneSource::Files;
    scene.kernelDrawn = !loaded.kernel.has_value();
    scene.params = completeLayerParams(config, std::move(loaded));
    return computeOverParams(std::move(scene), progress, run);
}

SceneCosts computeSceneCosts(const Scene& scene, const HardwarePreset& hardware,
                             const CheckSettings& check) {
    SceneCosts costs;
    costs.mesh = meshCosts(scene.config);
    costs.estimate = estimateTime(costs.mesh, hardware);
    costs.ring = simulateRing(scene.config, scene.result, scene.params, check);
    return costs;
}

}  // namespace tp
