#pragma once

// Which slice of the one layer each tensor-parallel group owns.

#include "layer/eigen_types.h"
#include "layer/layer_config.h"

#include <vector>

namespace tp {

/// One group (one device of the model axis).
/// Column mode: kernel[:, kernelCols], bias[kernelCols], all of x; output columns kernelCols.
/// Row mode: kernel[kernelRows, :], x[:, kernelRows]; a partial sum over all output columns.
struct ShardGroup {
    int index = 0;
    IndexRange kernelRows;  ///< rows of the kernel this group reads
    IndexRange kernelCols;  ///< columns of the kernel this group reads
    IndexRange inputCols;   ///< columns of x this group reads (all of them in column mode)
    IndexRange outputCols;  ///< columns of the output this group produces (all in row mode)
    IndexRange owned;  ///< its part of the split dimension: kernelCols (column), kernelRows (row)
};

/// The split of a (inDim, features) kernel into tpSize groups.
struct ShardingPlan {
    ParallelMode mode = ParallelMode::Column;
    Index inDim = 0;
    Index features = 0;
    Index tpSize = 1;
    Index chunk = 0;  ///< features / tpSize (column) or inDim / tpSize (row)
    std::vector<ShardGroup> groups;

    /// Column mode: group i owns columns [i*chunk, (i+1)*chunk), chunk = features / tpSize.
    /// Row mode: group i owns rows [i*chunk, (i+1)*chunk), chunk = inDim / tpSize.
    /// Requires a split dimension divisible by tpSize (LayerConfig::validate checks it).
    static ShardingPlan make(ParallelMode mode, Index inDim, Index features, Index tpSize);
    static ShardingPlan make(const LayerConfig& config);

    /// Whether the groups lie side by side in group order as make() lays them out: each group's
    /// part of the split dimension starts where the one before stopped, the first at 0, and it
    /// reads and writes that part (column: kernel and output columns; row: kernel rows and x's
    /// columns) and the whole of the other dimension.
    bool groupsInPlace() const;
    /// Groups [first, first + count) of a plan whose groups are in place as one group: each of its
    /// ranges from the first group's start to the last one's stop.
    ShardGroup run(Index first, Index count) const;
};

}  // namespace tp
