#pragma once

// The settings of one scene: the layer's sizes, how it is split, and how its parameters are drawn.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tp {

/// Column-parallel splits the kernel's output columns; row-parallel splits its input rows.
enum class ParallelMode { Column, Row };

/// How JAX lays out threefry random bits: `jax_threefry_partitionable` True (the default since
/// JAX 0.5.0) or False (legacy).
enum class PrngLayout { Partitionable, Legacy };

/// How the bias is initialised: NNX's default zeros, or `nnx.initializers.normal(stddev)`.
struct BiasInit {
    enum class Kind { Zeros, Normal };
    Kind kind = Kind::Zeros;
    float stddev = 0.0f;  ///< used when kind == Normal

    bool operator==(const BiasInit&) const = default;
};

/// Where the layer's output lives after the forward pass, across the model axis of the mesh.
/// Sharded: device m keeps its own output block (column: its columns; row: a reduce-scatter leaves
/// it features block m). Replicated: every device holds all of y (column: an all-gather; row: an
/// all-reduce).
enum class OutputLayout { Sharded, Replicated };

/// What a scene runs: one nnx.Linear, or the Megatron MLP block, linear1 -> GeLU -> linear2
/// (block/mlp.h), split the Megatron way: linear1 column-parallel, linear2 row-parallel.
enum class Block { Linear, Mlp };

/// Where one Linear's arrays rest on the `data x model` mesh (devices/layout_costs.h). Tensor:
/// tensor parallelism alone, the kernel's model shards replicated over "data". Fsdp: each model
/// shard of the kernel and bias is split again over "data" (FSDP, ZeRO-3) and all-gathered just
/// before each use. Sequence: the activations rest split over "model" along the batch rows
/// (Megatron's sequence parallelism): column mode all-gathers x before its product, row mode
/// reduce-scatters its partial sums along the rows.
enum class ShardingLayout { Tensor, Fsdp, Sequence };

/// The setting a validation problem belongs to, so a UI can show it next to that input.
enum class ConfigField {
    Batch,
    InDim,
    Features,
    TpSize,
    Seed,
    Bias,
    Memory,
    Data,
    Output,
    Mistake,
    Tolerance,   ///< the check's rtol and atol (CheckSettings), as the app's inputs take them
    KernelFile,  ///< the kernel read from a file (SceneRequest::arrays)
    BiasFile,    ///< the bias read from a file
    XFile,       ///< x read from a file
    Backward,    ///< the backward pass asked for (SceneRun::backward)
    Block,       ///< the block: one Linear or the MLP block
    Hidden,      ///< the MLP block's hidden width
    Layout,      ///< the sharding layout: tensor, fsdp or sequence
};

/// One thing wrong with a LayerConfig, in words a user understands.
struct ConfigProblem {
    ConfigField field;
    std::string message;
};

/// Everything that defines a scene. Sizes are int64 so that absurd values can be stated and refused
/// rather than overflow. Defaults give a small picture that reads at a glance.
struct LayerConfig {
    std::int64_t batch = 2;      ///< N, rows of x
    std::int64_t inDim = 8;      ///< in_dim, rows of the kernel
    std::int64_t features = 12;  ///< features, columns of the kernel
    std::int64_t tpSize = 3;     ///< number of groups (devices)
    std::int64_t seed = 0;       ///< as in nnx.Rngs(seed)
    ParallelMode mode = ParallelMode::Column;
    PrngLayout prng = PrngLayout::Partitionable;
    bool x64 = false;  ///< jax_enable_x64: changes seed -> key for negative seeds and seeds >= 2^32
    BiasInit bias{};
    std::int64_t memoryBudgetBytes = std::int64_t(2) << 30;  ///< refuse scenes needing more
    std::int64_t dataSize = 1;  ///< D, devices on the mesh's data axis; each holds N / D batch rows
    /// The output layout; nullopt means the mode's default (column: sharded, row: replicated).
    std::optional<OutputLayout> output{};
    /// One Linear, or the MLP block: x (batch, inDim) -> linear1 (inDim, hidden) -> GeLU ->
    /// linear2 (hidden, features), split over tpSize devices along the hidden features whatever
    /// `mode` says (the mode is one Linear's).
    Block block = Block::Linear;
    std::int64_t hidden = 32;  ///< H, the MLP block's hidden width (4 x the default in_dim)
    ShardingLayout layout = ShardingLayout::Tensor;

    /// The dimension that tp splits: the MLP block's hidden width; one Linear's features in column
    /// mode, inDim in row mode.
    std::int64_t splitDim() const {
        if (block == Block::Mlp)
            return hidden;
        return mode == ParallelMode::Column ? features : inDim;
    }

    /// chunk = splitDim / tpSize (features / tpSize in column mode). Valid configs only.
    std::int64_t chunk() const { return splitDim() / tpSize; }

    /// The output layout in effect: `output`, or the default when it is not set (column mode and
    /// the sequence layout: sharded; row mode: replicated).
    OutputLayout outputLayout() const {
        return output.value_or(mode == ParallelMode::Column || layout == ShardingLayout::Sequence
                                   ? OutputLayout::Sharded
                                   : OutputLayout::Replicated);
    }

    /// Every problem with this config; empty when it is valid.
    std::vector<ConfigProblem> validate() const;

    bool operator==(const LayerConfig&) const = default;
};

/// Bytes that computing and keeping this scene needs: x, kernel, bias, the reference, the output
/// and every intermediate the UI shows (column: partials, N x features in all; row: tpSize partial
/// sums, each made when first read, and the one running sum made on demand, N x features each); for
/// the MLP block mlpBytesNeeded (block/mlp.h). Saturates at INT64_MAX instead of overflowing.
std::int64_t bytesNeeded(const LayerConfig& config);

/// The MLP block's: kernel1, kernel2, both biases and x; h and GeLU(h), split and reference, with
/// their bounds ((N, hidden) each, six in all); linear2's tp partial sums, the output and the
/// reference (N, features), with the output's magnitudes and bounds. Saturating.
std::int64_t mlpBytesNeeded(const LayerConfig& config);

/// What the MLP block's backward pass needs beyond mlpBytesNeeded: dy, the split's and the
/// reference's gradients (dx, dkernel1, dbias1, dkernel2, dbias2, da and dh), the tp partials of
/// dx, and the check's magnitudes and bounds (two more arrays the size of each gradient).
/// Saturating.
std::int64_t mlpBackwardBytesNeeded(const LayerConfig& config);

/// The divisors of n in increasing order: the tp sizes that split n evenly. Empty for n <= 0.
std::vector<std::int64_t> divisors(std::int64_t n);

/// The divisor of n (> 0) closest to `wanted`, the smaller one on a tie: the tp_size a mode
/// switch falls back to. Past n = 10^12 (a layer refused for its memory) it searches at most 10^6
/// steps either side of `wanted`, and gives 1 if none divides n there.
std::int64_t nearestDivisor(std::int64_t n, std::int64_t wanted);

/// A mode switch keeps a valid scene: when `config.tpSize` (> 0) does not divide the split
/// dimension of `config.mode` (of the MLP block: hidden), it moves to the nearest divisor, and the
/// returned note says so
/// ("tp_size 3 does not divide in_dim (8): using 4, the nearest divisor"); else "" and no change.
std::string moveTpToDivisor(LayerConfig& config);

/// "column" / "row", and "partitionable" / "legacy", as the CLI and JSON spell them.
std::string_view toString(ParallelMode mode);
std::string_view toString(PrngLayout layout);
/// "sharded" / "replicated".
std::string_view toString(OutputLayout layout);
/// "linear" / "mlp", as --block takes them.
std::string_view toString(Block block);
std::optional<Block> parseBlock(std::string_view text);

/// "tensor" / "fsdp" / "sequence", as --layout takes them.
std::string_view toString(ShardingLayout layout);
std::optional<ShardingLayout> parseShardingLayout(std::string_view text);
/// "zeros" or "normal:STDDEV" (shortest float32 form).
std::string toString(const BiasInit& bias);

std::optional<ParallelMode> parseParallelMode(std::string_view text);
std::optional<PrngLayout> parsePrngLayout(std::string_view text);
std::optional<OutputLayout> parseOutputLayout(std::string_view text);
/// Accepts "zeros" and "normal:STDDEV" with a finite STDDEV > 0.
std::optional<BiasInit> parseBiasInit(std::string_view text);
/// The one wording of a bad bias stddev, for every input that sets it (validate, the command line,
/// the app's field): "bias stddev (STDDEV) must be a finite number above 0", STDDEV as given.
std::string biasStddevProblem(std::string_view stddev);
/// A whole decimal int64 (optional sign, no spaces, no fraction); nullopt when not or out of range.
std::optional<std::int64_t> parseInt64(std::string_view text);
/// An allclose tolerance (rtol, atol): a finite decimal >= 0, spaces around it allowed; nullopt
/// when not, with `why` (where given) "is not a number >= 0", or for 1e400 and 1e-400 (not 0)
/// "is beyond a double's range (...)". The command line and the app's fields both read it so.
std::optional<double> parseTolerance(std::string_view text, std::string* why = nullptr);

/// "1.5 GiB"-style text for a byte count; "over 8.0 EiB" for INT64_MAX, where the saturating
/// counts above stop.
std::string formatBytes(std::int64_t bytes);
/// The same with the exact count: "1.5 GiB (1610612736 bytes)"; "over 8.0 EiB" for INT64_MAX.
std::string formatBytesExactly(std::int64_t bytes);

}  // namespace tp
