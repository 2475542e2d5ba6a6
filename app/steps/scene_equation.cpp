#include "scene_equation.h"

#include "range_text.h"
#include "step_plan.h"

namespace tp {
namespace {

// Row mode's closing step when the mistake changes it; empty when it reads as without one.
std::string closingStep(const Scene& scene) {
    const LayerConfig& c = scene.config;
    const std::string sum = shapeText(c.batch, c.features);
    const std::string features = std::to_string(c.features);
    switch (scene.mistake) {
        case Mistake::BiasPerPartial:
            return "y = sum   (" + sum + ", the bias already in each of the " +
                   std::to_string(c.tpSize) + " partial sums)";
        case Mistake::ConcatPartials:
            if (c.tpSize == 1)
                break;  // one partial: its "concatenation" is the sum, and the bias fits
            return "y = concatenate(partial sums)   (" + shapeText(c.batch, c.tpSize * c.features) +
                   ", the bias (" + features + ",) no longer fits)";
        case Mistake::InitPerGroup:
            return "y = sum + own_bias   (" + sum + " + " + features + ")";
        case Mistake::None:
        case Mistake::SumGroups:
        case Mistake::SliceX:
            break;
    }
    return {};
}

// What row mode's closing step does under the mistake, when not what stepCaption says.
std::string closingCaption(const Scene& scene) {
    const std::string groups = std::to_string(scene.config.tpSize);
    switch (scene.mistake) {
        case Mistake::BiasPerPartial:
            return "no bias added here: it is already in each of the " + groups + " partial sums";
        case Mistake::ConcatPartials:
            return "the " + groups + " partial sums set side by side instead of added; the bias " +
                   "no longer fits";
        case Mistake::InitPerGroup:
            return "the groups' own bias added once to the sum";
        case Mistake::None:
        case Mistake::SumGroups:
        case Mistake::SliceX:
            break;
    }
    return {};
}

}  // namespace

std::string sceneCaption(const Scene& scene, int step) {
    const LayerConfig& c = scene.config;
    const StepState state = stepState(c, step, scene.mistake);
    if (scene.mistake == Mistake::None || state.ringStep >= 0 || !state.biasAdded ||
        closingStep(scene).empty())
        return stepCaption(c, step, scene.mistake);
    return "Step " + std::to_string(state.step) + " of " +
           std::to_string(stepCount(c, scene.mistake) - 1) + ": " + closingCaption(scene);
}

std::string sceneEquation(const Scene& scene, int step) {
    const LayerConfig& c = scene.config;
    if (scene.mistake == Mistake::None)
        return equationText(c, step);
    const StepState state = stepState(c, step, scene.mistake);
    if (state.ringStep < 0 && state.currentGroup >= 0)
        return mistakeStepEquation(scene.mistake, scene.result.plan, state.currentGroup, c.batch);
    if (state.ringStep < 0 && state.biasAdded) {
        if (std::string closing = closingStep(scene); !closing.empty())
            return closing;
    }
    return equationText(c, step);
}

}  // namespace tp
