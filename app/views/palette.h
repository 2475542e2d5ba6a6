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

/// Which colour of the palette group `group` is drawn in: -1 for no group (neutralColor), else
/// group % kGroupPaletteSize. Everything drawn from a group's colour depends on this alone.
int groupColorIndex(int group);

/// Whether group `group` is drawn with a hatch because its colour is reused: true from group
/// kGroupPaletteSize on. Labels are drawn for every group, so groups stay identifiable past the
/// palette.
bool groupHatched(int group);

/// Which hatch a group gets: 0 none (groups 0..15), 1 rising diagonal (16..31), 2 falling
/// diagonal (32..47), 3 crossed diagonals (48 on).
int groupHatchStyle(int group);

/// The colour for positive elements that belong to no group (e.g. x, read whole by every group): a
/// neutral slate blue-grey.
QColor neutralColor();

/// The colour for negative elements that belong to no group: negativeShade(neutralColor()), so
/// that the neutral map reads like every group's: dark = negative, white = zero, vivid = positive.
QColor neutralNegativeColor();

/// A colour in Björn Ottosson's OKLab (2020): perceived lightness l (0 black .. 1 white) and the
/// opponent axes a (green .. red) and b (blue .. yellow). Chroma is hypot(a, b), hue atan2(b, a).
struct OkLab {
    double l, a, b;
};

/// `color` (sRGB) in OKLab: sRGB decoded to linear light, then Ottosson's two 3 x 3 matrices
/// around a cube root.
OkLab toOkLab(const QColor& color);

/// The sRGB colour of `c`: chroma reduced at the same lightness and hue until sRGB can show it,
/// then encoded and clamped to [0, 1].
QColor fromOkLab(const OkLab& c);

/// The colour a value's ramp ends at for negative values: the same OKLab hue and chroma as `base`,
/// 0.22 darker in OKLab lightness (chroma reduced only where sRGB cannot show it).
QColor negativeShade(const QColor& base);

/// The diverging ramp inside one hue, t in [-1, 1]: linear in OKLab from white (t = 0) to `base`
/// (t = 1) or to negativeShade(base) (t = -1). Mixing in OKLab keeps hue and chroma, so mid-sized
/// negative values stay recognisably in their group's colour instead of turning grey.
QColor divergingColor(const QColor& base, float t);

/// The same ramp between explicit ends: white to `positiveEnd` for t > 0, to `negativeEnd` for t <
/// 0.
QColor divergingColor(const QColor& positiveEnd, const QColor& negativeEnd, float t);

/// The ramp of group `group` (-1: the neutral map of neutralColor / neutralNegativeColor) at t in
/// [-1, 1]: what renderHeatmap draws for value t * scale.
QColor groupRampColor(int group, float t);

}  // namespace tp
