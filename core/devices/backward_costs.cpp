#include "devices/backward_costs.h"

#include "devices/backward_collectives.h"

#include <cassert>

namespace tp {

BackwardHoldings backwardHoldings(const LayerConfig& c) {
    assert(c.validate().empty());
    constexpr std::int64_t f32 = sizeof(float);
    const std::int64_t p = c.tpSize;
    const std::int64_t nd = c.batch / c.dataSize;
    const bool column = c.mode == ParallelMode::Column;
    const bool dyWhole = !column || c.outputLayout() == OutputLayout::Replicated;
    const std::int64_t biasColumns = column ? c.features / p : c.features;

    BackwardHoldings h;
    h.dyBytes = nd * (dyWhole ? c.features : c.features / p) * f32;
    h.dxBytes = nd * (column ? c.inDim : c.inDim / p) * f32;
    h.dkernelBytes = c.inDim * c.features / p * f32;
    h.dbiasBytes = biasColumns * f32;
    h.flops = 2 * (2 * nd * c.inDim * c.features / p) + nd * biasColumns;
    return h;
}

TimeEstimate estimateBackwardTime(const LayerConfig& config, const HardwarePreset& hardware) {
    const BackwardHoldings b = backwardHoldings(config);
    const DeviceHoldings forward = meshCosts(config).perDevice;
    std::vector<CollectiveCost> collectives;
    for (const BackwardCollective& collective : backwardCollectives(config))
        collectives.push_back(collective.cost);
    return estimatePassTime(b.flops, 0, forward.xBytes + forward.kernelBytes + b.totalBytes(),
                            collectives, hardware);
}

}  // namespace tp
