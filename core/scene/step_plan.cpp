#include "step_plan.h"

#include "range_text.h"

#include <algorithm>
#include <cassert>

namespace tp {
namespace {

constexpr auto kGap = "   ";

}  // namespace

int computeStepCount(const LayerConfig& config) {
    const int groups = int(config.tpSize);
    return config.mode == ParallelMode::Column ? groups + 1 : groups + 2;
}

int collectiveStepCount(const LayerConfig& config, Mistake mistake) {
    if (mistake != Mistake::None)
        return 0;
    const CollectiveCost cost = meshCosts(config).collective;
    if (cost.kind == CollectiveKind::None)
        return 0;
    return int(cost.ringSteps) + (config.mode == ParallelMode::Row ? 1 : 0);
}

int stepCount(const LayerConfig& config, Mistake mistake) {
    return computeStepCount(config) + collectiveStepCount(config, mistake);
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

int ringChunkSent(RingPhase phase, int s, int m, int p) {
    const int back = phase == RingPhase::ReduceScatter ? s + 1 : s;
    return ((m - back) % p + p) % p;
}

StepState stepState(const LayerConfig& config, int step, Mistake mistake) {
    StepState state;
    const int groups = int(config.tpSize);
    state.step = std::clamp(step, 0, stepCount(config, mistake) - 1);
    const int computeSteps = computeStepCount(config);
    if (state.step >= computeSteps) {  // the collective, after every group is done
        state.groupsDone = groups;
        state.biasAdded = config.mode == ParallelMode::Row;
        state.complete = true;
        state.ringStep = state.step - computeSteps;
        return state;
    }
    state.groupsDone = std::min(state.step, groups);
    state.currentGroup = state.step >= 1 && state.step <= groups ? state.step - 1 : -1;
    if (config.mode == ParallelMode::Column) {
        state.complete = state.groupsDone == groups;
    } else {
        state.biasAdded = state.step == groups + 1;
        state.complete = state.biasAdded;
    }
    return state;
}

std::string stepEquation(const ShardingPlan& plan, int group, Index batch) {
    const ShardGroup& g = plan.groups.at(std::size_t(group));
    if (plan.mode == ParallelMode::Column) {
        return columnSlice("y", g.outputCols) + " = x @ " + columnSlice("kernel", g.kernelCols) +
               " + " + vectorSlice("bias", g.kernelCols) + kGap + "(" +
               shapeText(batch, plan.inDim) + " @ " + shapeText(plan.inDim, plan.chunk) + " + " +
               std::to_string(plan.chunk) + ")";
    }
    return std::string(group == 0 ? "sum = " : "sum += ") + columnSlice("x", g.inputCols) + " @ " +
           rowSlice("kernel", g.kernelRows) + kGap + "(" + shapeText(batch, plan.chunk) + " @ " +
           shapeText(plan.chunk, plan.features) + ")";
}

std::string rowBiasEquation(const ShardingPlan& plan, Index batch) {
    return std::string("y = sum + bias") + kGap + "(" + shapeText(batch, plan.features) + " + " +
           std::to_string(plan.features) + ", bias added once)";
}

namespace {

// The equation line of ring step `ringStep` of the collective.
std::string ringEquation(const LayerConfig& config, int ringStep) {
    const RingStepInfo info = ringStepInfo(config, ringStep);
    const std::string p = std::to_string(config.tpSize);
    if (info.phase == RingPhase::AddBias)
        return "device m adds bias[chunk m] once to its reduced chunk m";
    const int back =
        info.phase == RingPhase::ReduceScatter ? info.indexInPhase + 1 : info.indexInPhase;
    const std::string chunk =
        back == 0 ? "chunk m" : "chunk (m - " + std::to_string(back) + ") mod " + p;
    const std::string verb =
        info.phase == RingPhase::ReduceScatter ? ", which adds it to its own" : "";
    return std::string(info.phase == RingPhase::ReduceScatter ? "reduce-scatter " : "all-gather ") +
           std::to_string(info.indexInPhase + 1) + "/" + std::to_string(info.phaseSteps) +
           ": device m sends " + chunk + " to device (m + 1) mod " + p + verb;
}

}  // namespace

std::string equationText(const LayerConfig& config, int step) {
    const StepState state = stepState(config, step);
    if (state.ringStep >= 0)
        return ringEquation(config, state.ringStep);
    const ShardingPlan plan = ShardingPlan::make(config);
    if (state.biasAdded)
        return rowBiasEquation(plan, config.batch);
    if (state.currentGroup >= 0)
        return stepEquation(plan, state.currentGroup, config.batch);
    // Before any group: the whole layer, and how it will be split.
    const std::string groups = std::to_string(plan.tpSize), chunk = std::to_string(plan.chunk);
    const std::string split = config.mode == ParallelMode::Column
                                  ? "as " + groups + " groups of " + chunk + " output columns"
                                  : "as " + groups + " partial sums over row groups of " + chunk +
                                        ", the bias added once";
    return std::string("y = x @ kernel + bias") + kGap + "(" +
           shapeText(config.batch, config.inDim) + " @ " +
           shapeText(config.inDim, config.features) + " + " + std::to_string(config.features) +
           "), " + split;
}

std::string stepCaption(const LayerConfig& config, int step, Mistake mistake) {
    const StepState state = stepState(config, step, mistake);
    const ShardingPlan plan = ShardingPlan::make(config);
    const std::string prefix = "Step " + std::to_string(state.step) + " of " +
                               std::to_string(stepCount(config, mistake) - 1) + ": ";
    if (state.ringStep >= 0) {
        const RingStepInfo info = ringStepInfo(config, state.ringStep);
        if (info.phase == RingPhase::AddBias)
            return prefix + "each device adds the bias once to the chunk it reduced";
        return prefix + (info.phase == RingPhase::ReduceScatter ? "reduce-scatter" : "all-gather") +
               " ring step " + std::to_string(info.indexInPhase + 1) + " of " +
               std::to_string(info.phaseSteps) + " over " + std::to_string(config.tpSize) +
               " devices per data row";
    }
    const std::string groups = std::to_string(plan.tpSize), chunk = std::to_string(plan.chunk);
    const std::string group = std::to_string(state.currentGroup);
    if (config.mode == ParallelMode::Column) {
        if (state.currentGroup < 0)
            return prefix + "start; " + groups + " groups of " + chunk + " output columns each";
        return prefix + "group " + group + " computes output columns " +
               sliceText(plan.groups[std::size_t(state.currentGroup)].outputCols);
    }
    if (state.biasAdded)
        return prefix + "add the bias once to the summed partials";
    if (state.currentGroup < 0)
        return prefix + "start; " + groups + " groups of " + chunk + " kernel rows each";
    return prefix + "group " + group + " adds the partial sum of kernel rows " +
           sliceText(plan.groups[std::size_t(state.currentGroup)].kernelRows);
}

std::string mistakeStepEquation(Mistake mistake, const ShardingPlan& plan, int group, Index batch) {
    const ShardGroup& g = plan.groups.at(std::size_t(group));
    const bool column = plan.mode == ParallelMode::Column;
    const std::string cols = sliceText(g.kernelCols);
    const std::string rows = sliceText(g.kernelRows);
    const std::string chunk = std::to_string(plan.chunk);
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
                   shapeText(plan.chunk, plan.features) + " + " + std::to_string(plan.features) +
                   ")";
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
            break;
    }
    return stepEquation(plan, group, batch);
}

}  // namespace tp
