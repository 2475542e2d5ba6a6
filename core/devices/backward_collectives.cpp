#include "devices/backward_collectives.h"

#include "layer/range_text.h"

#include <cassert>

namespace tp {

std::string_view toString(MeshAxis axis) {
    return axis == MeshAxis::Model ? "model" : "data";
}

std::vector<BackwardCollective> backwardCollectives(const LayerConfig& c) {
    assert(c.validate().empty());
    constexpr std::int64_t f32 = sizeof(float);
    const std::int64_t p = c.tpSize;
    const std::int64_t d = c.dataSize;
    const std::int64_t nd = c.batch / d;
    const bool column = c.mode == ParallelMode::Column;

    std::vector<BackwardCollective> collectives;
    auto add = [&](MeshAxis axis, const char* of, CollectiveKind kind, std::int64_t devices,
                   std::int64_t bytes) {
        if (devices > 1)
            collectives.push_back({axis, of, ringCost(kind, devices, bytes)});
    };
    if (!column && c.outputLayout() == OutputLayout::Sharded)
        add(MeshAxis::Model, "dy", CollectiveKind::AllGather, p, nd * c.features * f32);
    if (column)
        add(MeshAxis::Model, "dx", CollectiveKind::AllReduce, p, nd * c.inDim * f32);
    add(MeshAxis::Data, "dkernel", CollectiveKind::AllReduce, d, c.inDim * c.features / p * f32);
    add(MeshAxis::Data, "dbias", CollectiveKind::AllReduce, d,
        (column ? c.features / p : c.features) * f32);
    return collectives;
}

std::string describe(const BackwardCollective& c) {
    return std::string(toString(c.cost.kind)) + " of " + c.of + " over \"" +
           std::string(toString(c.axis)) + "\": " + std::to_string(c.cost.bytesSentPerDevice) +
           " bytes sent per device in " + countText(c.cost.ringSteps, "ring step");
}

}  // namespace tp
