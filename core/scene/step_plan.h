#pragma once

// What each step of the walk through the groups shows, and the words that say it.
//
// Step 0 is the start: nothing computed yet. Step k (1 <= k <= tpSize) has groups 0..k-1 done and
// group k-1 highlighted. Row mode has one more step, tpSize + 1, that adds the bias once.

#include "layer_config.h"
#include "mistakes.h"
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
};

/// Steps of the walk: tpSize + 1 in column mode, tpSize + 2 in row mode (the bias step).
int stepCount(const LayerConfig& config);

/// The state at `step`, clamped to [0, stepCount - 1].
StepState stepState(const LayerConfig& config, int step);

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
std::string equationText(const LayerConfig& config, int step);

/// A short caption of the step of a valid config, e.g.
///   "Step 2 of 3: group 1 computes output columns 4:8".
std::string stepCaption(const LayerConfig& config, int step);

/// The wrong equation of group `group`, as stepEquation states the right one, e.g.
///   sum-groups:       "y += x @ kernel[:, 4:8] + bias[4:8]   (2x8 @ 8x4 + 4)"
///   bias-per-partial: "sum += x[:, 2:4] @ kernel[2:4, :] + bias   (2x2 @ 2x12 + 12)"
///   init-per-group:   "y[:, 4:8] = x @ own_kernel + own_bias   (2x8 @ 8x4 + 4)"
///   slice-x:          "y[:, 4:8] = x[:, 2:4] @ kernel[2:4, 4:8] + bias[4:8]   (2x2 @ 2x4 + 4)"
std::string mistakeStepEquation(Mistake mistake, const ShardingPlan& plan, int group, Index batch);

}  // namespace tp
