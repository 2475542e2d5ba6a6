#pragma once

// What each step of the walk through the groups shows, and the equation line that says it.
//
// Step 0 is the start: nothing computed yet. Step k (1 <= k <= tpSize) has groups 0..k-1 done and
// group k-1 highlighted. Row mode has one more step, tpSize + 1, that adds the bias once.

#include "layer_config.h"

#include <QString>

namespace tp {

/// The state of the walk at one step.
struct StepState {
    int step = 0;
    int groupsDone = 0;     ///< groups whose output (column) or partial sum (row) is in
    int currentGroup = -1;  ///< the group this step computes; -1 at the start and the bias step
    bool biasAdded = false; ///< row mode: the bias step is reached (column mode: every group adds
                            ///< its own bias slice, so this stays false)
    bool complete = false;  ///< the output is y = x @ kernel + bias in full
};

/// Steps of the walk: tpSize + 1 in column mode, tpSize + 2 in row mode (the bias step).
int stepCount(const LayerConfig& config);

/// The state at `step`, clamped to [0, stepCount - 1].
StepState stepState(const LayerConfig& config, int step);

/// The equation line, in the brief's words with the shapes, e.g.
///   column, group 1 of 3 (chunk 4):  y[:, 4:8] = x @ kernel[:, 4:8] + bias[4:8]   (2x8 @ 8x4 + 4)
///   row, group 0 (chunk 2):          sum += x[:, 0:2] @ kernel[0:2, :]   (2x2 @ 2x12)
///   row, last step:                  y = sum + bias   (2x12 + 12)
QString equationText(const LayerConfig& config, int step);

/// A short caption of the step, e.g. "step 2 of 3: group 1 computes output columns 4:8".
QString stepCaption(const LayerConfig& config, int step);

}  // namespace tp
