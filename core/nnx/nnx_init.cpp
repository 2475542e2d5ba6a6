#include "nnx/nnx_init.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <functional>

#if defined(__linux__)
#include <sys/mman.h>
#endif

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

RangeDraw kernelDraw(const LayerConfig& config) {
    const Key key = sceneKeys(config).kernel;
    const float stddev = lecunNormalStddev(config.inDim);
    const auto n = std::uint64_t(config.inDim * config.features);
    const PrngLayout layout = config.prng;
    return [=](std::uint64_t start, std::uint64_t count, float* out) {
        truncatedNormal(key, layout, n, start, count, out, stddev);
    };
}

RangeDraw biasDraw(const LayerConfig& config) {
    const Key key = sceneKeys(config).bias;
    const auto n = std::uint64_t(config.features);
    const PrngLayout layout = config.prng;
    const BiasInit bias = config.bias;
    return [=](std::uint64_t start, std::uint64_t count, float* out) {
        if (bias.kind == BiasInit::Kind::Zeros)
            std::fill(out, out + count, 0.0f);
        else
            normal(key, layout, n, start, count, out, bias.stddev);
    };
}

// A standard normal array of `elements` values from `key`: x, and the backward pass's dy.
RangeDraw standardNormalDraw(Key key, std::uint64_t elements, PrngLayout layout) {
    return [=](std::uint64_t start, std::uint64_t count, float* out) {
        normal(key, layout, elements, start, count, out);
    };
}

RangeDraw inputDraw(const LayerConfig& config) {
    return standardNormalDraw(sceneKeys(config).x, std::uint64_t(config.batch * config.inDim),
                              config.prng);
}

}  // namespace

Matrix uninitializedMatrix(Index rows, Index cols) {
    Matrix m(rows, cols);
#if defined(MADV_HUGEPAGE)
    // Only whole pages inside the allocation; small matrices are left alone.
    constexpr std::uintptr_t kPage = 4096;
    const auto begin = (reinterpret_cast<std::uintptr_t>(m.data()) + kPage - 1) & ~(kPage - 1);
    const auto end = reinterpret_cast<std::uintptr_t>(m.data() + m.size()) & ~(kPage - 1);
    if (end > begin && end - begin >= (std::uintptr_t(4) << 20))
        madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // a hint; may fail
#endif
    return m;
}

SceneKeys sceneKeys(const LayerConfig& config) {
    const Key key = seedToKey(config.seed, config.x64);
    return {foldIn(key, 0), foldIn(key, 1), foldIn(key, 2), foldIn(key, 3)};
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
    drawBlock(standardNormalDraw(sceneKeys(config).dy,
                                 std::uint64_t(config.batch * config.features), config.prng),
              config.features, rows, cols, dy.data(), nullptr);
    return dy;
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
