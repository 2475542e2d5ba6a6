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

/// The colour a value's ramp ends at for negative values: the same OKLab hue and chroma as `base`,
/// 0.22 darker in OKLab lightness (chroma reduced only where sRGB cannot show it).
QColor negativeShade(const QColor& base);

/// The diverging ramp inside one hue, t in [-1, 1]: linear in OKLab from white (t = 0) to `base`
/// (t = 1) or to negativeShade(base) (t = -1). Mixing in OKLab keeps hue and chroma, so mid-sized
/// negative values stay recognisably in their group's colour instead of turning grey.
QColor divergingColor(const QColor& base, float t);

}  // namespace tp
