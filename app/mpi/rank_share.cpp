#include "rank_share.h"

#include "devices/mesh_costs.h"
#include "layer/forward.h"
#include "layer/group_sums.h"
#include "layer/products.h"
#include "nnx/nnx_init.h"

#include <algorithm>
#include <cassert>

namespace tp::mpi {

RankPlace rankPlace(const LayerConfig& config, int rank) {
    return {rank, rank / config.tpSize, rank % config.tpSize};
}

ShareRanges shareRanges(const LayerConfig& config, const RankPlace& place) {
    const std::int64_t chunk = config.chunk();
    const IndexRange shard{place.m * chunk, (place.m + 1) * chunk};
    const IndexRange allIn{0, config.inDim};
    const IndexRange allFeatures{0, config.features};
    ShareRanges r;
    r.batchRows = batchRows(config, place.d);
    if (config.mode == ParallelMode::Column) {
        r.kernelRows = allIn;
        r.kernelCols = shard;
        r.biasCols = shard;
        r.xCols = allIn;
    } else {
        r.kernelRows = shard;
        r.kernelCols = allFeatures;
        r.biasCols = allFeatures;
        r.xCols = shard;
    }
    return r;
}

RankShare drawShare(const LayerConfig& config, const RankPlace& place) {
    RankShare share;
    share.ranges = shareRanges(config, place);
    const ShareRanges& r = share.ranges;
    share.kernel = kernelBlock(config, r.kernelRows, r.kernelCols);
    share.bias = biasSlice(config, r.biasCols);
    share.x = inputBlock(config, r.batchRows, r.xCols);
    return share;
}

void columnPartial(const RankShare& share, Eigen::Ref<Matrix, 0, Eigen::OuterStride<>> out) {
    assert(out.rows() == share.x.rows() && out.cols() == share.kernel.cols());
    multiply(out, share.x, share.kernel);
    out.rowwise() += share.bias;
}

void rowPartial(const RankShare& share, Eigen::Ref<Matrix> out) {
    groupProduct(share.x, share.kernel, out);
}

void rowPartialPacked(const RankShare& share, std::int64_t tpSize, Eigen::Ref<Matrix> out) {
    const Index rows = share.x.rows();
    const Index width = share.kernel.cols() / tpSize;
    assert(out.rows() == rows * tpSize && out.cols() == width);
    for (Index b = 0; b < tpSize; ++b)
        groupProduct(share.x, share.kernel.middleCols(b * width, width),
                     out.middleRows(b * rows, rows));
}

std::int64_t rankBytesNeeded(const LayerConfig& config) {
    const DeviceHoldings held = meshCosts(config).perDevice;
    const std::int64_t holdings = totalBytes(held);
    const std::int64_t width = config.features / config.tpSize;
    const std::int64_t rows = config.batch / config.dataSize;
    const std::int64_t checkFloats =
        config.inDim * width + rows * config.inDim + width + 2 * rows * width;
    const std::int64_t duringCheck =
        holdings - held.kernelBytes + checkFloats * std::int64_t(sizeof(float));
    return std::max(holdings, duringCheck);
}

}  // namespace tp::mpi
