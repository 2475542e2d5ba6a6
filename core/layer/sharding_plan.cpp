#include "sharding_plan.h"

#include <cassert>

namespace tp {

ShardingPlan ShardingPlan::make(ParallelMode mode, Index inDim, Index features, Index tpSize) {
    assert(inDim > 0 && features > 0 && tpSize > 0);
    ShardingPlan plan;
    plan.mode = mode;
    plan.inDim = inDim;
    plan.features = features;
    plan.tpSize = tpSize;
    const Index split = mode == ParallelMode::Column ? features : inDim;
    assert(split % tpSize == 0);
    plan.chunk = split / tpSize;
    plan.groups.reserve(std::size_t(tpSize));
    for (Index i = 0; i < tpSize; ++i) {
        const IndexRange part{i * plan.chunk, (i + 1) * plan.chunk};
        ShardGroup group;
        group.index = int(i);
        if (mode == ParallelMode::Column) {
            group.kernelRows = {0, inDim};
            group.kernelCols = part;
            group.inputCols = {0, inDim};
            group.outputCols = part;
        } else {
            group.kernelRows = part;
            group.kernelCols = {0, features};
            group.inputCols = part;
            group.outputCols = {0, features};
        }
        plan.groups.push_back(group);
    }
    return plan;
}

ShardingPlan ShardingPlan::make(const LayerConfig& config) {
    return make(config.mode, config.inDim, config.features, config.tpSize);
}

namespace {

std::string slice(IndexRange r) {
    return std::to_string(r.start) + ":" + std::to_string(r.stop);
}

std::string shape(Index rows, Index cols) {
    return std::to_string(rows) + "x" + std::to_string(cols);
}

}  // namespace

std::string stepEquation(const ShardingPlan& plan, int group, Index batch) {
    const ShardGroup& g = plan.groups.at(std::size_t(group));
    if (plan.mode == ParallelMode::Column) {
        const std::string cols = slice(g.kernelCols);
        return "y[:, " + cols + "] = x @ kernel[:, " + cols + "] + bias[" + cols + "]   (" +
               shape(batch, plan.inDim) + " @ " + shape(plan.inDim, plan.chunk) + " + " +
               std::to_string(plan.chunk) + ")";
    }
    const std::string rows = slice(g.kernelRows);
    return std::string(group == 0 ? "sum = " : "sum += ") + "x[:, " + rows + "] @ kernel[" + rows +
           ", :]   (" + shape(batch, plan.chunk) + " @ " + shape(plan.chunk, plan.features) + ")";
}

std::string rowBiasEquation(const ShardingPlan& plan, Index batch) {
    return "y = sum + bias   (" + shape(batch, plan.features) + " + " +
           std::to_string(plan.features) + ", bias added once)";
}

std::string rangeLabel(IndexRange range) {
    return "[" + std::to_string(range.start) + ":" + std::to_string(range.stop) + ")";
}

}  // namespace tp
