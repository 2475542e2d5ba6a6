#pragma once

// The colours that tell tensor-parallel groups apart.

#include <QColor>

namespace tp {

/// How many distinct group colours there are before they repeat (with a hatch).
inline constexpr int kGroupPaletteSize = 16;

/// The colour of group `group` (>= 0): a colour-blind-aware qualitative palette, Okabe-Ito first
/// (blue, orange, bluish green, vermillion, reddish purple, sky blue), then Paul Tol's muted and
/// vibrant sets. Every colour is saturated and mid-to-dark, so a ramp from white towards it has
/// room for magnitude. Past kGroupPaletteSize the colours repeat and groupHatched() is true.
QColor groupColor(int group);

/// Whether group `group` is drawn with a hatch because its colour is reused: true from group
/// kGroupPaletteSize on. Labels are drawn for every group, so groups stay identifiable past the
/// palette.
bool groupHatched(int group);

/// Which hatch a group gets: 0 none (groups 0..15), 1 rising diagonal (16..31), 2 falling
/// diagonal (32..47), 3 crossed diagonals (48 on).
int groupHatchStyle(int group);

/// The colour for elements that belong to no group (e.g. x, read whole by every group): a neutral
/// slate blue-grey.
QColor neutralColor();

/// The colour a value's ramp ends at: `base` itself for positive values, a dark shade of the same
/// hue (same HSV hue and saturation, lower value) for negative ones.
QColor negativeShade(const QColor& base);

}  // namespace tp
