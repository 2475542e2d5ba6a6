#include "scene/scene_request.h"

#include "layer/backward.h"
#include "layer/finite_max_abs.h"
#include "layer/float_format.h"
#include "layer/mistakes.h"
#include "scene/fused_forward.h"
#include "scene/mlp_scene.h"
#include "scene/scene_backward.h"

#include <cassert>
#include <string_view>

namespace tp {

std::vector<ConfigProblem> backwardProblems(const LayerConfig& config, const SceneRun& run) {
    if (!run.backward)
        return {};
    if (run.mistake != Mistake::None)
        return {{ConfigField::Backward,
                 "the backward pass differentiates a correct split; the mistakes are the forward "
                 "pass's and cannot be combined with it"}};
    // A refused config (too big for its own budget among them) is the config's problem; past
    // that, the gradients'.
    if (!config.validate().empty())
        return {};
    const std::int64_t need =
        bytesNeeded(config) +
        (config.block == Block::Mlp ? mlpBackwardBytesNeeded(config) : backwardBytesNeeded(config));
    if (need <= config.memoryBudgetBytes)
        return {};
    return {{ConfigField::Backward, "the scene with its backward pass needs " + formatBytes(need) +
                                        ", more than the memory budget of " +
                                        formatBytes(config.memoryBudgetBytes) +
                                        "; choose smaller sizes"}};
}

std::vector<ConfigProblem> sceneProblems(const SceneRequest& request) {
    std::vector<ConfigProblem> problems = request.config.validate();
    for (ConfigProblem& problem :
         mistakeProblems(request.config, request.run.mistake, request.source == SceneSource::Nnx))
        problems.push_back(std::move(problem));
    for (ConfigProblem& problem : backwardProblems(request.config, request.run))
        problems.push_back(std::move(problem));
    if (request.config.block == Block::Mlp && request.source != SceneSource::Nnx) {
        problems.push_back({ConfigField::Block,
                            "the MLP block draws its arrays from the seed, as nnx.Linear does: the "
                            "worked example and array files are one Linear's"});
        return problems;
    }
    if (request.source != SceneSource::Files)
        return problems;
    // The arrays' shapes against the config's sizes, each one fixed: loadArrayFiles's words.
    LayerConfig sized = request.config;
    std::vector<std::string> shapes;
    takeArrayShapes(request.arrays, sized, FixedSizes{true, true, true}, shapes);
    for (std::string& message : shapes) {
        const std::string_view text = message;
        const ConfigField field = text.starts_with("kernel: ") ? ConfigField::KernelFile
                                  : text.starts_with("bias: ") ? ConfigField::BiasFile
                                                               : ConfigField::XFile;
        problems.push_back({field, std::move(message)});
    }
    return problems;
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
    if (run.backward) {
        scene.backward = std::make_shared<const SceneBackward>(computeBackward(scene, run.check));
        advance(progress, backwardWorkUnits(config));
    }
    return scene;
}

}  // namespace

std::optional<Scene> computeScene(SceneRequest request, Progress* progress) {
    assert(sceneProblems(request).empty());
    const LayerConfig& config = request.config;
    Scene scene;
    scene.config = config;
    scene.source = request.source;
    if (config.block == Block::Mlp) {
        std::optional<MlpScene> mlp = computeMlpScene(
            config, request.run.mistake, request.run.check, request.run.backward, progress);
        if (!mlp)
            return std::nullopt;
        scene.mistake = request.run.mistake;
        scene.mistakeWithoutEffect = mlp->mistakeWithoutEffect;
        scene.mlp = std::make_shared<const MlpScene>(std::move(*mlp));
        return scene;
    }
    if (progress)
        progress->setTotal(sceneWorkUnits(config, request.source, request.run.backward));
    switch (request.source) {
        case SceneSource::Brief:
            scene.params = briefExampleParams();
            assert(scene.params.kernel.rows() == config.inDim &&
                   scene.params.x.rows() == config.batch);
            break;
        case SceneSource::Nnx:
            scene.params = initLayer(config, progress);
            scene.kernelDrawn = true;
            break;
        case SceneSource::Files:
            scene.kernelDrawn = !request.arrays.kernel.has_value();
            scene.arrayNotices = std::move(request.arrays.notices);
            scene.params = completeLayerParams(config, std::move(request.arrays));
            break;
    }
    if (request.source != SceneSource::Files && isCancelled(progress))
        return std::nullopt;
    return computeOverParams(std::move(scene), progress, request.run);
}

}  // namespace tp
