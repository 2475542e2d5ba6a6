#pragma once

// Which slice of the one layer each tensor-parallel group owns.

#include "eigen_types.h"
#include "layer_config.h"

#include <string>
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
};

/// The step of group `group` in the brief's words, with shapes:
///   column: "y[:, 4:8] = x @ kernel[:, 4:8] + bias[4:8]   (2x8 @ 8x4 + 4)"
///   row:    "sum += x[:, 2:4] @ kernel[2:4, :]   (2x2 @ 2x12)"  ("sum = ..." for group 0)
std::string stepEquation(const ShardingPlan& plan, int group, Index batch);

/// The closing step of row mode, where the bias is added once: "y = sum + bias   (2x12 + 12)".
std::string rowBiasEquation(const ShardingPlan& plan, Index batch);

/// "[4:8)": a range as the app labels groups.
std::string rangeLabel(IndexRange range);

}  // namespace tp
