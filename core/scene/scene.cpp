#include "scene.h"

#include <cassert>

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

std::int64_t sceneWorkUnits(const LayerConfig& config, SceneSource source) {
    return (source == SceneSource::Nnx ? parameterCount(config) : 0) + config.tpSize;
}

std::string allocationFailureMessage(const LayerConfig& config) {
    const std::int64_t need = bytesNeeded(config);
    return "not enough memory for this scene: it needs " + formatBytes(need) + " (" +
           std::to_string(need) + " bytes) and an allocation failed; choose smaller sizes";
}

std::optional<Scene> computeScene(const LayerConfig& config, SceneSource source, Progress* progress,
                                  Tolerance tolerance) {
    assert(config.validate().empty());
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
    }
    if (isCancelled(progress))
        return std::nullopt;

    const LayerParams& p = scene.params;
    scene.result = forwardParallel(p.x, p.kernel, p.bias, ShardingPlan::make(config), progress);
    if (isCancelled(progress))
        return std::nullopt;
    scene.reference = forwardReference(p.x, p.kernel, p.bias);
    scene.verification = verify(scene.result.output, scene.reference, tolerance);
    return scene;
}

}  // namespace tp
