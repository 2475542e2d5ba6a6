#pragma once

// The mistakes the brief warns about, run for real: each computes what a user's wrong code would,
// so that the check can show how it differs from x @ kernel + bias.

#include "layer/eigen_types.h"
#include "layer/forward.h"
#include "layer/layer_config.h"
#include "layer/progress.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tp {

enum class Mistake {
    None,
    SumGroups,       ///< column: the groups' (N, chunk) outputs added, result (N, chunk)
    ConcatPartials,  ///< row: the (N, features) partial sums concatenated, result (N, tp*features)
    BiasPerPartial,  ///< row: the bias added to every partial sum: correct + (tp - 1) * bias
    InitPerGroup,    ///< both: each group builds its own nnx.Linear of its shard's shape
    SliceX,          ///< column: each group also takes only its own block of x's columns
    // The MLP block's (block/mlp.h):
    RowThenColumn,    ///< linear1 row-parallel, GeLU on each partial sum, linear2 column-parallel
    GatherBetween,    ///< the hidden activations all-gathered between the layers: right, costly
    Bias2PerPartial,  ///< linear2's bias added by every device before the all-reduce
};

/// Every mistake but None, in the order --help lists them.
const std::vector<Mistake>& allMistakes();

/// The mistakes a scene of `block` can make (each one's block), in allMistakes' order.
std::vector<Mistake> blockMistakes(Block block);

/// The block a mistake belongs to (None belongs to both; Linear is returned for it).
Block mistakeBlock(Mistake mistake);

/// "none", "sum-groups", "concat-partials", "bias-per-partial", "init-per-group", "slice-x".
std::string_view toString(Mistake mistake);
std::optional<Mistake> parseMistake(std::string_view text);

/// One line for --help: the mode it belongs to and the wrong computation, e.g.
/// "column: the groups' (N, chunk) outputs added instead of concatenated".
std::string mistakeDescription(Mistake mistake);

/// Why `mistake` cannot run on this scene, each tagged ConfigField::Mistake (or Memory), empty when
/// it can: a mistake of the other block or mode, slice-x with in_dim not divisible by tp_size,
/// row-then-column with in_dim or features not divisible by tp_size, gather-between with features
/// not divisible by tp_size,
/// init-per-group on the brief's fixed arrays (`nnxLayer` false), or the extra arrays the mistake
/// needs (mistakeExtraBytes) pushing the scene past config.memoryBudgetBytes.
std::vector<ConfigProblem> mistakeProblems(const LayerConfig& config, Mistake mistake,
                                           bool nnxLayer = true);

/// Bytes the mistake needs beyond bytesNeeded(config): sum-groups two (N, chunk) arrays, its sum
/// made beside the concatenation and the one running sum shown; concat-partials its
/// (N, tp*features) output; init-per-group the groups' own layer.
std::int64_t mistakeExtraBytes(const LayerConfig& config, Mistake mistake);

/// The block of x's columns (and kernel rows) group `group` takes in slice-x: [i*r, (i+1)*r),
/// r = inDim / tpSize.
IndexRange sliceXInputBlock(const ShardingPlan& plan, Index group);

/// When the mistake changes nothing on this scene, the reason in words (the check then passes,
/// truthfully); empty when it has an effect or mistake is None. `biasIsZero`: every bias value is
/// zero (NNX's default init).
std::string mistakeWithoutEffect(const LayerConfig& config, Mistake mistake, bool biasIsZero);

/// The bias init that shows a mistake a zero bias hides, else nullopt: bias-per-partial adds the
/// bias tp_size times, which changes nothing while the bias is zero (NNX's default init). A normal
/// bias of stddev 0.5 makes the error plain to see (stddev 0.02 gives errors of about 0.05).
/// `biasIsZero` as for mistakeWithoutEffect.
std::optional<BiasInit> biasShowingMistake(const LayerConfig& config, Mistake mistake,
                                           bool biasIsZero);

/// The one nnx.Linear each group builds for itself in init-per-group:
///   column: nnx.Linear(in_dim, chunk, rngs=nnx.Rngs(seed)), kernel (in_dim, chunk), bias (chunk,)
///   row:    nnx.Linear(chunk, features, rngs=nnx.Rngs(seed)), kernel (chunk, features), bias
///           (features,)
/// with the scene's bias init, bit for bit as NNX draws it (the shard's own shape and fan_in).
/// Every group passes the same seed and shape, so every group gets this same layer (drawn by
/// nnx_init.h's groupLayer).
struct GroupLayer {
    Matrix kernel;
    RowVector bias;
};

/// The split forward pass with `mistake` (not None) made, for a config that mistakeProblems
/// accepts; x (N, inDim), kernel (inDim, features), bias (features,) are the one layer's arrays,
/// own is groupLayer(config) for init-per-group (else unused). The result's fields keep their
/// meaning: partials as each group computes them (bias-per-partial: with the bias; init-per-group:
/// with the group's own layer; slice-x: x[:, block_i] @ kernel[block_i, cols_i] + bias[cols_i]);
/// partialsAdded where the wrong pass adds (sum-groups, row mistakes other than concat-partials),
/// so that runningSum (layer/forward.h) gives its running sums; output the wrong result, (N, chunk)
/// for sum-groups and (N, tp*features) for concat-partials at tp > 1 (where the bias, (features,),
/// no longer fits and is left out).
ForwardResult forwardWithMistake(Mistake mistake, const MatrixCRef& x, const MatrixCRef& kernel,
                                 const RowVectorCRef& bias, const ShardingPlan& plan,
                                 const GroupLayer& own, Progress* progress = nullptr);

}  // namespace tp
