#pragma once

// The backward pass in tpviz-cli's reports (--backward).

#include "scene/report.h"
#include "scene/scene_backward.h"

#include <iosfwd>
#include <sstream>
#include <string>
#include <vector>

namespace tp {

/// The "backward" member's value, streamed to `out` (the arrays are never held as text):
///   {"dy", "dx", "dkernel", "dbias",
///    "groups": [{"index", "columns" or "rows": [start, stop], "dkernel": its block, "dbias": its
///                block (row mode: all of dbias, which every device holds), and "dx_partial"
///                (column mode, (batch, in_dim)) or "dx_block" (row mode, dx[:, rows])}],
///    "collectives": [{"name", "axis": "model"|"data", "of": "dy"|"dx"|"dkernel"|"dbias",
///                     "bytes_sent_per_device", "ring_steps"}] in the order they run,
///    "reference": {"dx", "dkernel", "dbias"},
///    "verification": {"dx", "dkernel", "dbias"}, each as the forward's verification object}
/// With summary: no arrays (groups keep index and range, collectives and verification stay).
void writeBackwardJson(std::ostream& out, const Scene& scene, const SceneBackward& backward,
                       bool summary);

/// Each gradient's verdict in one line, dx, dkernel, dbias: "dx (K = features = 6): passed, the
/// largest error 0.0491 of its rounding bound", or "... every element bit-identical to the
/// reference"; an inconclusive one says why.
std::vector<std::string> backwardVerdictLines(const BackwardVerification& verification);

/// The backward section of the text report: dy and the formulas, each group's gradients (without
/// arrays with summary), the collectives and each gradient's verdict with its K.
void writeBackwardText(std::ostringstream& out, const Scene& scene, const SceneBackward& backward,
                       bool summary);

}  // namespace tp
