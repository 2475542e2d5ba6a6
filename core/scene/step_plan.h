#pragma once

// What each step of the walk through the groups shows, and the words that say it.
//
// Step 0 is the start: nothing computed yet. Step k (1 <= k <= tpSize) has groups 0..k-1 done and
// group k-1 highlighted. Row mode has one more step, tpSize + 1, that adds the bias once.
// When the scene's output layout needs a collective (mesh_costs.h: collectiveFor), the walk goes
// on into it: one step per ring step of RingRun::steps (all-gather P-1; reduce-scatter P-1 plus
// the bias step; all-reduce 2(P-1) plus the bias step between its halves).

#include "layer_config.h"
#include "mistakes.h"
#include "ring_collective.h"
#include "sharding_plan.h"

#include <string>

namespace tp {

/// The state of the walk at one step.
struct StepState {
    int step = 0;
    int groupsDone = 0;      ///< groups whose output (column) or partial sum (row) is in
    int currentGroup = -1;   ///< the group this step computes; -1 at the start and the bias step
    bool biasAdded = false;  ///< row mode: the bias step is reached (column mode: every group adds
                             ///< its own bias slice, so this stays false)
    bool complete = false;   ///< the output is y = x @ kernel + bias in full
    /// The collective's step shown, an index into RingRun::steps; -1 during the compute steps.
    int ringStep = -1;
};

/// Steps of the walk through the groups alone: tpSize + 1 in column mode, tpSize + 2 in row mode.
int computeStepCount(const LayerConfig& config);

/// Steps of the output collective: RingRun::steps.size() of a simulated run, the collective's
/// ring steps plus one bias step in row mode; 0 when the layout needs no collective, and 0 with a
/// mistake made (the collective belongs to the correct split: a mistake's walk ends with the
/// groups and the wrong result they make).
int collectiveStepCount(const LayerConfig& config, Mistake mistake = Mistake::None);

/// Where ring step `ringStep` (< collectiveStepCount) stands in its phase.
struct RingStepInfo {
    RingPhase phase = RingPhase::AllGather;
    int indexInPhase = 0;  ///< s: step s of the phase, from 0
    int phaseSteps = 0;    ///< the phase's steps (P-1 for a ring phase, 1 for AddBias)
};

RingStepInfo ringStepInfo(const LayerConfig& config, int ringStep);

/// The chunk device m sends at step s of a ring phase over P devices (ring_collective.h):
/// all-gather (m - s) mod P, reduce-scatter (m - s - 1) mod P.
int ringChunkSent(RingPhase phase, int s, int m, int p);

/// Steps of the walk: computeStepCount + collectiveStepCount.
int stepCount(const LayerConfig& config, Mistake mistake = Mistake::None);

/// The state at `step`, clamped to [0, stepCount(config, mistake) - 1].
StepState stepState(const LayerConfig& config, int step, Mistake mistake = Mistake::None);

/// The step of group `group` in the brief's words, with shapes:
///   column: "y[:, 4:8] = x @ kernel[:, 4:8] + bias[4:8]   (2x8 @ 8x4 + 4)"
///   row:    "sum += x[:, 2:4] @ kernel[2:4, :]   (2x2 @ 2x12)"  ("sum = ..." for group 0)
std::string stepEquation(const ShardingPlan& plan, int group, Index batch);

/// The closing step of row mode, where the bias is added once:
///   "y = sum + bias   (2x12 + 12, bias added once)".
std::string rowBiasEquation(const ShardingPlan& plan, Index batch);

/// The equation line of a valid config at `step`: the whole layer and its split at the start,
/// stepEquation for a group's step, rowBiasEquation for row mode's last step, e.g.
///   start:  "y = x @ kernel + bias   (2x8 @ 8x12 + 12), as 3 groups of 4 output columns"
///   ring:   "all-gather 2/3: device m sends chunk (m - 1) mod 4 to device (m + 1) mod 4"
std::string equationText(const LayerConfig& config, int step);

/// A short caption of the step of a valid config, e.g.
///   "Step 2 of 3: group 1 computes output columns 4:8".
/// A ring step: "Step 6 of 7: all-gather ring step 2 of 3 over 4 devices per data row".
std::string stepCaption(const LayerConfig& config, int step, Mistake mistake = Mistake::None);

/// The wrong equation of group `group`, as stepEquation states the right one, e.g.
///   sum-groups:       "y += x @ kernel[:, 4:8] + bias[4:8]   (2x8 @ 8x4 + 4)"
///   bias-per-partial: "sum += x[:, 2:4] @ kernel[2:4, :] + bias   (2x2 @ 2x12 + 12)"
///   init-per-group:   "y[:, 4:8] = x @ own_kernel + own_bias   (2x8 @ 8x4 + 4)"
///   slice-x:          "y[:, 4:8] = x[:, 2:4] @ kernel[2:4, 4:8] + bias[4:8]   (2x2 @ 2x4 + 4)"
std::string mistakeStepEquation(Mistake mistake, const ShardingPlan& plan, int group, Index batch);

}  // namespace tp
