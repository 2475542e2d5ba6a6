#include "devices/backward_costs.h"

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

}  // namespace tp
