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

bool ShardingPlan::groupsInPlace() const {
    const bool column = mode == ParallelMode::Column;
    Index next = 0;
    for (const ShardGroup& g : groups) {
        const IndexRange part = column ? g.kernelCols : g.kernelRows;
        const IndexRange whole = column ? g.kernelRows : g.kernelCols;
        const IndexRange read = column ? g.outputCols : g.inputCols;
        const IndexRange other = column ? g.inputCols : g.outputCols;
        const IndexRange all{0, column ? inDim : features};
        if (part.start != next || read != part || whole != all || other != all)
            return false;
        next = part.stop;
    }
    return true;
}

ShardGroup ShardingPlan::run(Index first, Index count) const {
    assert(count >= 1 && first + count <= Index(groups.size()));
    const ShardGroup& a = groups[std::size_t(first)];
    const ShardGroup& b = groups[std::size_t(first + count - 1)];
    ShardGroup r = a;
    r.kernelRows = {a.kernelRows.start, b.kernelRows.stop};
    r.kernelCols = {a.kernelCols.start, b.kernelCols.stop};
    r.inputCols = {a.inputCols.start, b.inputCols.stop};
    r.outputCols = {a.outputCols.start, b.outputCols.stop};
    r.owned = {a.owned.start, b.owned.stop};
    return r;
}

}  // namespace tp
