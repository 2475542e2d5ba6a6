#pragma once

// The steps each view of a scene walks through, what each step changes and the words that say it.
//
// A scene has two timelines, one per story:
// - the loop (the Layer tab): the brief's simulation, a loop over the groups. Step 0 is the start,
//   step k (1 <= k <= tpSize) computes group k-1; row mode has one more step that adds the bias
//   once to the summed partials. With the backward pass asked for (SceneRun::backward), the loop
//   goes on: dy arrives, each group computes its gradients, then column mode sums the groups' dx
//   partials and row mode takes dbias once.
// - the mesh program (the Devices tab): what the devices run. Step 0 is the start, step 1 has
//   every device compute its part at the same time; then each step of RingRun::steps of the
//   output collective (mesh_costs.h: collectiveFor): all-gather P-1; reduce-scatter P-1 plus the
//   bias; all-reduce 2(P-1) plus the bias between its halves. Row mode without a collective
//   (tp 1, or a mistake) closes with the bias step. The bias is added at exactly one step. With
//   the backward pass, the devices go on: dy arrives in the output's layout, row + sharded
//   all-gathers it, every device computes its gradients at the same time, then the backward's
//   other collectives run ring step by ring step, in backwardCollectives' order (column mode's
//   all-reduce of dx over "model", then with D > 1 dkernel's and dbias's over "data").
// A mistake is made by the loop only: its mesh program has no collective (the collective belongs
// to the correct split; the Devices tab shows the correct split).
// The MLP block has timelines of its own (mlp_timeline.h), with the phases marked below and its
// progress in TimelineStep::mlp; loopTimeline and meshProgram give them for a config of the block.

#include "devices/backward_collectives.h"
#include "devices/ring_collective.h"
#include "layer/layer_config.h"
#include "layer/mistakes.h"
#include "layer/sharding_plan.h"

#include <string>
#include <vector>

namespace tp {

/// What a step does. The backward's phases follow the forward's in both timelines.
enum class StepPhase {
    Start,           ///< nothing computed yet
    GroupComputes,   ///< the loop: one group computes its block or partial sum
    AllCompute,      ///< the mesh program: every device computes its part at the same time
    RingStep,        ///< the mesh program: one ring step of a collective (StepCollective)
    AddBias,         ///< row mode: the bias added once
    DyArrives,       ///< backward: the cotangent dy (batch, features) of the output arrives
    GroupGradients,  ///< backward, the loop: one group computes its gradients
    AllGradients,    ///< backward, the mesh program: every device computes its gradients at once
    SumDx,           ///< backward, column mode: dx = the sum of the groups' partials
    DbiasOnce,       ///< backward, row mode: dbias = dy.sum(0), once
    // The MLP block's (mlp_timeline.h); DyArrives and SumDx serve it too.
    Linear1Gelu,       ///< a device (the loop) or every device (the mesh): linear1's part, its GeLU
    HiddenShared,      ///< the loop: a mistake's collective between the layers, as its sum
    Linear2Computes,   ///< a device or every device: linear2's partial sum, or its block of y
    SumPartials,       ///< the loop: y = the sum of linear2's partial sums, bias2 once
    Linear2Gradients,  ///< backward: a device's (or every device's) dkernel2 rows and da slice
    GeluGradient,      ///< backward: dh = da * gelu'(h), every device on its own slice
    Linear1Gradients,  ///< backward: dkernel1 columns, dbias1 slice and a partial dx per device
};

/// How far the MLP block's pass has come at a step; all zero (false) for one Linear.
struct MlpStepState {
    /// Devices whose part of linear1 and its GeLU is in: their slice of h and of a = gelu(h)
    /// (row-then-column: their partial sum of h and its GeLU).
    int hiddenDone = 0;
    /// A mistake's collective between the layers is done: gather-between's a gathered whole on
    /// every device, row-then-column's GeLUs of the partial sums added into a.
    bool hiddenShared = false;
    /// Devices whose part of linear2 is in: a partial sum (Megatron's row-parallel linear2), or
    /// a block of y's columns (a column-parallel linear2).
    int linear2Done = 0;
    bool dbias2In = false;  ///< backward: dbias2 = dy.sum(0), taken once
    int dkernel2Done = 0;   ///< backward: devices whose dkernel2 rows and da slice are in
    bool dhIn = false;      ///< backward: dh = da * gelu'(h) on every slice
    int dkernel1Done = 0;   ///< backward: devices whose dkernel1 columns, dbias1, dx_g are in
};

/// Where a step of the output collective stands in its phase.
struct RingStepInfo {
    RingPhase phase = RingPhase::AllGather;
    int indexInPhase = 0;  ///< s: step s of the phase, from 0
    int phaseSteps = 0;    ///< the phase's steps (P-1 for a ring phase, 1 for AddBias)
};

/// The collective a step of the mesh program runs: the forward's output collective or one of the
/// backward's (backward_collectives.h).
struct StepCollective {
    CollectiveKind kind = CollectiveKind::None;
    MeshAxis axis = MeshAxis::Model;
    /// The array it moves: "y" (column mode's all-gather), "the partial sums" (row mode's
    /// reduction), or the backward's "dy", "dx", "dkernel", "dbias".
    std::string of;
    /// Its index in backwardCollectives(config) (SceneBackward::collectives and rings); -1 for
    /// the forward's output collective.
    int backwardIndex = -1;
    /// Devices in one of its rings: tp_size over "model", D over "data".
    int devices = 1;
    /// The MLP block's: its index in MlpCosts::collectives (block/mlp_costs.h, forward then
    /// backward), which SceneCosts::blockRings follows; -1 for one Linear's.
    int blockIndex = -1;
    /// The fsdp and sequence layouts': its index in layoutCollectives (devices/layout_costs.h),
    /// which SceneCosts::layoutRings follows; -1 in the tensor layout.
    int layoutIndex = -1;
};

/// "all-reduce of dx over "model"": a step's collective in words.
std::string describe(const StepCollective& collective);

/// One step of a timeline: what it does, the state it leaves, and its words.
struct TimelineStep {
    int step = 0;  ///< its index in its timeline
    StepPhase phase = StepPhase::Start;
    int groupsDone = 0;     ///< groups (devices of a data row) whose block or partial sum is in
    int currentGroup = -1;  ///< GroupComputes: the group this step computes; else -1
    /// The bias columns added at this step, one range per addition (a group's slice, a device's
    /// chunk, or the whole bias); init-per-group adds the groups' own bias. Empty: none added.
    std::vector<IndexRange> biasAdded;
    bool biasIn = false;    ///< every bias column has been added, at this step or before
    bool complete = false;  ///< the output is y = x @ kernel + bias in full (as the mistake makes
                            ///< it), in its layout
    /// A step of a collective: its index into that collective's RingRun::steps (the bias step
    /// between the output all-reduce's halves or after its reduce-scatter is one of them); -1
    /// otherwise.
    int ringStep = -1;
    RingStepInfo ring;          ///< where ringStep stands in its phase (ringStep >= 0 only)
    StepCollective collective;  ///< the collective ringStep belongs to (ringStep >= 0 only)
    /// A step of the backward pass: dy has arrived (the forward is complete before it).
    bool backward = false;
    /// Backward: groups whose gradients are in, dkernel's block (and column mode's dbias block
    /// and dx partial, row mode's dx slice) each; in the mesh program every device's at once.
    int gradientGroupsDone = 0;
    /// dx is whole: column mode once summed (on the mesh, all-reduced), row mode at the last slice
    bool dxIn = false;
    /// dbias is whole: column mode at the last group, row mode at its step; on the mesh with
    /// D > 1, once all-reduced over "data"
    bool dbiasIn = false;
    /// dkernel is whole: at the last group; on the mesh with D > 1, once all-reduced over "data"
    bool dkernelIn = false;
    /// The MLP block's progress (mlp_timeline.h); untouched by one Linear's timelines.
    MlpStepState mlp;
    std::string caption;   ///< e.g. "Step 2 of 3: group 1 computes output columns 4:8"
    std::string equation;  ///< e.g. "y[:, 4:8] = x @ kernel[:, 4:8] + bias[4:8]   (2x8 @ 8x4 + 4)"
};

/// The steps of one view of a scene.
struct Timeline {
    std::vector<TimelineStep> steps;  ///< never empty

    int size() const { return int(steps.size()); }
    int lastStep() const { return size() - 1; }
    /// Step `step`, clamped to [0, lastStep()]: a position kept from another scene reads as the
    /// nearest step of this one.
    const TimelineStep& at(int step) const;
};

/// The Layer tab's timeline of a valid config run with `mistake`: tpSize + 1 steps in column mode,
/// tpSize + 2 in row mode. The words state the mistake's computation where it makes one, e.g.
///   bias-per-partial's closing step: "y = sum   (2x12, the bias already in each of the 3 partial
///   sums)", caption "Step 4 of 4: no bias added here: it is already in each of the 3 partial
///   sums".
/// With `backward` (SceneRun::backward: no mistake), tpSize + 2 steps more: dy arrives, one
/// GroupGradients step per group (backwardStepEquation), then column mode's SumDx or row mode's
/// DbiasOnce, e.g. "Step 8 of 8: dx = the sum of the 3 partials: each group's partial covers only
/// its 4 of the 12 features' terms, so here the groups' contributions are added".
/// A config of the MLP block has mlpLoopTimeline's steps.
Timeline loopTimeline(const LayerConfig& config, Mistake mistake = Mistake::None,
                      bool backward = false);

/// The Devices tab's timeline of a valid config: start, every device computing at once, then
/// collectiveStepCount(config, mistake) steps of the collective (row mode without one: the bias
/// step), e.g. column, tp 4, replicated output:
///   "Step 1 of 4: all 4 devices of each data row compute their output blocks at the same time"
///   "Step 2 of 4: all-gather ring step 1 of 3 over 4 devices per data row"
/// With `backward` (SceneRun::backward: no mistake), the backward's steps follow: dy arrives, the
/// ring steps of dy's all-gather (row + sharded), every device's gradients at once
/// (AllGradients), then the ring steps of each other backward collective in its order, e.g.
///   "Step 5 of 11: all-reduce of dx over "model" (Megatron's f), reduce-scatter ring step 1 of
///    3 over 4 devices per data row"
/// A config of the MLP block has mlpMeshProgram's steps, one in the fsdp or sequence layout (and
/// no mistake) layoutMeshProgram's (layout_timeline.h).
Timeline meshProgram(const LayerConfig& config, Mistake mistake = Mistake::None,
                     bool backward = false);

struct Scene;

/// The two timelines of a computed scene as it was run (scene.h): its mistake, and its backward
/// pass when it has one.
Timeline loopTimeline(const Scene& scene);
Timeline meshProgram(const Scene& scene);

/// Steps of the output collective: RingRun::steps.size() of a simulated run, the collective's
/// ring steps plus one bias step in row mode; 0 when the layout needs no collective, and 0 with a
/// mistake made.
int collectiveStepCount(const LayerConfig& config, Mistake mistake = Mistake::None);

/// Where ring step `ringStep` (< collectiveStepCount) stands in its phase.
RingStepInfo ringStepInfo(const LayerConfig& config, int ringStep);

/// Where ring step `ringStep` of a backward or layout collective stands in its phase: an
/// all-gather's or a reduce-scatter's P-1 steps, or an all-reduce's reduce-scatter then
/// all-gather, P-1 each, over `devices` devices (no bias step).
RingStepInfo ringStepInfo(CollectiveKind kind, int devices, int ringStep);

/// The chunk device m sends at step s of a ring phase over P devices (ring_collective.h):
/// all-gather (m - s) mod P, reduce-scatter (m - s - 1) mod P.
int ringChunkSent(RingPhase phase, int s, int m, int p);

/// The step of group `group` in the brief's words, with shapes:
///   column: "y[:, 4:8] = x @ kernel[:, 4:8] + bias[4:8]   (2x8 @ 8x4 + 4)"
///   row:    "sum += x[:, 2:4] @ kernel[2:4, :]   (2x2 @ 2x12)"  ("sum = ..." for group 0)
std::string stepEquation(const ShardingPlan& plan, int group, Index batch);

/// The backward step of group `group` (backward.h: backwardParallel), with shapes:
///   column: "dkernel[:, 4:8] = x^T @ dy[:, 4:8];  dbias[4:8] = dy[:, 4:8].sum(0);
///            dx_1 = dy[:, 4:8] @ kernel[:, 4:8]^T   (8x2 @ 2x4; 2x4 @ 4x8)"
///   row:    "dkernel[2:4, :] = x[:, 2:4]^T @ dy;  dx[:, 2:4] = dy @ kernel[2:4, :]^T
///            (2x2 @ 2x12; 2x12 @ 12x2)"
std::string backwardStepEquation(const ShardingPlan& plan, int group, Index batch);

/// The closing step of row mode, where the bias is added once:
///   "y = sum + bias   (2x12 + 12, bias added once)".
std::string rowBiasEquation(const ShardingPlan& plan, Index batch);

/// The wrong equation of group `group`, as stepEquation states the right one, e.g.
///   sum-groups:       "y += x @ kernel[:, 4:8] + bias[4:8]   (2x8 @ 8x4 + 4)"
///   bias-per-partial: "sum += x[:, 2:4] @ kernel[2:4, :] + bias   (2x2 @ 2x12 + 12)"
///   init-per-group:   "y[:, 4:8] = x @ own_kernel + own_bias   (2x8 @ 8x4 + 4)"
///   slice-x:          "y[:, 4:8] = x[:, 2:4] @ kernel[2:4, 4:8] + bias[4:8]   (2x2 @ 2x4 + 4)"
std::string mistakeStepEquation(Mistake mistake, const ShardingPlan& plan, int group, Index batch);

}  // namespace tp
