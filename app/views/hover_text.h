#pragma once

// The text that names a hovered cell, for the status bar and the views' tooltips.

#include <QString>

namespace tp {

/// "kernel[3, 7] = -0.4123461" (the value's shortest round-trip form); then, for group >= 0,
/// "  ·  group 1"; then " · " and `groupSpan` when given (e.g. "columns [4:8)"). Row -1 names an
/// element of a vector: "bias[7] = ...".
QString hoverText(const QString& name, int row, int col, float value, int group,
                  const QString& groupSpan = {});

}  // namespace tp
