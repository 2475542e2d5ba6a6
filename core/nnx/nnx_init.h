#pragma once

// The parameters of nnx.Linear(inDim, features, rngs=nnx.Rngs(seed)) and the input x, bit for bit
// as Flax NNX and JAX make them (spec: shared/spec/nnx-init.md, §14 "the scene").

#include "layer/eigen_types.h"
#include "layer/layer_config.h"
#include "layer/layer_params.h"
#include "layer/mistakes.h"
#include "layer/progress.h"
#include "nnx/jax_random.h"

#include <utility>

namespace tp {

/// The stream counts of one nnx.Linear's scene: each rngs.params() call takes the next count.
struct LinearCounts {
    std::uint32_t kernel = 0, bias = 1, x = 2, dy = 3;
};
inline constexpr LinearCounts kLinearCounts{};

/// The stream counts of the MLP block (layer_params.h: MlpParams): linear1's kernel and bias,
/// linear2's, x, then the backward's cotangent dy.
struct MlpCounts {
    std::uint32_t kernel1 = 0, bias1 = 1, kernel2 = 2, bias2 = 3, x = 4, dy = 5;
};
inline constexpr MlpCounts kMlpCounts{};

/// The key of nnx.Rngs(seed)'s rngs.params() call number `count`: fold_in(jax.random.key(seed),
/// count) (spec §3).
Key streamKey(const LayerConfig& config, std::uint32_t count);

/// The keys of the scene's draws from nnx.Rngs(seed): fold_in(key, 0) for the kernel,
/// fold_in(key, 1) for the bias, fold_in(key, 2) for x, key = jax.random.key(seed) (spec §3), and
/// fold_in(key, 3) for the backward pass's cotangent dy, the stream's next call after x.
struct SceneKeys {
    Key kernel;
    Key bias;
    Key x;
    Key dy;
};
SceneKeys sceneKeys(const LayerConfig& config);

/// lecun_normal's float32 standard deviation for a (fanIn, features) kernel (spec §9):
/// f32(f32(sqrt(f32(1.0 / fanIn))) / f32(0.87962566103423978)), as
/// jax.nn.initializers.variance_scaling(1.0, "fan_in", "truncated_normal") computes it.
float lecunNormalStddev(std::int64_t fanIn);

/// The threefry2x32 block that drew kernel[k, j] of a (inDim, features) kernel, flatIndex =
/// k * features + j: bitsOrigin(layout, inDim * features, flatIndex). The block's key is
/// sceneKeys(config).kernel; its word, through truncatedNormalOfBits with
/// lecunNormalStddev(inDim), is the element's value.
BitsOrigin kernelBitsOrigin(std::int64_t inDim, std::int64_t features, PrngLayout layout,
                            std::int64_t flatIndex);

/// Number of float32 values initLayer draws: inDim*features + features + batch*inDim.
std::int64_t parameterCount(const LayerConfig& config);

/// Generates the whole scene. With progress: advances one unit per value drawn (parameterCount in
/// all; the caller sets the total); stops early when cancelled (discard the result then).
LayerParams initLayer(const LayerConfig& config, Progress* progress = nullptr);

/// kernel[rows, cols] generated directly, without the full kernel; bit-identical to slicing it.
Matrix kernelBlock(const LayerConfig& config, IndexRange rows, IndexRange cols);

/// bias[cols] generated directly; bit-identical to slicing the full bias.
RowVector biasSlice(const LayerConfig& config, IndexRange cols);

/// x[rows, cols] generated directly; bit-identical to slicing the full x.
Matrix inputBlock(const LayerConfig& config, IndexRange rows, IndexRange cols);

/// The cotangent of the layer's output for the backward pass, (batch, features), drawn as x is:
///   dy = jax.random.normal(rngs.params(), (batch, features))   # count 3, after x's count 2
Matrix cotangent(const LayerConfig& config);

/// dy[rows, cols] generated directly; bit-identical to slicing cotangent(config).
Matrix cotangentBlock(const LayerConfig& config, IndexRange rows, IndexRange cols);

/// Number of float32 values initMlp draws: both kernels, both biases and x.
std::int64_t mlpParameterCount(const LayerConfig& config);

/// The MLP block's arrays (MlpParams), bit for bit as NNX draws them from one nnx.Rngs(seed):
/// linear1's kernel (lecun_normal, fan_in inDim) and bias, linear2's (fan_in hidden), then x, the
/// counts of kMlpCounts. With progress: one unit per value (mlpParameterCount); stops early when
/// cancelled.
MlpParams initMlp(const LayerConfig& config, Progress* progress = nullptr);

/// What one device of the Megatron split holds, drawn directly: linear1's columns `hidden` of
/// kernel1 and bias1, linear2's rows `hidden` of kernel2, all of bias2 and all of x;
/// bit-identical to the same slices of initMlp's arrays.
MlpParams mlpShard(const LayerConfig& config, IndexRange hidden);

/// The MLP block's cotangent dy[rows, cols] of its (batch, features) output:
///   dy = jax.random.normal(rngs.params(), (batch, features))   # count 5, after x's count 4
Matrix mlpCotangentBlock(const LayerConfig& config, IndexRange rows, IndexRange cols);

/// The arrays the MLP block draws from its nnx.Rngs(seed), in the order of their counts
/// (kMlpCounts).
enum class MlpArray { Kernel1, Bias1, Kernel2, Bias2, X, Dy };

/// The array's name as tpviz-cli --save-npy writes it ("kernel1", "bias1", ..., "dy").
const char* mlpArrayName(MlpArray array);

/// The array's (rows, cols): a bias is one row, (1, size).
std::pair<Index, Index> mlpArrayShape(const LayerConfig& config, MlpArray array);

/// array[rows, cols] drawn directly, without the rest of the array; bit-identical to slicing
/// initMlp's array (mlpCotangentBlock's dy for MlpArray::Dy). A bias is one row: rows {0, 1}.
Matrix mlpArrayBlock(const LayerConfig& config, MlpArray array, IndexRange rows, IndexRange cols);

/// The one nnx.Linear each group builds for itself in the init-per-group mistake (see GroupLayer
/// in mistakes.h): the scene's draws for the shard's own shape and fan_in.
GroupLayer groupLayer(const LayerConfig& config);

}  // namespace tp
