#include "block/mlp_costs.h"

#include <cassert>

namespace tp {

std::int64_t MlpHoldings::total() const {
    return kernel1Bytes + bias1Bytes + kernel2Bytes + bias2Bytes + xBytes + hiddenBytes +
           partialBytes + outputBytes;
}

std::int64_t MlpBackwardHoldings::total() const {
    return dyBytes + daBytes + dhBytes + dkernel1Bytes + dbias1Bytes + dkernel2Bytes + dbias2Bytes +
           dxBytes;
}

MlpCosts mlpCosts(const LayerConfig& c, Mistake mistake, bool backward) {
    assert(c.block == Block::Mlp && c.validate().empty());
    constexpr std::int64_t f32 = sizeof(float);
    const std::int64_t n = c.batch, in = c.inDim, hidden = c.hidden, f = c.features;
    const std::int64_t p = c.tpSize, slice = hidden / p;
    MlpCosts costs;
    costs.devices = p;
    costs.unshardedBytes =
        (in * hidden + hidden + hidden * f + f + n * in + 2 * n * hidden + n * f) * f32;
    MlpHoldings& h = costs.perDevice;
    const auto add = [&](bool back, const char* of, CollectiveKind kind, std::int64_t bytes) {
        const CollectiveCost cost = ringCost(kind, p, bytes);
        if (cost.kind != CollectiveKind::None)
            costs.collectives.push_back({back, MeshAxis::Model, of, cost});
    };
    h.bias2Bytes = f * f32;
    h.outputBytes = n * f * f32;
    switch (mistake) {
        case Mistake::RowThenColumn:
            h.kernel1Bytes = in / p * hidden * f32;
            h.bias1Bytes = hidden * f32;
            h.xBytes = n * (in / p) * f32;
            h.hiddenBytes = 2 * n * hidden * f32;
            h.kernel2Bytes = hidden * (f / p) * f32;
            h.flops = 2 * n * (in / p) * hidden + 2 * n * hidden * (f / p);
            h.inOrderFlops = inOrderFlops(n, h.flops);
            add(false, "the GeLUs of the partial sums", CollectiveKind::AllReduce,
                n * hidden * f32);
            add(false, "y", CollectiveKind::AllGather, n * f * f32);
            return costs;
        case Mistake::GatherBetween:
            h.kernel1Bytes = in * slice * f32;
            h.bias1Bytes = slice * f32;
            h.xBytes = n * in * f32;
            h.hiddenBytes = (n * slice + n * hidden) * f32;  // its slice of h, all of a
            h.kernel2Bytes = hidden * (f / p) * f32;
            h.flops = 2 * n * in * slice + 2 * n * hidden * (f / p);
            h.inOrderFlops = inOrderFlops(n, h.flops);
            add(false, "a", CollectiveKind::AllGather, n * hidden * f32);
            add(false, "y", CollectiveKind::AllGather, n * f * f32);
            return costs;
        default:
            break;
    }
    h.kernel1Bytes = in * slice * f32;
    h.bias1Bytes = slice * f32;
    h.xBytes = n * in * f32;
    h.hiddenBytes = 2 * n * slice * f32;
    h.kernel2Bytes = slice * f * f32;
    h.partialBytes = n * f * f32;
    h.flops = 2 * n * in * slice + 2 * n * slice * f;
    h.inOrderFlops = inOrderFlops(n, h.flops);
    add(false, "the partial sums", CollectiveKind::AllReduce, n * f * f32);

    MlpBackwardHoldings& b = costs.backward;
    b.dyBytes = n * f * f32;
    b.daBytes = b.dhBytes = n * slice * f32;
    b.dkernel1Bytes = in * slice * f32;
    b.dbias1Bytes = slice * f32;
    b.dkernel2Bytes = slice * f * f32;
    b.dbias2Bytes = f * f32;
    b.dxBytes = n * in * f32;
    b.flops = 4 * n * slice * f + 4 * n * in * slice;
    if (backward)
        add(true, "dx", CollectiveKind::AllReduce, n * in * f32);
    return costs;
}

TimeEstimate mlpEstimate(const MlpCosts& costs, bool backward, const HardwarePreset& hardware) {
    std::vector<CollectiveCost> collectives;
    for (const MlpCollective& collective : costs.collectives)
        if (collective.backward == backward)
            collectives.push_back(collective.cost);
    const MlpHoldings& forward = costs.perDevice;
    if (!backward)
        return estimatePassTime(forward.flops, forward.inOrderFlops, forward.total(), collectives,
                                hardware);
    // The backward reads the kernels, x and the hidden arrays the forward left, and writes its
    // gradients.
    const std::int64_t read =
        forward.kernel1Bytes + forward.kernel2Bytes + forward.xBytes + forward.hiddenBytes;
    return estimatePassTime(costs.backward.flops, 0, read + costs.backward.total(), collectives,
                            hardware);
}

}  // namespace tp
