#include "layer/sharding_plan.h"

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
        group.owned = part;
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

}  // namespace tp
