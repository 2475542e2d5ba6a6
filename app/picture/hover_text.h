#pragma once

// The status-bar text for a hovered cell.

#include <QString>

namespace tp {

/// e.g. "kernel[3, 7] = -0.4123461 · group 1" (no group part for group -1); row -1 gives a
/// vector's "bias[7] = ...".
QString hoverText(const QString& name, int row, int col, float value, int group);

}  // namespace tp
