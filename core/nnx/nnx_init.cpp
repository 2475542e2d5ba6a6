#include "nnx/nnx_init.h"

#include "layer/fresh_matrix.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <functional>

namespace tp {

namespace {

// Values per unit of parallel work and per progress report: large enough that scheduling costs
// nothing, small enough that cancelling is prompt and both cores get work on mid-sized arrays.
constexpr Index kBatch = Index(1) << 16;

// Draws elements [start, start + count) of one array's flat index range into out.
using RangeDraw = std::function<void(std::uint64_t start, std::uint64_t count, float* out)>;

// Fills out (row-major, rows.size() x cols.size()) with array[rows, cols] of an array with
// `arrayCols` columns, drawing each row segment directly by its flat index range. Positions of
// the block are cut into batches that run in parallel; each element depends only on its flat
// index, so the bits do not depend on the number of threads.
void drawBlock(const RangeDraw& draw, Index arrayCols, IndexRange rows, IndexRange cols, float* out,
               Progress* progress) {
    const Index blockCols = cols.size();
    const Index total = rows.size() * blockCols;
    if (total <= 0)
        return;
    const Index tasks = (total + kBatch - 1) / kBatch;
#pragma omp parallel for schedule(dynamic, 1) if (tasks > 1)
    for (Index task = 0; task < tasks; ++task) {
        if (isCancelled(progress))
            continue;
        const Index end = std::min(total, (task + 1) * kBatch);
        for (Index p = task * kBatch; p < end;) {
            const Index r = p / blockCols;
            const Index c = p % blockCols;
            const Index len = std::min(blockCols - c, end - p);
            const auto flat = std::uint64_t((rows.start + r) * arrayCols + cols.start + c);
            draw(flat, std::uint64_t(len), out + p);
            p += len;
        }
        advance(progress, end - task * kBatch);
    }
}

// nnx.Linear's kernel, (fanIn, features), from the stream's count `count`: lecun_normal.
RangeDraw kernelDraw(const LayerConfig& config, std::uint32_t count, Index fanIn, Index features) {
    const Key key = streamKey(config, count);
    const float stddev = lecunNormalStddev(fanIn);
    const auto n = std::uint64_t(fanIn * features);
    const PrngLayout layout = config.prng;
    return [=](std::uint64_t start, std::uint64_t draws, float* out) {
        truncatedNormal(key, layout, n, start, draws, out, stddev);
    };
}

// nnx.Linear's bias, (features,), from the stream's count `count`: the config's bias init.
RangeDraw biasDraw(const LayerConfig& config, std::uint32_t count, Index features) {
    const Key key = streamKey(config, count);
    const auto n = std::uint64_t(features);
    const PrngLayout layout = config.prng;
    const BiasInit bias = config.bias;
    return [=](std::uint64_t start, std::uint64_t draws, float* out) {
        if (bias.kind == BiasInit::Kind::Zeros)
            std::fill(out, out + draws, 0.0f);
        else
            normal(key, layout, n, start, draws, out, bias.stddev);
    };
}

// jax.random.normal(key of count `count`, shape) of `elements` values: x, and the backward's dy.
RangeDraw standardNormalDraw(const LayerConfig& config, std::uint32_t count,
                             std::uint64_t elements) {
    const Key key = streamKey(config, count);
    const PrngLayout layout = config.prng;
    return [=](std::uint64_t start, std::uint64_t draws, float* out) {
        normal(key, layout, elements, start, draws, out);
    };
}

RangeDraw kernelDraw(const LayerConfig& config) {
    return kernelDraw(config, kLinearCounts.kernel, config.inDim, config.features);
}

RangeDraw biasDraw(const LayerConfig& config) {
    return biasDraw(config, kLinearCounts.bias, config.features);
}

RangeDraw inputDraw(const LayerConfig& config) {
    return standardNormalDraw(config, kLinearCounts.x, std::uint64_t(config.batch * config.inDim));
}

}  // namespace

Key streamKey(const LayerConfig& config, std::uint32_t count) {
    return foldIn(seedToKey(config.seed, config.x64), count);
}

SceneKeys sceneKeys(const LayerConfig& config) {
    return {streamKey(config, kLinearCounts.kernel), streamKey(config, kLinearCounts.bias),
            streamKey(config, kLinearCounts.x), streamKey(config, kLinearCounts.dy)};
}

float lecunNormalStddev(std::int64_t fanIn) {
    assert(fanIn > 0);
    const float variance = float(1.0 / double(fanIn));
    const float truncatedStd = float(0.87962566103423978);
    return std::sqrt(variance) / truncatedStd;
}

BitsOrigin kernelBitsOrigin(std::int64_t inDim, std::int64_t features, PrngLayout layout,
                            std::int64_t flatIndex) {
    assert(inDim > 0 && features > 0 && flatIndex >= 0 && flatIndex < inDim * features);
    return bitsOrigin(layout, std::uint64_t(inDim * features), std::uint64_t(flatIndex));
}

std::int64_t parameterCount(const LayerConfig& config) {
    return config.inDim * config.features + config.features + config.batch * config.inDim;
}

LayerParams initLayer(const LayerConfig& config, Progress* progress) {
    LayerParams params;
    params.kernel = uninitializedMatrix(config.inDim, config.features);
    params.bias.resize(config.features);
    params.x.resize(config.batch, config.inDim);
    drawBlock(kernelDraw(config), config.features, {0, config.inDim}, {0, config.features},
              params.kernel.data(), progress);
    drawBlock(biasDraw(config), config.features, {0, 1}, {0, config.features}, params.bias.data(),
              progress);
    drawBlock(inputDraw(config), config.inDim, {0, config.batch}, {0, config.inDim},
              params.x.data(), progress);
    return params;
}

Matrix kernelBlock(const LayerConfig& config, IndexRange rows, IndexRange cols) {
    assert(rows.start >= 0 && rows.stop <= config.inDim && cols.start >= 0 &&
           cols.stop <= config.features);
    Matrix block = uninitializedMatrix(rows.size(), cols.size());
    drawBlock(kernelDraw(config), config.features, rows, cols, block.data(), nullptr);
    return block;
}

RowVector biasSlice(const LayerConfig& config, IndexRange cols) {
    assert(cols.start >= 0 && cols.stop <= config.features);
    RowVector slice(cols.size());
    drawBlock(biasDraw(config), config.features, {0, 1}, cols, slice.data(), nullptr);
    return slice;
}

Matrix inputBlock(const LayerConfig& config, IndexRange rows, IndexRange cols) {
    assert(rows.start >= 0 && rows.stop <= config.batch && cols.start >= 0 &&
           cols.stop <= config.inDim);
    Matrix block(rows.size(), cols.size());
    drawBlock(inputDraw(config), config.inDim, rows, cols, block.data(), nullptr);
    return block;
}

Matrix cotangent(const LayerConfig& config) {
    return cotangentBlock(config, {0, config.batch}, {0, config.features});
}

Matrix cotangentBlock(const LayerConfig& config, IndexRange rows, IndexRange cols) {
    assert(rows.start >= 0 && rows.stop <= config.batch && cols.start >= 0 &&
           cols.stop <= config.features);
    Matrix dy(rows.size(), cols.size());
    drawBlock(
        standardNormalDraw(config, kLinearCounts.dy, std::uint64_t(config.batch * config.features)),
        config.features, rows, cols, dy.data(), nullptr);
    return dy;
}

std::int64_t mlpParameterCount(const LayerConfig& c) {
    return c.inDim * c.hidden + c.hidden + c.hidden * c.features + c.features + c.batch * c.inDim;
}

namespace {

// The block's arrays a device of hidden slice `hidden` holds: kernel1's columns and bias1's,
// kernel2's rows, and all of bias2 and x.
MlpParams drawMlp(const LayerConfig& c, IndexRange hidden, Progress* progress) {
    assert(hidden.start >= 0 && hidden.stop <= c.hidden);
    MlpParams p;
    p.kernel1 = uninitializedMatrix(c.inDim, hidden.size());
    p.bias1.resize(hidden.size());
    p.kernel2 = uninitializedMatrix(hidden.size(), c.features);
    p.bias2.resize(c.features);
    p.x.resize(c.batch, c.inDim);
    drawBlock(kernelDraw(c, kMlpCounts.kernel1, c.inDim, c.hidden), c.hidden, {0, c.inDim}, hidden,
              p.kernel1.data(), progress);
    drawBlock(biasDraw(c, kMlpCounts.bias1, c.hidden), c.hidden, {0, 1}, hidden, p.bias1.data(),
              progress);
    drawBlock(kernelDraw(c, kMlpCounts.kernel2, c.hidden, c.features), c.features, hidden,
              {0, c.features}, p.kernel2.data(), progress);
    drawBlock(biasDraw(c, kMlpCounts.bias2, c.features), c.features, {0, 1}, {0, c.features},
              p.bias2.data(), progress);
    drawBlock(standardNormalDraw(c, kMlpCounts.x, std::uint64_t(c.batch * c.inDim)), c.inDim,
              {0, c.batch}, {0, c.inDim}, p.x.data(), progress);
    return p;
}

}  // namespace

MlpParams initMlp(const LayerConfig& c, Progress* progress) {
    return drawMlp(c, {0, c.hidden}, progress);
}

MlpParams mlpShard(const LayerConfig& c, IndexRange hidden) {
    return drawMlp(c, hidden, nullptr);
}

Matrix mlpCotangentBlock(const LayerConfig& c, IndexRange rows, IndexRange cols) {
    return mlpArrayBlock(c, MlpArray::Dy, rows, cols);
}

const char* mlpArrayName(MlpArray array) {
    switch (array) {
        case MlpArray::Kernel1:
            return "kernel1";
        case MlpArray::Bias1:
            return "bias1";
        case MlpArray::Kernel2:
            return "kernel2";
        case MlpArray::Bias2:
            return "bias2";
        case MlpArray::X:
            return "x";
        case MlpArray::Dy:
            break;
    }
    return "dy";
}

std::pair<Index, Index> mlpArrayShape(const LayerConfig& c, MlpArray array) {
    switch (array) {
        case MlpArray::Kernel1:
            return {c.inDim, c.hidden};
        case MlpArray::Bias1:
            return {1, c.hidden};
        case MlpArray::Kernel2:
            return {c.hidden, c.features};
        case MlpArray::Bias2:
            return {1, c.features};
        case MlpArray::X:
            return {c.batch, c.inDim};
        case MlpArray::Dy:
            break;
    }
    return {c.batch, c.features};
}

Matrix mlpArrayBlock(const LayerConfig& c, MlpArray array, IndexRange rows, IndexRange cols) {
    const auto [arrayRows, arrayCols] = mlpArrayShape(c, array);
    assert(rows.start >= 0 && rows.stop <= arrayRows && cols.start >= 0 && cols.stop <= arrayCols);
    const auto elements = std::uint64_t(arrayRows * arrayCols);
    RangeDraw draw;
    switch (array) {
        case MlpArray::Kernel1:
            draw = kernelDraw(c, kMlpCounts.kernel1, c.inDim, c.hidden);
            break;
        case MlpArray::Bias1:
            draw = biasDraw(c, kMlpCounts.bias1, c.hidden);
            break;
        case MlpArray::Kernel2:
            draw = kernelDraw(c, kMlpCounts.kernel2, c.hidden, c.features);
            break;
        case MlpArray::Bias2:
            draw = biasDraw(c, kMlpCounts.bias2, c.features);
            break;
        case MlpArray::X:
            draw = standardNormalDraw(c, kMlpCounts.x, elements);
            break;
        case MlpArray::Dy:
            draw = standardNormalDraw(c, kMlpCounts.dy, elements);
            break;
    }
    Matrix block(rows.size(), cols.size());
    drawBlock(draw, arrayCols, rows, cols, block.data(), nullptr);
    return block;
}

GroupLayer groupLayer(const LayerConfig& config) {
    LayerConfig shard = config;
    if (config.mode == ParallelMode::Column)
        shard.features = config.features / config.tpSize;
    else
        shard.inDim = config.inDim / config.tpSize;
    // nnx.Linear(shard.inDim, shard.features, rngs=nnx.Rngs(seed)): the same keys, drawn for the
    // shard's shape, with the shard's fan_in.
    return {kernelBlock(shard, {0, shard.inDim}, {0, shard.features}),
            biasSlice(shard, {0, shard.features})};
}

}  // namespace tp
