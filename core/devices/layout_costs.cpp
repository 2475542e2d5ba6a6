#include "devices/layout_costs.h"

#include "devices/backward_costs.h"

#include <algorithm>
#include <cassert>

namespace tp {
namespace {

constexpr std::int64_t kF32 = sizeof(float);

// A device's arrays in float32 bytes, as the table in the header sizes them.
struct Sizes {
    std::int64_t kernelBlock, kernelRest, biasBlock, biasRest;
    std::int64_t xUse, xRest;
    std::int64_t outBuffer, outFinal;  // the product's output (row: the partial sum), the output
    std::int64_t dyUse, dxBuffer, dxRest;
};

Sizes sizesOf(const LayerConfig& c) {
    const bool column = c.mode == ParallelMode::Column;
    const bool fsdp = c.layout == ShardingLayout::Fsdp;
    const bool sequence = c.layout == ShardingLayout::Sequence;
    const std::int64_t p = c.tpSize, d = c.dataSize, nd = c.batch / c.dataSize;
    Sizes s{};
    s.kernelBlock = c.inDim * c.features / p * kF32;
    s.kernelRest = fsdp ? s.kernelBlock / d : s.kernelBlock;
    s.biasBlock = (column ? c.features / p : c.features) * kF32;
    s.biasRest = fsdp ? s.biasBlock / d : s.biasBlock;
    s.xUse = nd * (column ? c.inDim : c.inDim / p) * kF32;
    s.xRest = sequence && column ? s.xUse / p : s.xUse;
    s.outBuffer = nd * (column ? c.features / p : c.features) * kF32;
    s.outFinal = meshCosts(c).perDevice.outputBytes;
    s.dyUse = nd * (column ? c.features / p : c.features) * kF32;
    s.dxBuffer = nd * (column ? c.inDim : c.inDim / p) * kF32;
    s.dxRest = sequence && column ? s.dxBuffer / p : s.dxBuffer;
    return s;
}

LayoutCollective backwardStep(MeshAxis axis, const char* of, CollectiveKind kind,
                              std::int64_t devices, std::int64_t bytes) {
    return {PassPhase::Backward, axis, of, ringCost(kind, devices, bytes)};
}

}  // namespace

std::string_view toString(PassPhase phase) {
    return phase == PassPhase::Forward ? "forward" : "backward";
}

std::vector<LayoutCollective> layoutCollectives(const LayerConfig& c, bool backward) {
    assert(c.validate().empty() && c.block == Block::Linear);
    const bool column = c.mode == ParallelMode::Column;
    const std::int64_t p = c.tpSize, d = c.dataSize, nd = c.batch / c.dataSize;
    const Sizes s = sizesOf(c);
    std::vector<LayoutCollective> program;
    auto add = [&](LayoutCollective step) {
        if (step.cost.kind != CollectiveKind::None)
            program.push_back(std::move(step));
    };
    auto forward = [&](MeshAxis axis, const char* of, CollectiveKind kind, std::int64_t devices,
                       std::int64_t bytes) {
        add({PassPhase::Forward, axis, of, ringCost(kind, devices, bytes)});
    };

    if (c.layout == ShardingLayout::Fsdp) {
        forward(MeshAxis::Data, "kernel", CollectiveKind::AllGather, d, s.kernelBlock);
        forward(MeshAxis::Data, "bias", CollectiveKind::AllGather, d, s.biasBlock);
    }
    if (c.layout == ShardingLayout::Sequence && column)
        forward(MeshAxis::Model, "x", CollectiveKind::AllGather, p, s.xUse);
    add({PassPhase::Forward, MeshAxis::Model, "output", meshCosts(c).collective});
    if (!backward)
        return program;

    // The backward is the tensor layout's (backward_collectives.h), changed where the layout
    // changes it.
    if (c.layout == ShardingLayout::Sequence && column)
        add(backwardStep(MeshAxis::Model, "x", CollectiveKind::AllGather, p, s.xUse));
    for (const BackwardCollective& step : backwardCollectives(c)) {
        LayoutCollective moved{PassPhase::Backward, step.axis, step.of, step.cost};
        if (c.layout == ShardingLayout::Fsdp && step.axis == MeshAxis::Data)
            moved = backwardStep(MeshAxis::Data, step.of.c_str(), CollectiveKind::ReduceScatter, d,
                                 step.of == "dkernel" ? s.kernelBlock : s.biasBlock);
        if (c.layout == ShardingLayout::Sequence && step.of == "dx")
            moved = backwardStep(MeshAxis::Model, "dx", CollectiveKind::ReduceScatter, p,
                                 nd * c.inDim * kF32);
        add(std::move(moved));
    }
    // FSDP gathers the kernel block again once dy is in place, before the products.
    if (c.layout == ShardingLayout::Fsdp) {
        const auto products =
            std::find_if(program.begin(), program.end(), [](const LayoutCollective& step) {
                return step.phase == PassPhase::Backward && step.of != "dy";
            });
        const LayoutCollective gather =
            backwardStep(MeshAxis::Data, "kernel", CollectiveKind::AllGather, d, s.kernelBlock);
        if (gather.cost.kind != CollectiveKind::None)
            program.insert(products, gather);
    }
    return program;
}

LayoutMemory layoutMemory(const LayerConfig& c, bool backward) {
    assert(c.validate().empty() && c.block == Block::Linear);
    const Sizes s = sizesOf(c);
    const bool fsdp = c.layout == ShardingLayout::Fsdp;
    LayoutMemory memory;
    memory.arrays = {
        {"kernel", s.kernelRest, s.kernelBlock},
        {"bias", s.biasRest, s.biasBlock},
        {"x", s.xRest, s.xUse},
        {"output", s.outFinal, std::max(s.outBuffer, s.outFinal)},
    };
    memory.atRest = s.kernelRest + s.biasRest + s.xRest;
    const std::int64_t product = s.kernelBlock + s.biasBlock + s.xUse + s.outBuffer;
    const std::int64_t outputCollective = memory.atRest + std::max(s.outBuffer, s.outFinal);
    memory.peak = std::max(product, outputCollective);
    if (backward) {
        const std::int64_t dyArrives = s.outFinal;  // dy comes in the output's layout
        memory.arrays.push_back({"dy", 0, std::max(dyArrives, s.dyUse)});
        memory.arrays.push_back({"dx", s.dxRest, s.dxBuffer});
        memory.arrays.push_back(
            {"dkernel", fsdp ? s.kernelBlock / c.dataSize : s.kernelBlock, s.kernelBlock});
        memory.arrays.push_back(
            {"dbias", fsdp ? s.biasBlock / c.dataSize : s.biasBlock, s.biasBlock});
        const std::int64_t products = s.kernelBlock + s.biasRest + s.xUse +
                                      std::max(dyArrives, s.dyUse) + s.dxBuffer + s.kernelBlock +
                                      s.biasBlock;
        memory.peak = std::max(memory.peak, products);
    }
    return memory;
}

PartitionSpecs layoutPartitionSpecs(const LayerConfig& c) {
    const bool column = c.mode == ParallelMode::Column;
    PartitionSpecs specs = partitionSpecs(c);
    if (c.layout == ShardingLayout::Fsdp) {
        specs.kernel = column ? "P('data', 'model')" : "P(('model', 'data'), None)";
        specs.bias = column ? "P(('model', 'data'))" : "P('data')";
    } else if (c.layout == ShardingLayout::Sequence) {
        if (column)
            specs.x = "P(('data', 'model'), None)";
        else
            specs.output = "P(('data', 'model'), None)";
    }
    return specs;
}

std::int64_t bytesSent(const std::vector<LayoutCollective>& collectives, PassPhase phase) {
    std::int64_t sent = 0;
    for (const LayoutCollective& step : collectives)
        if (step.phase == phase)
            sent += step.cost.bytesSentPerDevice;
    return sent;
}

TimeEstimate layoutEstimate(const LayerConfig& c, PassPhase phase, const HardwarePreset& hardware) {
    std::vector<CollectiveCost> collectives;
    for (const LayoutCollective& step : layoutCollectives(c, phase == PassPhase::Backward))
        if (step.phase == phase)
            collectives.push_back(step.cost);
    const DeviceHoldings forward = meshCosts(c).perDevice;
    if (phase == PassPhase::Forward)
        return estimatePassTime(forward.flops, forward.inOrderFlops, forward.productBytes,
                                collectives, hardware);
    const BackwardHoldings b = backwardHoldings(c);
    return estimatePassTime(b.flops, 0, forward.xBytes + forward.kernelBytes + b.totalBytes(),
                            collectives, hardware);
}

std::vector<LayoutSummary> compareLayouts(LayerConfig c, bool backward,
                                          const HardwarePreset& hardware) {
    assert(c.block == Block::Linear);
    std::vector<LayoutSummary> summaries;
    for (const ShardingLayout layout :
         {ShardingLayout::Tensor, ShardingLayout::Fsdp, ShardingLayout::Sequence}) {
        c.layout = layout;
        LayoutSummary& s = summaries.emplace_back();
        s.layout = layout;
        if (const auto problems = c.validate(); !problems.empty()) {
            s.refusal = problems.front().message;
            continue;
        }
        const LayoutMemory memory = layoutMemory(c, backward);
        const auto program = layoutCollectives(c, backward);
        s.bytesAtRest = memory.atRest;
        s.bytesPeak = memory.peak;
        s.forwardSent = bytesSent(program, PassPhase::Forward);
        s.backwardSent = bytesSent(program, PassPhase::Backward);
        s.forward = layoutEstimate(c, PassPhase::Forward, hardware);
        if (backward)
            s.backward = layoutEstimate(c, PassPhase::Backward, hardware);
    }
    return summaries;
}

std::vector<LayoutSweepPoint> layoutSweep(LayerConfig c, MeshSize size, bool backward,
                                          const HardwarePreset& hardware) {
    assert(c.block == Block::Linear);
    c.layout = ShardingLayout::Tensor;
    std::vector<LayoutSweepPoint> points;
    for (const std::int64_t value : divisors(size == MeshSize::Tp ? c.splitDim() : c.batch)) {
        (size == MeshSize::Tp ? c.tpSize : c.dataSize) = value;
        if (c.validate().empty())
            points.push_back({value, compareLayouts(c, backward, hardware)});
    }
    return points;
}

}  // namespace tp
