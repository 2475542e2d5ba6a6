#pragma once

// The Megatron MLP block (Shoeybi et al. 2019, section 3), y = linear2(gelu(linear1(x))), on tp
// devices:
//   linear1 = nnx.Linear(in_dim, hidden), column-parallel: device g computes
//             h[:, slice g] = x @ kernel1[:, slice g] + bias1[slice g], slice g = [g*c, (g+1)*c),
//             c = hidden / tp;
//   GeLU    on each device's own slice: a[:, slice g] = gelu(h[:, slice g]) (block/gelu.h);
//   linear2 = nnx.Linear(hidden, features), row-parallel on the same slice: device g's partial
//             sum a[:, slice g] @ kernel2[slice g, :], the partials all-reduced (Megatron's g) and
//             bias2 added once.
// Nothing moves between the layers: the slice of h a device computes is the slice of a linear2
// needs. The mistakes (layer/mistakes.h) run for real:
//   row-then-column: linear1 row-parallel, device g's partial sum x[:, rows g] @ kernel1[rows g, :]
//     (bias1 with device 0's), GeLU applied to each partial, the GeLUs all-reduced, then linear2
//     column-parallel, y[:, cols g] = a @ kernel2[:, cols g] + bias2[cols g]: the sum of GeLUs is
//     not the GeLU of the sum;
//   gather-between: the correct linear1 and GeLU, then a all-gathered, linear2 column-parallel on
//     the whole hidden and y all-gathered: the output is right, the bytes and memory are not;
//   bias2-per-partial: every device adds bias2 to its partial sum before the all-reduce.

#include "layer/eigen_types.h"
#include "layer/layer_config.h"
#include "layer/layer_params.h"
#include "layer/mistakes.h"
#include "layer/partials.h"
#include "layer/progress.h"
#include "layer/sharding_plan.h"

#include <vector>

namespace tp {

/// How the two layers are split: Megatron's (linear1 column over hidden, linear2 row over hidden),
/// or row-then-column's.
struct MlpPlan {
    ShardingPlan linear1;  ///< of (in_dim, hidden)
    ShardingPlan linear2;  ///< of (hidden, features)
};

/// The plan `mistake` runs (row-then-column's, else Megatron's) for a valid MLP config.
MlpPlan mlpPlan(const LayerConfig& config, Mistake mistake = Mistake::None);

/// A split forward pass of the block, with its intermediates as the devices hold them.
struct MlpForward {
    MlpPlan plan;
    /// (batch, hidden): linear1's output, each device's slice computed on its own (row-then-column:
    /// the sum of linear1's partial sums, which that mistake never forms before its GeLU).
    Matrix h;
    /// (batch, hidden): what linear2 reads: gelu(h) slice by slice (row-then-column: the sum of
    /// the devices' GeLUs of their partial sums).
    Matrix a;
    /// Row-then-column: linear1's tp partial sums, (batch, hidden) each; empty otherwise.
    std::vector<Matrix> hPartials;
    /// linear2's tp partial sums (batch, features), all-reduced into the output (bias2-per-partial:
    /// each with bias2); empty where linear2 is column-parallel (row-then-column, gather-between).
    /// Megatron's split on several devices stores none: each is made on first read from `a` and
    /// the params' kernel2 (layer/forward.h's row split), which must outlive it, unchanged.
    Partials partials;
    Matrix output;  ///< (batch, features)
};

/// The block split over config.tpSize devices with `mistake` made (None, or one of the block's
/// three), for a config mlpProblems accepts. With progress: one unit per device's layer pass.
MlpForward mlpForward(const MlpParams& params, const LayerConfig& config,
                      Mistake mistake = Mistake::None, Progress* progress = nullptr);

/// The unsharded block, each layer one full product: h = x @ kernel1 + bias1, a = gelu(h),
/// output = a @ kernel2 + bias2.
struct MlpReference {
    Matrix h;
    Matrix a;
    Matrix output;
};

MlpReference mlpReference(const MlpParams& params);

/// a = gelu(h), element by element.
Matrix geluOf(const MatrixCRef& h);

}  // namespace tp
