#include "scene/timeline.h"

#include "devices/mesh_costs.h"
#include "layer/range_text.h"
#include "scene/layout_timeline.h"
#include "scene/mlp_scene.h"
#include "scene/mlp_timeline.h"
#include "scene/scene.h"
#include "scene/timeline_steps.h"

#include <algorithm>
#include <cassert>

namespace tp {
namespace {

constexpr auto kGap = kEquationGap;

// Row mode's closing step when the mistake changes it; empty when it reads as without one.
std::string closingEquation(const LayerConfig& c, Mistake mistake) {
    const std::string sum = shapeText(c.batch, c.features);
    switch (mistake) {
        case Mistake::BiasPerPartial:
            return "y = sum   (" + sum + ", the bias already in each of the " + str(c.tpSize) +
                   " partial sums)";
        case Mistake::ConcatPartials:
            if (c.tpSize == 1)
                break;  // one partial: its "concatenation" is the sum, and the bias fits
            return "y = concatenate(partial sums)   (" + shapeText(c.batch, c.tpSize * c.features) +
                   ", the bias (" + str(c.features) + ",) no longer fits)";
        case Mistake::InitPerGroup:
            return "y = sum + own_bias   (" + sum + " + " + str(c.features) + ")";
        case Mistake::None:
        case Mistake::RowThenColumn:  // the MLP block's
        case Mistake::GatherBetween:
        case Mistake::Bias2PerPartial:
        case Mistake::SumGroups:
        case Mistake::SliceX:
            break;
    }
    return {};
}

// What row mode's closing step does under the mistake, when closingEquation says it otherwise.
std::string closingCaption(const LayerConfig& c, Mistake mistake) {
    const std::string groups = str(c.tpSize);
    switch (mistake) {
        case Mistake::BiasPerPartial:
            return "no bias added here: it is already in each of the " + groups + " partial sums";
        case Mistake::ConcatPartials:
            return "the " + groups + " partial sums set side by side instead of added; the bias " +
                   "no longer fits";
        case Mistake::InitPerGroup:
            return "the groups' own bias added once to the sum";
        case Mistake::None:
        case Mistake::RowThenColumn:  // the MLP block's
        case Mistake::GatherBetween:
        case Mistake::Bias2PerPartial:
        case Mistake::SumGroups:
        case Mistake::SliceX:
            break;
    }
    return "add the bias once to the summed partials";
}

}  // namespace

void appendClosingStep(Timeline& timeline, const LayerConfig& c, Mistake mistake) {
    const ShardingPlan plan = ShardingPlan::make(c);
    TimelineStep& s = appendStep(timeline, StepPhase::AddBias);
    const std::string wrong = closingEquation(c, mistake);
    s.equation = wrong.empty() ? rowBiasEquation(plan, c.batch) : wrong;
    s.caption = closingCaption(c, wrong.empty() ? Mistake::None : mistake);
    if (wrong.empty() || mistake == Mistake::InitPerGroup)
        s.biasAdded = {{0, c.features}};
    s.biasIn = true;
    s.complete = true;
}

// The whole layer: the start's equation, before how it is split.
std::string layerEquation(const LayerConfig& c) {
    return std::string("y = x @ kernel + bias") + kGap + "(" + shapeText(c.batch, c.inDim) + " @ " +
           shapeText(c.inDim, c.features) + " + " + str(c.features) + ")";
}

namespace {

// The loop's start: the whole layer and how the loop splits it.
std::string loopStartEquation(const LayerConfig& c) {
    const ShardingPlan plan = ShardingPlan::make(c);
    const std::string split = isColumn(c) ? "as " + countText(plan.tpSize, "group") + " of " +
                                                countText(plan.chunk, "output column")
                                          : "as " + countText(plan.tpSize, "partial sum") +
                                                " over row groups of " + str(plan.chunk) +
                                                ", the bias added to their total";
    return layerEquation(c) + ", " + split;
}

// "dx_0 + dx_1 + dx_2", or "dx_0 + dx_1 + ... + dx_7" past four partials.
std::string partialsSum(std::int64_t tpSize) {
    if (tpSize > 4)
        return "dx_0 + dx_1 + ... + dx_" + str(tpSize - 1);
    std::string sum = "dx_0";
    for (std::int64_t g = 1; g < tpSize; ++g)
        sum += " + dx_" + str(g);
    return sum;
}

// The backward pass after the forward's last step: dy arrives, each group's gradients, then
// column mode's sum of the dx partials or row mode's dbias, once.
void appendBackwardSteps(Timeline& loop, const LayerConfig& c) {
    const ShardingPlan plan = ShardingPlan::make(c);
    const bool column = isColumn(c);
    TimelineStep& dy = appendStep(loop, StepPhase::DyArrives);
    dy.backward = true;
    dy.caption =
        std::string("dy arrives: the cotangent of y, one value per output element; ") +
        (column ? "each group reads its own columns of it" : "every group reads all of it");
    dy.equation =
        "dy   (" + shapeText(c.batch, c.features) +
        ", the cotangent of y): dx = dy @ kernel^T, dkernel = x^T @ dy, dbias = dy.sum(0)";
    for (int g = 0; g < int(plan.tpSize); ++g) {
        const ShardGroup& group = plan.groups[std::size_t(g)];
        const bool last = g + 1 == int(plan.tpSize);
        TimelineStep& s = appendStep(loop, StepPhase::GroupGradients);
        s.currentGroup = g;
        s.gradientGroupsDone = g + 1;
        s.dkernelIn = last;
        s.equation = backwardStepEquation(plan, g, c.batch);
        if (column) {
            s.caption = "group " + str(g) + " computes " +
                        columnSlice("dkernel", group.kernelCols) + ", " +
                        vectorSlice("dbias", group.kernelCols) + " and its partial dx_" + str(g) +
                        ", over its " + countText(plan.chunk, "feature") + " only";
            s.dbiasIn = last;
        } else {
            s.caption = "group " + str(g) + " computes " + rowSlice("dkernel", group.kernelRows) +
                        " and its own slice " + columnSlice("dx", group.kernelRows) +
                        ": nothing to add";
            s.dxIn = last;
        }
    }
    if (column) {
        TimelineStep& s = appendStep(loop, StepPhase::SumDx);
        s.dxIn = true;
        s.caption = plan.tpSize == 1
                        ? std::string(
                              "dx = the one group's partial: it covers every feature's "
                              "terms")
                        : "dx = the sum of the " + str(plan.tpSize) +
                              " partials: each group's partial covers only its " + str(plan.chunk) +
                              " of the " + str(c.features) +
                              " features' terms, so here the groups' contributions are added";
        s.equation = "dx = " + partialsSum(plan.tpSize) + kGap + "(" + shapeText(c.batch, c.inDim) +
                     ", summed over " + countText(plan.tpSize, "group") +
                     ": the all-reduce over \"model\")";
    } else {
        TimelineStep& s = appendStep(loop, StepPhase::DbiasOnce);
        s.dbiasIn = true;
        s.caption =
            "dbias = dy.sum(0), once: the bias was added once, to the summed partials, so its "
            "gradient is taken once, from all of dy";
        s.equation = "dbias = dy.sum(0)" + std::string(kGap) + "(" + str(c.features) + ",) from " +
                     shapeText(c.batch, c.features) + ", once)";
    }
}

// The devices' backward after the forward's last step: dy arrives, dy's all-gather when the
// output was reduce-scattered, every device's gradients, then the other collectives in order.
void appendMeshBackward(Timeline& program, const LayerConfig& c) {
    TimelineStep& dy = appendStep(program, StepPhase::DyArrives);
    dy.backward = true;
    dy.caption = dyArrivalCaption(c);
    dy.equation = dyArrivalEquation(c);
    const std::vector<BackwardCollective> collectives = backwardCollectives(c);
    int next = 0;
    if (!collectives.empty() && collectives.front().of == "dy") {
        const BackwardCollective& dyGather = collectives.front();
        appendCollectiveRing(program, c, dyGather.axis, dyGather.of, dyGather.cost, next);
        ++next;
    }
    appendAllGradients(program, c);
    for (; next < int(collectives.size()); ++next)
        appendCollectiveRing(program, c, collectives[std::size_t(next)].axis,
                             collectives[std::size_t(next)].of, collectives[std::size_t(next)].cost,
                             next);
}

}  // namespace

std::string describe(const StepCollective& c) {
    return std::string(toString(c.kind)) + " of " + c.of + " over \"" +
           std::string(toString(c.axis)) + "\"";
}

const TimelineStep& Timeline::at(int step) const {
    assert(!steps.empty());
    return steps[std::size_t(std::clamp(step, 0, lastStep()))];
}

Timeline loopTimeline(const LayerConfig& c, Mistake mistake, bool backward) {
    assert(!backward || mistake == Mistake::None);
    if (c.block == Block::Mlp)
        return mlpLoopTimeline(c, mistake, backward);
    const ShardingPlan plan = ShardingPlan::make(c);
    Timeline loop;
    TimelineStep& start = appendStep(loop, StepPhase::Start);
    start.equation = loopStartEquation(c);
    start.caption = "start; " + countText(plan.tpSize, "group") + " of " +
                    countText(plan.chunk, isColumn(c) ? "output column" : "kernel row") + " each";
    for (int g = 0; g < int(plan.tpSize); ++g) {
        const ShardGroup& group = plan.groups[std::size_t(g)];
        TimelineStep& s = appendStep(loop, StepPhase::GroupComputes);
        s.currentGroup = g;
        s.groupsDone = g + 1;
        s.biasAdded = groupBias(plan, mistake, g);
        s.equation = mistake == Mistake::None ? stepEquation(plan, g, c.batch)
                                              : mistakeStepEquation(mistake, plan, g, c.batch);
        if (isColumn(c)) {
            s.caption =
                "group " + str(g) + " computes output columns " + sliceText(group.outputCols);
            s.biasIn = s.complete = s.groupsDone == int(plan.tpSize);
        } else {
            s.caption = "group " + str(g) + " adds the partial sum of kernel rows " +
                        sliceText(group.kernelRows);
        }
    }
    if (!isColumn(c))
        appendClosingStep(loop, c, mistake);
    if (backward)
        appendBackwardSteps(loop, c);
    numberCaptions(loop);
    return loop;
}

Timeline meshProgram(const LayerConfig& c, Mistake mistake, bool backward) {
    assert(!backward || mistake == Mistake::None);
    if (c.block == Block::Mlp)
        return mlpMeshProgram(c, mistake, backward);
    if (c.layout != ShardingLayout::Tensor && mistake == Mistake::None)
        return layoutMeshProgram(c, backward);
    Timeline program;
    TimelineStep& start = appendStep(program, StepPhase::Start);
    start.equation =
        layerEquation(c) + ", on a mesh of " + str(c.dataSize) + " x " + str(c.tpSize) + " devices";
    start.caption = c.dataSize * c.tpSize == 1
                        ? "start; the one device holds kernel, bias and x"
                        : "start; each of the " + str(c.dataSize * c.tpSize) +
                              " devices holds its part of kernel, bias and x";
    const int collective = collectiveStepCount(c, mistake);
    appendAllCompute(program, c, mistake, collective == 0);
    if (collective == 0 && !isColumn(c))
        appendClosingStep(program, c, mistake);
    if (collective > 0)
        appendOutputCollective(program, c);
    if (backward)
        appendMeshBackward(program, c);
    numberCaptions(program);
    return program;
}

namespace {

// Whether the scene was run with its backward pass: one Linear's, or the block's.
bool hasBackward(const Scene& scene) {
    return scene.mlp ? scene.mlp->backward.has_value() : scene.backward != nullptr;
}

}  // namespace

Timeline loopTimeline(const Scene& scene) {
    return loopTimeline(scene.config, scene.mistake, hasBackward(scene));
}

Timeline meshProgram(const Scene& scene) {
    return meshProgram(scene.config, scene.mistake, hasBackward(scene));
}

int collectiveStepCount(const LayerConfig& config, Mistake mistake) {
    if (mistake != Mistake::None)
        return 0;
    const CollectiveCost cost = meshCosts(config).collective;
    if (cost.kind == CollectiveKind::None)
        return 0;
    return int(cost.ringSteps) + (config.mode == ParallelMode::Row ? 1 : 0);
}

RingStepInfo ringStepInfo(const LayerConfig& config, int ringStep) {
    assert(ringStep >= 0 && ringStep < collectiveStepCount(config));
    const int ring = int(config.tpSize) - 1;
    const CollectiveKind kind = collectiveFor(config.mode, config.outputLayout(), config.tpSize);
    if (kind == CollectiveKind::AllGather)
        return {RingPhase::AllGather, ringStep, ring};
    // Row mode: the reduce-scatter, the bias, then (all-reduce) the all-gather.
    if (ringStep < ring)
        return {RingPhase::ReduceScatter, ringStep, ring};
    if (ringStep == ring)
        return {RingPhase::AddBias, 0, 1};
    return {RingPhase::AllGather, ringStep - ring - 1, ring};
}

RingStepInfo ringStepInfo(CollectiveKind kind, int devices, int ringStep) {
    const int ring = devices - 1;
    assert(kind != CollectiveKind::None);
    assert(ringStep >= 0 && ringStep < (kind == CollectiveKind::AllReduce ? 2 * ring : ring));
    if (kind == CollectiveKind::ReduceScatter ||
        (kind == CollectiveKind::AllReduce && ringStep < ring))
        return {RingPhase::ReduceScatter, ringStep, ring};
    return {RingPhase::AllGather, kind == CollectiveKind::AllReduce ? ringStep - ring : ringStep,
            ring};
}

int ringChunkSent(RingPhase phase, int s, int m, int p) {
    const int back = phase == RingPhase::ReduceScatter ? s + 1 : s;
    return ((m - back) % p + p) % p;
}

std::string stepEquation(const ShardingPlan& plan, int group, Index batch) {
    const ShardGroup& g = plan.groups.at(std::size_t(group));
    if (plan.mode == ParallelMode::Column) {
        return columnSlice("y", g.outputCols) + " = x @ " + columnSlice("kernel", g.kernelCols) +
               " + " + vectorSlice("bias", g.kernelCols) + kGap + "(" +
               shapeText(batch, plan.inDim) + " @ " + shapeText(plan.inDim, plan.chunk) + " + " +
               str(plan.chunk) + ")";
    }
    return std::string(group == 0 ? "sum = " : "sum += ") + columnSlice("x", g.inputCols) + " @ " +
           rowSlice("kernel", g.kernelRows) + kGap + "(" + shapeText(batch, plan.chunk) + " @ " +
           shapeText(plan.chunk, plan.features) + ")";
}

std::string backwardStepEquation(const ShardingPlan& plan, int group, Index batch) {
    const ShardGroup& g = plan.groups.at(std::size_t(group));
    if (plan.mode == ParallelMode::Column) {
        const std::string dyCols = columnSlice("dy", g.kernelCols);
        return columnSlice("dkernel", g.kernelCols) + " = x^T @ " + dyCols + ";  dx_" + str(group) +
               " = " + dyCols + " @ " + columnSlice("kernel", g.kernelCols) + "^T" + kGap + "(" +
               shapeText(plan.inDim, batch) + " @ " + shapeText(batch, plan.chunk) + "; " +
               shapeText(batch, plan.chunk) + " @ " + shapeText(plan.chunk, plan.inDim) + ")";
    }
    return rowSlice("dkernel", g.kernelRows) + " = " + columnSlice("x", g.inputCols) +
           "^T @ dy;  " + columnSlice("dx", g.kernelRows) + " = dy @ " +
           rowSlice("kernel", g.kernelRows) + "^T" + kGap + "(" + shapeText(plan.chunk, batch) +
           " @ " + shapeText(batch, plan.features) + "; " + shapeText(batch, plan.features) +
           " @ " + shapeText(plan.features, plan.chunk) + ")";
}

std::string rowBiasEquation(const ShardingPlan& plan, Index batch) {
    return std::string("y = sum + bias") + kGap + "(" + shapeText(batch, plan.features) + " + " +
           str(plan.features) + ", bias added once)";
}

std::string mistakeStepEquation(Mistake mistake, const ShardingPlan& plan, int group, Index batch) {
    const ShardGroup& g = plan.groups.at(std::size_t(group));
    const bool column = plan.mode == ParallelMode::Column;
    const std::string cols = sliceText(g.kernelCols);
    const std::string rows = sliceText(g.kernelRows);
    const std::string chunk = str(plan.chunk);
    switch (mistake) {
        case Mistake::SumGroups:
            return std::string(group == 0 ? "y = " : "y += ") + "x @ kernel[:, " + cols +
                   "] + bias[" + cols + "]   (" + shapeText(batch, plan.inDim) + " @ " +
                   shapeText(plan.inDim, plan.chunk) + " + " + chunk + ")";
        case Mistake::ConcatPartials:
            return "y[:, " + sliceText({group * plan.features, (group + 1) * plan.features}) +
                   "] = x[:, " + rows + "] @ kernel[" + rows + ", :]   (" +
                   shapeText(batch, plan.chunk) + " @ " + shapeText(plan.chunk, plan.features) +
                   ")";
        case Mistake::BiasPerPartial:
            return std::string(group == 0 ? "sum = " : "sum += ") + "x[:, " + rows + "] @ kernel[" +
                   rows + ", :] + bias   (" + shapeText(batch, plan.chunk) + " @ " +
                   shapeText(plan.chunk, plan.features) + " + " + str(plan.features) + ")";
        case Mistake::InitPerGroup:
            if (column)
                return "y[:, " + cols + "] = x @ own_kernel + own_bias   (" +
                       shapeText(batch, plan.inDim) + " @ " + shapeText(plan.inDim, plan.chunk) +
                       " + " + chunk + ")";
            return std::string(group == 0 ? "sum = " : "sum += ") + "x[:, " + rows +
                   "] @ own_kernel   (" + shapeText(batch, plan.chunk) + " @ " +
                   shapeText(plan.chunk, plan.features) + ")";
        case Mistake::SliceX: {
            const IndexRange block = sliceXInputBlock(plan, group);
            return "y[:, " + cols + "] = x[:, " + sliceText(block) + "] @ kernel[" +
                   sliceText(block) + ", " + cols + "] + bias[" + cols + "]   (" +
                   shapeText(batch, block.size()) + " @ " + shapeText(block.size(), plan.chunk) +
                   " + " + chunk + ")";
        }
        case Mistake::None:
        case Mistake::RowThenColumn:  // the MLP block's
        case Mistake::GatherBetween:
        case Mistake::Bias2PerPartial:
            break;
    }
    return stepEquation(plan, group, batch);
}

}  // namespace tp
