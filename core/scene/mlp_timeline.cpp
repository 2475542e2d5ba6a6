#include "scene/mlp_timeline.h"

#include "block/mlp.h"
#include "block/mlp_costs.h"
#include "layer/range_text.h"
#include "scene/timeline_steps.h"

#include <algorithm>
#include <cassert>

namespace tp {
namespace {

constexpr auto kGap = kEquationGap;

std::string shapes(const std::string& text) {
    return std::string(kGap) + "(" + text + ")";
}

// Megatron's split, or a mistake that keeps its plan (bias2-per-partial).
bool megatron(const MlpPlan& plan) {
    return plan.linear1.mode == ParallelMode::Column && plan.linear2.mode == ParallelMode::Row;
}

// "partial_0 + partial_1 + partial_2", or "partial_0 + partial_1 + ... + partial_7" past four.
std::string sumOf(const std::string& name, std::int64_t count) {
    const auto term = [&](std::int64_t g) { return name + "_" + str(g); };
    if (count > 4)
        return term(0) + " + " + term(1) + " + ... + " + term(count - 1);
    std::string sum = term(0);
    for (std::int64_t g = 1; g < count; ++g)
        sum += " + " + term(g);
    return sum;
}

// The whole block with its shapes, before how it is split.
std::string blockEquation(const LayerConfig& c) {
    return "y = gelu(x @ kernel1 + bias1) @ kernel2 + bias2" +
           shapes(shapeText(c.batch, c.inDim) + " @ " + shapeText(c.inDim, c.hidden) + " + " +
                  str(c.hidden) + ", gelu, then @ " + shapeText(c.hidden, c.features) + " + " +
                  str(c.features));
}

// How the mistake (or Megatron) splits the block, as the loop's start says it.
std::string splitWords(const LayerConfig& c, const MlpPlan& plan, Mistake mistake) {
    const std::string devices = countText(c.tpSize, "device");
    switch (mistake) {
        case Mistake::RowThenColumn:
            return devices + ": linear1 split by " + countText(plan.linear1.chunk, "in_dim row") +
                   " each, linear2 by " + countText(plan.linear2.chunk, "output column") +
                   " each (row-then-column)";
        case Mistake::GatherBetween:
            return devices + " of " + countText(plan.linear1.chunk, "hidden feature") +
                   " each for linear1, a gathered between the layers, linear2 split by " +
                   countText(plan.linear2.chunk, "output column") + " each (gather-between)";
        default:
            break;
    }
    return devices + " of " + countText(plan.linear1.chunk, "hidden feature") +
           " each: a device owns linear1's columns and linear2's rows of the same features";
}

// Device g's part of linear1 and its GeLU, as the loop's step says it.
void linear1Words(TimelineStep& s, const LayerConfig& c, const MlpPlan& plan, int g) {
    const ShardGroup& group = plan.linear1.groups[std::size_t(g)];
    const Index chunk = plan.linear1.chunk;
    if (plan.linear1.mode == ParallelMode::Row) {
        const IndexRange rows = group.kernelRows;
        const std::string hg = "h_" + str(g);
        s.equation = hg + " = " + columnSlice("x", rows) + " @ " + rowSlice("kernel1", rows) +
                     (g == 0 ? " + bias1" : "") + ";  gelu(" + hg + ")" +
                     shapes(shapeText(c.batch, chunk) + " @ " + shapeText(chunk, c.hidden) +
                            (g == 0 ? " + " + str(c.hidden) : ""));
        s.caption = "device " + str(g) + " computes a partial sum of h over in_dim rows " +
                    sliceText(rows) + " and applies the GeLU to it: a GeLU of a part of h";
        return;
    }
    const IndexRange cols = group.kernelCols;
    s.equation = columnSlice("h", cols) + " = x @ " + columnSlice("kernel1", cols) + " + " +
                 vectorSlice("bias1", cols) + ";  " + columnSlice("a", cols) + " = gelu(" +
                 columnSlice("h", cols) + ")" +
                 shapes(shapeText(c.batch, c.inDim) + " @ " + shapeText(c.inDim, chunk) + " + " +
                        str(chunk));
    s.caption = "device " + str(g) + " computes hidden features " + sliceText(cols) +
                ": its slice of h, then the GeLU of that slice, all that linear2's rows " +
                sliceText(cols) + " will need";
}

// Device g's part of linear2, as the loop's step says it.
void linear2Words(TimelineStep& s, const LayerConfig& c, const MlpPlan& plan, Mistake mistake,
                  int g) {
    const ShardGroup& group = plan.linear2.groups[std::size_t(g)];
    const Index chunk = plan.linear2.chunk;
    if (plan.linear2.mode == ParallelMode::Column) {
        const IndexRange cols = group.kernelCols;
        s.equation = columnSlice("y", cols) + " = a @ " + columnSlice("kernel2", cols) + " + " +
                     vectorSlice("bias2", cols) +
                     shapes(shapeText(c.batch, c.hidden) + " @ " + shapeText(c.hidden, chunk) +
                            " + " + str(chunk));
        s.caption = "device " + str(g) + " computes output columns " + sliceText(cols) +
                    " from all of a (" + shapeText(c.batch, c.hidden) + ")";
        return;
    }
    const IndexRange rows = group.kernelRows;
    const bool bias2 = mistake == Mistake::Bias2PerPartial;
    s.equation = "partial_" + str(g) + " = " + columnSlice("a", rows) + " @ " +
                 rowSlice("kernel2", rows) + (bias2 ? " + bias2" : "") +
                 shapes(shapeText(c.batch, chunk) + " @ " + shapeText(chunk, c.features) +
                        (bias2 ? " + " + str(c.features) : ""));
    s.caption = "device " + str(g) + " multiplies its own slice of a by kernel2's rows " +
                sliceText(rows) + ", the same hidden features: a partial sum of all of y" +
                (bias2 ? ", and adds bias2 to it" : "");
}

// The loop's step between the layers of gather-between and row-then-column.
void appendHiddenShared(Timeline& loop, const LayerConfig& c, Mistake mistake) {
    TimelineStep& s = appendStep(loop, StepPhase::HiddenShared);
    s.mlp.hiddenShared = true;
    const std::string whole = shapeText(c.batch, c.hidden);
    if (mistake == Mistake::GatherBetween) {
        s.equation = "a = concatenate(a's " + countText(c.tpSize, "slice") + ")" +
                     shapes(whole + " on every device: the all-gather of a");
        s.caption = "the hidden activations are all-gathered: every device now holds all of a (" +
                    whole + "), which Megatron's split never needs";
        return;
    }
    std::string terms;
    for (std::int64_t g = 0; g < std::min<std::int64_t>(c.tpSize, 4); ++g)
        terms += (g ? " + " : "") + std::string("gelu(h_") + str(g) + ")";
    if (c.tpSize > 4)
        terms = "gelu(h_0) + gelu(h_1) + ... + gelu(h_" + str(c.tpSize - 1) + ")";
    s.equation = "a = " + terms + shapes(whole + ": the GeLUs all-reduced");
    s.caption =
        "the devices' GeLUs are added (an all-reduce), but a sum of GeLUs of the parts is "
        "not the GeLU of h = " +
        sumOf("h", c.tpSize) + ": a is wrong from here on";
}

// Megatron's closing step: the partial sums added, bias2 once (bias2-per-partial: already in).
void appendSumPartials(Timeline& loop, const LayerConfig& c, Mistake mistake) {
    TimelineStep& s = appendStep(loop, StepPhase::SumPartials);
    s.biasIn = true;
    s.complete = true;
    const std::string sum = sumOf("partial", c.tpSize);
    const std::string y = shapeText(c.batch, c.features);
    if (mistake == Mistake::Bias2PerPartial) {
        s.equation =
            "y = " + sum +
            shapes(y + ", bias2 already in each of the " + str(c.tpSize) + " partial sums");
        s.caption = "the partial sums are added; no bias2 here: it is already in each of the " +
                    str(c.tpSize) + ", so y holds it " + countText(c.tpSize, "time");
        return;
    }
    s.equation = "y = " + sum + " + bias2" +
                 shapes(y + " + " + str(c.features) + ", bias2 added once: the all-reduce, g");
    s.caption =
        "the partial sums are added (on devices the all-reduce over \"model\", Megatron's "
        "g) and bias2 added once";
}

// The loop's backward after its forward: dy, linear2's row backward per device, the GeLU's
// derivative, linear1's column backward per device, dx summed.
void appendLoopBackward(Timeline& loop, const LayerConfig& c, const MlpPlan& plan) {
    const Index n = c.batch, chunk = plan.linear1.chunk;
    TimelineStep& dy = appendStep(loop, StepPhase::DyArrives);
    dy.backward = true;
    dy.mlp.dbias2In = true;
    dy.equation = "dy" + shapes(shapeText(n, c.features) + ", the cotangent of y") +
                  ";  dbias2 = dy.sum(0), once";
    dy.caption =
        "dy arrives: every device reads all of it (y was all-reduced), and dbias2 = "
        "dy.sum(0) is taken once, as bias2 was added once";
    for (int g = 0; g < int(c.tpSize); ++g) {
        const IndexRange s = plan.linear2.groups[std::size_t(g)].kernelRows;
        TimelineStep& step = appendStep(loop, StepPhase::Linear2Gradients);
        step.currentGroup = g;
        step.mlp.dkernel2Done = g + 1;
        step.equation = rowSlice("dkernel2", s) + " = " + columnSlice("a", s) + "^T @ dy;  " +
                        columnSlice("da", s) + " = dy @ " + rowSlice("kernel2", s) + "^T" +
                        shapes(shapeText(chunk, n) + " @ " + shapeText(n, c.features) + "; " +
                               shapeText(n, c.features) + " @ " + shapeText(c.features, chunk));
        step.caption = "device " + str(g) + ": linear2's row backward gives its rows " +
                       sliceText(s) + " of dkernel2 and its own slice of da: nothing to add (the " +
                       "all-reduce's conjugate is the identity)";
    }
    TimelineStep& gelu = appendStep(loop, StepPhase::GeluGradient);
    gelu.mlp.dhIn = true;
    gelu.equation = "dh = da * gelu'(h), slice by slice" +
                    shapes(shapeText(n, c.hidden) + ", element by element");
    gelu.caption =
        "every device multiplies its slice of da by the GeLU's derivative at its own "
        "slice of h: no device needs another's";
    for (int g = 0; g < int(c.tpSize); ++g) {
        const IndexRange s = plan.linear1.groups[std::size_t(g)].kernelCols;
        TimelineStep& step = appendStep(loop, StepPhase::Linear1Gradients);
        step.currentGroup = g;
        step.mlp.dkernel1Done = g + 1;
        step.gradientGroupsDone = g + 1;
        step.dkernelIn = step.dbiasIn = g + 1 == int(c.tpSize);
        step.equation = columnSlice("dkernel1", s) + " = x^T @ " + columnSlice("dh", s) + ";  " +
                        vectorSlice("dbias1", s) + " = " + columnSlice("dh", s) + ".sum(0);  dx_" +
                        str(g) + " = " + columnSlice("dh", s) + " @ " + columnSlice("kernel1", s) +
                        "^T" +
                        shapes(shapeText(c.inDim, n) + " @ " + shapeText(n, chunk) + "; " +
                               shapeText(n, chunk) + " @ " + shapeText(chunk, c.inDim));
        step.caption = "device " + str(g) + ": linear1's column backward gives its columns " +
                       sliceText(s) + " of dkernel1, " + vectorSlice("dbias1", s) +
                       " and a partial dx_" + str(g) + " over its " +
                       countText(chunk, "hidden feature") + " only";
    }
    TimelineStep& dx = appendStep(loop, StepPhase::SumDx);
    dx.dxIn = true;
    dx.equation = "dx = " + sumOf("dx", c.tpSize) +
                  shapes(shapeText(n, c.inDim) + ", summed over " + countText(c.tpSize, "device") +
                         ": the all-reduce over \"model\", f");
    dx.caption = c.tpSize == 1
                     ? std::string(
                           "dx = the one device's partial: it covers every "
                           "hidden feature's terms")
                     : "dx = the sum of the " + str(c.tpSize) + " partials: each covers only its " +
                           str(chunk) + " of the " + str(c.hidden) +
                           " hidden features' terms (Megatron's f: the identity "
                           "forward, an all-reduce backward)";
}

// --- The mesh program ---------------------------------------------------------------------------

std::string onEvery(const std::string& shapesText) {
    return shapes(shapesText + " on every device m at once");
}

// Where ring step k of a block's collective stands: row mode's all-reduce with its bias step
// when `withBias`.
RingStepInfo blockRingStep(CollectiveKind kind, int devices, int k, bool withBias) {
    const int ring = devices - 1;
    if (kind == CollectiveKind::AllReduce && withBias) {
        if (k < ring)
            return {RingPhase::ReduceScatter, k, ring};
        if (k == ring)
            return {RingPhase::AddBias, 0, 1};
        return {RingPhase::AllGather, k - ring - 1, ring};
    }
    return ringStepInfo(kind, devices, k);
}

// What a collective of the block is, as its ring steps' captions begin.
std::string blockCollectiveTitle(const StepCollective& collective) {
    const std::string title = describe(collective);
    if (collective.of == "the partial sums")
        return title + " (Megatron's g)";
    if (collective.of == "dx")
        return title + " (Megatron's f)";
    return title;
}

// The ring steps of collective `index` of the block's (MlpCosts::collectives).
void appendBlockRing(Timeline& program, const LayerConfig& c, const MlpCollective& collective,
                     int index, bool bias2Once, bool last) {
    const int devices = int(c.tpSize);
    const bool withBias = bias2Once && collective.of == "the partial sums";
    const int steps = int(collective.cost.ringSteps) + (withBias ? 1 : 0);
    for (int k = 0; k < steps; ++k) {
        const RingStepInfo info = blockRingStep(collective.cost.kind, devices, k, withBias);
        const bool bias = info.phase == RingPhase::AddBias;
        TimelineStep& s = appendStep(program, bias ? StepPhase::AddBias : StepPhase::RingStep);
        s.ringStep = k;
        s.ring = info;
        s.collective = {collective.cost.kind, MeshAxis::Model, collective.of, -1, devices, index};
        s.caption = bias ? "each device adds bias2 once to the chunk of y it reduced"
                         : blockCollectiveTitle(s.collective) + ", " +
                               ringStepText(info, devices, MeshAxis::Model);
        s.equation = (bias ? std::string() : collective.of + " ") +
                     ringEquation(info, devices, "m", "bias2");
        if (bias)
            s.biasIn = true;
        if (k + 1 == steps) {
            if (collective.backward)
                s.dxIn = true;
            else if (last)
                s.biasIn = s.complete = true;
            else
                s.mlp.hiddenShared = true;
        }
    }
}

void appendMeshLinear1(Timeline& program, const LayerConfig& c, const MlpPlan& plan) {
    TimelineStep& s = appendStep(program, StepPhase::Linear1Gelu);
    s.mlp.hiddenDone = int(c.tpSize);
    const Index chunk = plan.linear1.chunk;
    const std::string all = "all " + str(c.tpSize) + " devices";
    if (plan.linear1.mode == ParallelMode::Row) {
        s.equation = "h_m = x[:, rows m] @ kernel1[rows m, :] (+ bias1 on device 0);  gelu(h_m)" +
                     onEvery(shapeText(c.batch, chunk) + " @ " + shapeText(chunk, c.hidden));
        s.caption = all +
                    " compute a partial sum of h over their in_dim rows and its GeLU at the "
                    "same time";
        return;
    }
    s.equation =
        "h[:, slice m] = x @ kernel1[:, slice m] + bias1[slice m];  a[:, slice m] = "
        "gelu(h[:, slice m])" +
        onEvery(shapeText(c.batch, c.inDim) + " @ " + shapeText(c.inDim, chunk) + " + " +
                str(chunk));
    s.caption = all + " compute their slice of h and its GeLU at the same time: nothing moves";
}

void appendMeshLinear2(Timeline& program, const LayerConfig& c, const MlpPlan& plan,
                       Mistake mistake) {
    TimelineStep& s = appendStep(program, StepPhase::Linear2Computes);
    s.groupsDone = s.mlp.linear2Done = int(c.tpSize);
    const Index chunk = plan.linear2.chunk;
    const std::string all = "all " + str(c.tpSize) + " devices";
    if (plan.linear2.mode == ParallelMode::Column) {
        s.equation = "y[:, cols m] = a @ kernel2[:, cols m] + bias2[cols m]" +
                     onEvery(shapeText(c.batch, c.hidden) + " @ " + shapeText(c.hidden, chunk) +
                             " + " + str(chunk));
        s.caption = all + " compute their block of y's columns from all of a at the same time";
        return;
    }
    const bool bias2 = mistake == Mistake::Bias2PerPartial;
    s.equation = std::string("partial_m = a[:, slice m] @ kernel2[slice m, :]") +
                 (bias2 ? " + bias2" : "") +
                 onEvery(shapeText(c.batch, chunk) + " @ " + shapeText(chunk, c.features) +
                         (bias2 ? " + " + str(c.features) : ""));
    s.caption = all + " multiply their slice of a by their rows of kernel2 at the same time: " +
                "each a partial sum of all of y" + (bias2 ? ", bias2 added by each" : "");
}

void appendMeshBackward(Timeline& program, const LayerConfig& c, const MlpPlan& plan) {
    const Index n = c.batch, chunk = plan.linear1.chunk;
    const int p = int(c.tpSize);
    TimelineStep& dy = appendStep(program, StepPhase::DyArrives);
    dy.backward = true;
    dy.mlp.dbias2In = true;
    dy.equation = "dy" + onEvery(shapeText(n, c.features)) + ";  dbias2 = dy.sum(0)";
    dy.caption =
        "dy arrives as y is laid out: every device holds all of it (y was all-reduced), "
        "and each takes dbias2 = dy.sum(0) itself";
    TimelineStep& l2 = appendStep(program, StepPhase::Linear2Gradients);
    l2.mlp.dkernel2Done = p;
    l2.equation =
        "dkernel2[slice m, :] = a[:, slice m]^T @ dy;  da[:, slice m] = dy @ "
        "kernel2[slice m, :]^T" +
        onEvery(shapeText(chunk, n) + " @ " + shapeText(n, c.features) + "; " +
                shapeText(n, c.features) + " @ " + shapeText(c.features, chunk));
    l2.caption =
        "every device computes its rows of dkernel2 and its own slice of da at the same "
        "time: nothing moves";
    TimelineStep& gelu = appendStep(program, StepPhase::GeluGradient);
    gelu.mlp.dhIn = true;
    gelu.equation =
        "dh[:, slice m] = da[:, slice m] * gelu'(h[:, slice m])" + onEvery(shapeText(n, chunk));
    gelu.caption = "every device takes the GeLU's derivative at its own slice of h";
    TimelineStep& l1 = appendStep(program, StepPhase::Linear1Gradients);
    l1.mlp.dkernel1Done = p;
    l1.gradientGroupsDone = p;
    l1.dkernelIn = l1.dbiasIn = true;
    l1.dxIn = p == 1;
    l1.equation =
        "dkernel1[:, slice m] = x^T @ dh[:, slice m];  dx_m = dh[:, slice m] @ "
        "kernel1[:, slice m]^T" +
        onEvery(shapeText(c.inDim, n) + " @ " + shapeText(n, chunk) + "; " + shapeText(n, chunk) +
                " @ " + shapeText(chunk, c.inDim));
    l1.caption =
        "every device computes its columns of dkernel1, its slice of dbias1 and a "
        "partial dx_m over its " +
        countText(chunk, "hidden feature") + " only";
}

}  // namespace

Timeline mlpLoopTimeline(const LayerConfig& c, Mistake mistake, bool backward) {
    assert(c.block == Block::Mlp);
    assert(!backward || mistake == Mistake::None);
    const MlpPlan plan = mlpPlan(c, mistake);
    Timeline loop;
    TimelineStep& start = appendStep(loop, StepPhase::Start);
    start.equation = blockEquation(c);
    start.caption = "start; " + splitWords(c, plan, mistake);
    for (int g = 0; g < int(c.tpSize); ++g) {
        TimelineStep& s = appendStep(loop, StepPhase::Linear1Gelu);
        s.currentGroup = g;
        s.mlp.hiddenDone = g + 1;
        linear1Words(s, c, plan, g);
    }
    if (!megatron(plan))
        appendHiddenShared(loop, c, mistake);
    for (int g = 0; g < int(c.tpSize); ++g) {
        TimelineStep& s = appendStep(loop, StepPhase::Linear2Computes);
        s.currentGroup = g;
        s.groupsDone = g + 1;
        s.mlp.linear2Done = g + 1;
        linear2Words(s, c, plan, mistake, g);
        if (plan.linear2.mode == ParallelMode::Column)
            s.biasIn = s.complete = g + 1 == int(c.tpSize);
    }
    if (megatron(plan))
        appendSumPartials(loop, c, mistake);
    if (backward)
        appendLoopBackward(loop, c, plan);
    numberCaptions(loop);
    return loop;
}

Timeline mlpMeshProgram(const LayerConfig& c, Mistake mistake, bool backward) {
    assert(c.block == Block::Mlp);
    assert(!backward || mistake == Mistake::None);
    const MlpPlan plan = mlpPlan(c, mistake);
    const MlpCosts costs = mlpCosts(c, mistake, backward);
    Timeline program;
    TimelineStep& start = appendStep(program, StepPhase::Start);
    start.equation =
        blockEquation(c) + ", on " + countText(c.tpSize, "device") + " along \"model\"";
    start.caption = "start; " + splitWords(c, plan, mistake);
    appendMeshLinear1(program, c, plan);
    // The collectives in their order: a mistake's between the layers, then the output's.
    std::vector<int> forward, back;
    for (int i = 0; i < int(costs.collectives.size()); ++i)
        (costs.collectives[std::size_t(i)].backward ? back : forward).push_back(i);
    std::size_t next = 0;
    if (!megatron(plan) && !forward.empty() && costs.collectives[std::size_t(forward[0])].of != "y")
        appendBlockRing(program, c, costs.collectives[std::size_t(forward[next++])], forward[0],
                        false, false);
    appendMeshLinear2(program, c, plan, mistake);
    if (next == forward.size()) {  // one device: nothing to move, the output is in
        program.steps.back().biasIn = program.steps.back().complete = true;
    }
    for (; next < forward.size(); ++next)
        appendBlockRing(program, c, costs.collectives[std::size_t(forward[next])], forward[next],
                        mistake == Mistake::None, next + 1 == forward.size());
    if (backward) {
        appendMeshBackward(program, c, plan);
        for (const int i : back)
            appendBlockRing(program, c, costs.collectives[std::size_t(i)], i, false, false);
    }
    numberCaptions(program);
    return program;
}

}  // namespace tp
