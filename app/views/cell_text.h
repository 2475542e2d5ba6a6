#pragma once

// The text of a value printed inside a cell: one formatter for every panel, so that the same
// float32 reads the same wherever it is drawn.

#include <QFont>
#include <QRgb>
#include <QSizeF>
#include <QString>

#include <utility>

namespace tp {

/// The cell text of `value`, a function of the value alone: "0" for zero; two significant digits
/// in fixed notation for 0.01 <= |v| < 1000 ("-0.099", "0.62", "12", "350"); otherwise two
/// significant digits with a short exponent ("-2.3e-3", "1.2e4"). Never "-0.00"; NaN and
/// infinities print as "nan", "inf", "-inf".
QString cellText(float value);

/// The longest cell text (in characters) among `count` values read through `at(i)`; ties keep the
/// first. For choosing one font size for a whole matrix.
template <typename At>
QString widestCellText(long long count, At at) {
    QString widest;
    for (long long i = 0; i < count; ++i) {
        QString text = cellText(at(i));
        if (text.size() > widest.size())
            widest = std::move(text);
    }
    return widest;
}

/// The smallest pixel size at which cell numbers are drawn (logical pixels).
inline constexpr int kMinNumberPixelSize = 8;

/// The pixel size (logical) of `family` at which `widest` fits a cell of `cell` logical pixels
/// with 2 px to spare on each side and the text's height within the cell: the largest size in
/// [kMinNumberPixelSize, 13] that fits, or 0 when even the smallest does not.
int numberPixelSize(const QFont& family, QSizeF cell, const QString& widest);

/// Relative luminance of an sRGB colour (WCAG 2): 0 for black, 1 for white.
double relativeLuminance(QRgb colour);
/// The contrast ratio (L1 + 0.05) / (L2 + 0.05) of two colours, lighter over darker: 1 to 21.
double contrastRatio(QRgb a, QRgb b);
/// The text colour for a cell whose background is `background`: black or white, whichever
/// contrasts more (at least 4.5 : 1 for any background).
QRgb numberColourOn(QRgb background);

}  // namespace tp
