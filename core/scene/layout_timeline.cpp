#include "scene/layout_timeline.h"

#include "devices/layout_costs.h"
#include "layer/range_text.h"
#include "scene/timeline_steps.h"

#include <algorithm>
#include <cassert>
#include <string>

namespace tp {
namespace {

// Where each device's arrays rest before the forward, as the start's caption says it.
std::string restCaption(const LayerConfig& c) {
    const std::string devices =
        "each of the " + std::to_string(c.dataSize * c.tpSize) + " devices ";
    if (c.layout == ShardingLayout::Fsdp)
        return "start (fsdp); " + devices + "keeps 1/" + std::to_string(c.dataSize) +
               " of its kernel block's rows and of its bias block, and its batch rows of x";
    if (c.mode == ParallelMode::Column)
        return "start (sequence parallelism); " + devices +
               "keeps its kernel and bias blocks and 1/" + std::to_string(c.tpSize) +
               " of its data row's batch rows of x";
    return "start (sequence parallelism); " + devices +
           "keeps its kernel and bias blocks and its columns of x; the output will rest split "
           "along the batch rows";
}

// The index of `step` in backwardCollectives(config) when the tensor layout runs the same
// collective, else -1.
int tensorIndex(const LayerConfig& c, const LayoutCollective& step) {
    const std::vector<BackwardCollective> tensor = backwardCollectives(c);
    for (std::size_t i = 0; i < tensor.size(); ++i)
        if (tensor[i].of == step.of && tensor[i].axis == step.axis &&
            tensor[i].cost.kind == step.cost.kind)
            return int(i);
    return -1;
}

// A collective the backward runs before the gradients: a gather of what they read.
bool beforeGradients(const LayoutCollective& step) {
    return step.cost.kind == CollectiveKind::AllGather &&
           (step.of == "dy" || step.of == "x" || step.of == "kernel");
}

}  // namespace

Timeline layoutMeshProgram(const LayerConfig& c, bool backward) {
    assert(c.validate().empty() && c.block == Block::Linear && c.layout != ShardingLayout::Tensor);
    const std::vector<LayoutCollective> program = layoutCollectives(c, backward);
    Timeline t;
    TimelineStep& start = appendStep(t, StepPhase::Start);
    start.caption = restCaption(c);
    start.equation = layerEquation(c) + ", on a mesh of " + std::to_string(c.dataSize) + " x " +
                     std::to_string(c.tpSize) + " devices";

    int outputIndex = -1;
    std::size_t i = 0;
    for (; i < program.size() && program[i].phase == PassPhase::Forward; ++i) {
        const LayoutCollective& step = program[i];
        if (step.of == "output")
            outputIndex = int(i);
        else
            appendCollectiveRing(t, c, step.axis, step.of, step.cost, -1, int(i));
    }
    appendAllCompute(t, c, Mistake::None, outputIndex < 0);
    if (outputIndex >= 0)
        appendOutputCollective(t, c, outputIndex);
    else if (c.mode == ParallelMode::Row)
        appendClosingStep(t, c, Mistake::None);
    if (!backward) {
        numberCaptions(t);
        return t;
    }

    TimelineStep& dy = appendStep(t, StepPhase::DyArrives);
    dy.backward = true;
    const bool rowsOfDy =
        c.layout == ShardingLayout::Sequence && c.mode == ParallelMode::Row && c.tpSize > 1;
    dy.caption = rowsOfDy ? "dy arrives as y rests: each device holds its own batch rows of all of "
                            "it; the all-gather along the rows brings the rest"
                          : dyArrivalCaption(c);
    dy.equation = rowsOfDy ? "dy[rows of device (d, m), :]" : dyArrivalEquation(c);
    for (; i < program.size() && beforeGradients(program[i]); ++i)
        appendCollectiveRing(t, c, program[i].axis, program[i].of, program[i].cost,
                             tensorIndex(c, program[i]), int(i));
    appendAllGradients(t, c);
    for (; i < program.size(); ++i)
        appendCollectiveRing(t, c, program[i].axis, program[i].of, program[i].cost,
                             tensorIndex(c, program[i]), int(i));
    numberCaptions(t);
    return t;
}

std::vector<bool> fsdpChunksHeld(const Timeline& program, int step, const std::string& of, int d,
                                 int dataSize) {
    std::vector<bool> held(std::size_t(dataSize), true);
    const TimelineStep& state = program.at(step);
    const auto gather = [&](const TimelineStep& s) {
        return !s.backward && s.ringStep >= 0 && s.collective.of == of &&
               s.collective.axis == MeshAxis::Data && s.collective.layoutIndex >= 0;
    };
    const auto first = std::find_if(program.steps.begin(), program.steps.end(), gather);
    if (state.backward || first == program.steps.end())
        return held;
    const auto compute =
        std::find_if(program.steps.begin(), program.steps.end(),
                     [](const auto& s) { return s.phase == StepPhase::AllCompute; });
    const int gathered = gather(state) ? state.ring.indexInPhase + 2  // own chunk, s + 1 received
                         : state.step < first->step   ? 1
                         : state.step > compute->step ? 1
                                                      : dataSize;
    for (int j = 0; j < dataSize; ++j)
        held[std::size_t(j)] = false;
    for (int k = 0; k < gathered; ++k)
        held[std::size_t(((d - k) % dataSize + dataSize) % dataSize)] = true;
    return held;
}

}  // namespace tp
