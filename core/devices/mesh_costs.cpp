#include "devices/mesh_costs.h"

#include "layer/product_kernel.h"

#include <cassert>

namespace tp {

std::string_view toString(CollectiveKind kind) {
    switch (kind) {
        case CollectiveKind::None:
            return "none";
        case CollectiveKind::AllGather:
            return "all-gather";
        case CollectiveKind::ReduceScatter:
            return "reduce-scatter";
        case CollectiveKind::AllReduce:
            return "all-reduce";
    }
    return "none";
}

CollectiveKind collectiveFor(ParallelMode mode, OutputLayout layout, std::int64_t tpSize) {
    if (tpSize == 1)
        return CollectiveKind::None;
    if (mode == ParallelMode::Column)
        return layout == OutputLayout::Sharded ? CollectiveKind::None : CollectiveKind::AllGather;
    return layout == OutputLayout::Sharded ? CollectiveKind::ReduceScatter
                                           : CollectiveKind::AllReduce;
}

CollectiveCost ringCost(CollectiveKind kind, std::int64_t devices, std::int64_t bytes) {
    CollectiveCost cost;
    if (devices <= 1)
        return cost;
    cost.kind = kind;
    switch (kind) {
        case CollectiveKind::None:
            break;
        case CollectiveKind::AllGather:
        case CollectiveKind::ReduceScatter:
            cost.bytesSentPerDevice = (devices - 1) * bytes / devices;
            cost.ringSteps = devices - 1;
            break;
        case CollectiveKind::AllReduce:
            cost.bytesSentPerDevice = 2 * (devices - 1) * bytes / devices;
            cost.ringSteps = 2 * (devices - 1);
            break;
    }
    return cost;
}

MeshCosts meshCosts(const LayerConfig& c) {
    assert(c.validate().empty());
    constexpr std::int64_t f32 = sizeof(float);
    const std::int64_t p = c.tpSize;
    const std::int64_t nd = c.batch / c.dataSize;
    const OutputLayout layout = c.outputLayout();

    MeshCosts costs;
    costs.data = c.dataSize;
    costs.model = p;
    costs.devices = c.dataSize * p;
    costs.rowsPerDevice = nd;
    costs.layout = layout;
    costs.unshardedBytes =
        (c.inDim * c.features + c.features + c.batch * c.inDim + c.batch * c.features) * f32;

    DeviceHoldings& h = costs.perDevice;
    const std::int64_t sharded = nd * c.features / p * f32;  // Nd*F/P*4
    const std::int64_t whole = nd * c.features * f32;        // Nd*F*4 = V
    if (c.mode == ParallelMode::Column) {
        h.kernelBytes = c.inDim * (c.features / p) * f32;
        h.biasBytes = c.features / p * f32;
        h.xBytes = nd * c.inDim * f32;
        h.partialBytes = 0;
        h.outputBytes = layout == OutputLayout::Sharded ? sharded : whole;
        h.flops = 2 * nd * c.inDim * (c.features / p);
        h.productBytes = h.kernelBytes + h.biasBytes + h.xBytes + sharded;
    } else {
        h.kernelBytes = c.inDim / p * c.features * f32;
        h.biasBytes = c.features * f32;
        h.xBytes = nd * (c.inDim / p) * f32;
        h.partialBytes = whole;
        h.outputBytes = layout == OutputLayout::Sharded ? sharded : whole;
        h.flops = 2 * nd * (c.inDim / p) * c.features;
        h.productBytes = h.kernelBytes + h.xBytes + h.partialBytes;
    }

    h.inOrderFlops = inOrderFlops(nd, h.flops);

    // Exact when features % P == 0; otherwise the ring's chunks differ by one column and this is
    // the mean over devices.
    costs.collective = ringCost(collectiveFor(c.mode, layout, p), p, whole);
    return costs;
}

std::int64_t inOrderFlops(std::int64_t rows, std::int64_t flops) {
    return products::summedInOrder(rows) ? flops : 0;
}

std::int64_t totalBytes(const DeviceHoldings& h) {
    return h.kernelBytes + h.biasBytes + h.xBytes + h.partialBytes + h.outputBytes;
}

PartitionSpecs partitionSpecs(const LayerConfig& config) {
    const std::string output =
        config.outputLayout() == OutputLayout::Sharded ? "P('data', 'model')" : "P('data', None)";
    if (config.mode == ParallelMode::Column)
        return {"P(None, 'model')", "P('model')", "P('data', None)", "", output};
    return {"P('model', None)", "P(None)", "P('data', 'model')", "P('data', None)", output};
}

IndexRange batchRows(const LayerConfig& config, std::int64_t d) {
    const std::int64_t nd = config.batch / config.dataSize;
    return {d * nd, (d + 1) * nd};
}

}  // namespace tp
