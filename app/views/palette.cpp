#include "palette.h"

#include <algorithm>
#include <array>
#include <cmath>

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

int groupColorIndex(int group) {
    return group < 0 ? -1 : group % kGroupPaletteSize;
}

QColor groupColor(int group) {
    if (group < 0)
        return neutralColor();
    return QColor::fromRgb(kPalette[std::size_t(groupColorIndex(group))]);
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
    return QColor::fromRgb(0x4F6D8F);
}

QColor neutralNegativeColor() {
    return negativeShade(neutralColor());
}

namespace {

double toLinear(double c) {
    return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}

double toGamma(double c) {
    return c <= 0.0031308 ? 12.92 * c : 1.055 * std::pow(c, 1.0 / 2.4) - 0.055;
}

}  // namespace

OkLab toOkLab(const QColor& color) {
    const double r = toLinear(color.redF()), g = toLinear(color.greenF()),
                 b = toLinear(color.blueF());
    const double l = std::cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b);
    const double m = std::cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b);
    const double s = std::cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b);
    return {0.2104542553 * l + 0.7936177850 * m - 0.0040720468 * s,
            1.9779984951 * l - 2.4285922050 * m + 0.4505937099 * s,
            0.0259040371 * l + 0.7827717662 * m - 0.8086757660 * s};
}

namespace {

// Linear sRGB, possibly out of [0, 1].
std::array<double, 3> linearRgb(const OkLab& c) {
    const double l = std::pow(c.l + 0.3963377774 * c.a + 0.2158037573 * c.b, 3);
    const double m = std::pow(c.l - 0.1055613458 * c.a - 0.0638541728 * c.b, 3);
    const double s = std::pow(c.l - 0.0894841775 * c.a - 1.2914855480 * c.b, 3);
    return {4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s,
            -1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s,
            -0.0041960863 * l - 0.7034186147 * m + 1.7076147010 * s};
}

bool inGamut(const OkLab& c) {
    constexpr double kSlack = 1e-4;
    for (const double v : linearRgb(c)) {
        if (v < -kSlack || v > 1 + kSlack)
            return false;
    }
    return true;
}

// Same lightness and hue, chroma reduced until sRGB can show it.
OkLab clipChroma(OkLab c) {
    if (inGamut(c))
        return c;
    double low = 0.0, high = 1.0;
    for (int i = 0; i < 24; ++i) {
        const double mid = (low + high) / 2;
        (inGamut({c.l, c.a * mid, c.b * mid}) ? low : high) = mid;
    }
    return {c.l, c.a * low, c.b * low};
}

}  // namespace

QColor fromOkLab(const OkLab& c) {
    const auto rgb = linearRgb(clipChroma(c));
    const auto channel = [](double v) {
        return float(std::clamp(toGamma(std::clamp(v, 0.0, 1.0)), 0.0, 1.0));
    };
    return QColor::fromRgbF(channel(rgb[0]), channel(rgb[1]), channel(rgb[2]));
}

namespace {

OkLab negativeEnd(const QColor& base) {
    const OkLab c = toOkLab(base);
    return clipChroma({std::max(0.16, c.l - 0.22), c.a, c.b});
}

}  // namespace

QColor negativeShade(const QColor& base) {
    return fromOkLab(negativeEnd(base));
}

QColor divergingColor(const QColor& base, float t) {
    return divergingColor(base, negativeShade(base), t);
}

QColor divergingColor(const QColor& positiveEnd, const QColor& negativeEnd, float t) {
    t = std::clamp(t, -1.0f, 1.0f);
    if (t == 0.0f)
        return QColor(Qt::white);
    const QColor& endColor = t > 0 ? positiveEnd : negativeEnd;
    if (std::abs(t) == 1.0f)
        return endColor.toRgb();
    const OkLab end = toOkLab(endColor);
    // Chroma rises faster than lightness falls, so mid-sized values are clearly coloured rather
    // than greyish (linear mixing makes dark negatives look grey).
    const double a = std::abs(t);
    const double chroma = std::pow(a, 0.6);
    return fromOkLab({1.0 + (end.l - 1.0) * a, end.a * chroma, end.b * chroma});
}

QColor groupRampColor(int group, float t) {
    if (group < 0)
        return divergingColor(neutralColor(), neutralNegativeColor(), t);
    return divergingColor(groupColor(group), t);
}

}  // namespace tp
