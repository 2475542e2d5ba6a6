#include "palette.h"

#include <algorithm>
#include <array>

namespace tp {

namespace {

// Okabe & Ito (2008) without black and yellow (too light for a ramp), then Paul Tol's muted and
// vibrant schemes, ordered so that the first groups (tp 2, 4, 8) are the most distinct. Minimum
// pairwise CIELAB distance is about 18 (tested).
constexpr std::array<QRgb, kGroupPaletteSize> kPalette = {
    0x0072B2,  // blue
    0xE69F00,  // orange
    0x009E73,  // bluish green
    0xD55E00,  // vermillion
    0xCC79A7,  // reddish purple
    0x56B4E9,  // sky blue
    0x117733,  // green
    0x882255,  // wine
    0x44AA99,  // teal
    0x999933,  // olive
    0xAA4499,  // purple
    0x332288,  // indigo
    0xCC6677,  // rose
    0xEE3377,  // magenta
    0x225555,  // dark cyan
    0x996633,  // brown
};

}  // namespace

QColor groupColor(int group) {
    if (group < 0)
        return neutralColor();
    return QColor::fromRgb(kPalette[std::size_t(group % kGroupPaletteSize)]);
}

bool groupHatched(int group) {
    return groupHatchStyle(group) != 0;
}

int groupHatchStyle(int group) {
    if (group < kGroupPaletteSize)
        return 0;
    return std::min(group / kGroupPaletteSize, 3);
}

QColor neutralColor() {
    return QColor::fromRgb(0x5A7189);
}

QColor negativeShade(const QColor& base) {
    // Scaling r, g, b by one factor keeps HSV hue and saturation: the negative end is the same
    // hue, darker, so sign reads as "vivid vs dark" inside every group colour.
    constexpr float kDark = 0.42f;
    return QColor::fromRgbF(base.redF() * kDark, base.greenF() * kDark, base.blueF() * kDark);
}

}  // namespace tp
