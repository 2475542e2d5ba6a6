#include "scene/timeline_steps.h"

#include "devices/mesh_costs.h"
#include "layer/range_text.h"

namespace tp {
namespace {

constexpr auto kGap = kEquationGap;

}  // namespace

// The bias columns group `group`'s step adds, as the mistake computes it: in column mode its
// slice (of its own bias with init-per-group); in row mode none, but bias-per-partial's whole bias.
std::vector<IndexRange> groupBias(const ShardingPlan& plan, Mistake mistake, int group) {
    if (plan.mode == ParallelMode::Column)
        return {plan.groups[std::size_t(group)].kernelCols};
    if (mistake == Mistake::BiasPerPartial)
        return {{0, plan.features}};
    return {};
}

std::string ringCaption(const LayerConfig& config, const RingStepInfo& info) {
    if (info.phase == RingPhase::AddBias)
        return "each device adds the bias once to the chunk it reduced";
    return ringStepText(info, config.tpSize, MeshAxis::Model);
}

// Every device computing its part at once: the mesh program's step 1.
void appendAllCompute(Timeline& timeline, const LayerConfig& c, Mistake mistake, bool last) {
    const ShardingPlan plan = ShardingPlan::make(c);
    TimelineStep& s = appendStep(timeline, StepPhase::AllCompute);
    s.groupsDone = int(c.tpSize);
    for (int g = 0; g < int(c.tpSize); ++g)
        for (const IndexRange& r : groupBias(plan, mistake, g))
            s.biasAdded.push_back(r);
    s.biasIn = isColumn(c);
    s.complete = isColumn(c) && last;  // column mode: the output is in, unless gathered next
    const std::int64_t n = c.dataSize * c.tpSize;
    const auto everyDeviceComputes = [n](const std::string& its, const std::string& their) {
        return n == 1 ? "the one device computes its " + its
                      : "all " + str(n) + " devices compute their " + their + " at the same time";
    };
    const std::string rows = shapeText(c.batch / c.dataSize, isColumn(c) ? c.inDim : plan.chunk);
    const std::string everyDevice = " on every device (d, m) at once)";
    if (isColumn(c)) {
        s.caption = everyDeviceComputes("output block", "output blocks");
        s.equation = "y[rows d, cols m] = x[rows d, :] @ kernel[:, cols m] + bias[cols m]" +
                     std::string(kGap) + "(" + rows + " @ " + shapeText(c.inDim, plan.chunk) +
                     " + " + str(plan.chunk) + everyDevice;
    } else {
        s.caption = everyDeviceComputes("partial sum", "partial sums");
        s.equation = "partial[rows d] = x[rows d, block m] @ kernel[block m, :]" +
                     std::string(kGap) + "(" + rows + " @ " + shapeText(plan.chunk, c.features) +
                     everyDevice;
    }
}

// How dy arrives on the devices: as the output is laid out.
std::string dyArrivalCaption(const LayerConfig& c) {
    const bool sharded = c.outputLayout() == OutputLayout::Sharded;
    const std::string arrives = "dy arrives as y is laid out: ";
    if (isColumn(c))
        return arrives + (sharded ? "each device holds its batch rows of its own columns of it"
                                  : "each device holds its batch rows of all of it and takes its "
                                    "own columns: nothing moves (the all-gather's conjugate)");
    if (sharded && c.tpSize > 1)
        return arrives +
               "each device holds its batch rows of one chunk of the features; the all-gather "
               "brings the rest (the reduce-scatter's conjugate)";
    return arrives + "each device holds its batch rows of all of it, which its gradients need";
}

std::string dyArrivalEquation(const LayerConfig& c) {
    const std::int64_t nd = c.batch / c.dataSize;
    const bool sharded = c.outputLayout() == OutputLayout::Sharded;
    const std::string onEvery = " on every device (d, m))";
    if (isColumn(c))
        return "dy[rows d, cols m]" + std::string(kGap) + "(" +
               shapeText(nd, c.features / c.tpSize) + onEvery;
    if (sharded && c.tpSize > 1)
        return "dy[rows d, chunk m]" + std::string(kGap) + "(" + str(nd) + " x about " +
               str(c.features / c.tpSize) + onEvery;
    return "dy[rows d, :]" + std::string(kGap) + "(" + shapeText(nd, c.features) + onEvery;
}

// Every device computing its gradients at once, after dy is whole where it is needed.
void appendAllGradients(Timeline& program, const LayerConfig& c) {
    const ShardingPlan plan = ShardingPlan::make(c);
    const std::int64_t nd = c.batch / c.dataSize;
    TimelineStep& s = appendStep(program, StepPhase::AllGradients);
    s.gradientGroupsDone = int(c.tpSize);
    s.dxIn = !isColumn(c) || c.tpSize == 1;  // row: each device its own slice; column: summed next
    s.dkernelIn = s.dbiasIn = c.dataSize == 1;  // else summed over "data" next
    const std::string everyDevice = " on every device (d, m) at once)";
    const std::string data =
        c.dataSize > 1 ? " (from its batch rows only: summed over \"data\" next)" : "";
    if (isColumn(c)) {
        s.caption =
            "every device computes its gradients at the same time: dkernel[:, cols m] and "
            "dbias[cols m]" +
            data + ", and a partial dx_m over its " + countText(plan.chunk, "feature") + " only";
        s.equation =
            "dkernel[:, cols m] = x[rows d]^T @ dy[rows d, cols m];  dx_m[rows d] = "
            "dy[rows d, cols m] @ kernel[:, cols m]^T" +
            std::string(kGap) + "(" + shapeText(c.inDim, nd) + " @ " + shapeText(nd, plan.chunk) +
            "; " + shapeText(nd, plan.chunk) + " @ " + shapeText(plan.chunk, c.inDim) + everyDevice;
    } else {
        s.caption = "every device computes its gradients at the same time: dkernel[rows m, :]" +
                    data +
                    ", its own slice dx[rows d, rows m] and dbias from all of dy: nothing "
                    "to add over \"model\"";
        s.equation =
            "dkernel[rows m, :] = x[rows d, rows m]^T @ dy[rows d];  dx[rows d, rows m] = "
            "dy[rows d] @ kernel[rows m, :]^T" +
            std::string(kGap) + "(" + shapeText(plan.chunk, nd) + " @ " +
            shapeText(nd, c.features) + "; " + shapeText(nd, c.features) + " @ " +
            shapeText(c.features, plan.chunk) + everyDevice;
    }
}

// What a backward collective is, as a caption begins: "all-reduce of dx over "model" (Megatron's
// f)".
std::string collectiveTitle(const StepCollective& collective) {
    const std::string title = describe(collective);
    const bool scatter = collective.kind == CollectiveKind::ReduceScatter;
    if (collective.of == "dx")
        return title + (scatter ? " (Megatron's f, each device keeping its batch rows)"
                                : " (Megatron's f)");
    if (collective.of == "dy")
        return title + " (the reduce-scatter's conjugate)";
    if (collective.of == "kernel" || collective.of == "bias")
        return title + " (fsdp: gathered just before use, freed after)";
    if (collective.of == "x")
        return title + " (sequence parallelism: x whole before the product)";
    if (scatter)
        return title + " (fsdp: each device keeps its 1/" + str(collective.devices) + ")";
    return title + " (data parallelism's)";
}

void appendCollectiveRing(Timeline& program, const LayerConfig& c, MeshAxis axis,
                          const std::string& of, const CollectiveCost& cost, int backwardIndex,
                          int layoutIndex) {
    const int devices = int(axis == MeshAxis::Model ? c.tpSize : c.dataSize);
    const std::string device = axis == MeshAxis::Model ? "m" : "d";
    const int steps = int(cost.ringSteps);
    for (int k = 0; k < steps; ++k) {
        const RingStepInfo info = ringStepInfo(cost.kind, devices, k);
        TimelineStep& s = appendStep(program, StepPhase::RingStep);
        s.ringStep = k;
        s.ring = info;
        s.collective = {cost.kind, axis, of, backwardIndex, devices, -1, layoutIndex};
        s.caption = collectiveTitle(s.collective) + ", " + ringStepText(info, devices, axis);
        s.equation = of + " " + ringEquation(info, devices, device);
        if (k + 1 == steps) {
            s.dxIn = s.dxIn || of == "dx";
            s.dkernelIn = s.dkernelIn || of == "dkernel";
            s.dbiasIn = s.dbiasIn || of == "dbias";
        }
    }
}

void appendOutputCollective(Timeline& program, const LayerConfig& c, int layoutIndex) {
    const int collective = collectiveStepCount(c);
    const bool sequence = c.layout == ShardingLayout::Sequence;
    for (int k = 0; k < collective; ++k) {
        const RingStepInfo info = ringStepInfo(c, k);
        TimelineStep& s = appendStep(
            program, info.phase == RingPhase::AddBias ? StepPhase::AddBias : StepPhase::RingStep);
        s.ringStep = k;
        s.ring = info;
        s.equation = ringEquation(info, c.tpSize, "m");
        s.collective = {collectiveFor(c.mode, c.outputLayout(), c.tpSize),
                        MeshAxis::Model,
                        isColumn(c) ? "y" : "the partial sums",
                        -1,
                        int(c.tpSize),
                        -1,
                        layoutIndex};
        s.caption = ringCaption(c, info);
        if (sequence)
            s.caption += info.phase == RingPhase::AddBias
                             ? " (sequence parallelism: chunk m is the device's batch rows, the "
                               "bias goes on each of them)"
                             : " (sequence parallelism: the chunks are batch rows)";
        if (info.phase == RingPhase::AddBias) {  // each device adds the bias to its own chunk
            s.biasAdded = sequence ? std::vector<IndexRange>{{0, c.features}}
                                   : featureChunks(c.features, c.tpSize);
            s.biasIn = true;
        }
        s.complete = k + 1 == collective;
    }
}

}  // namespace tp
