#include "cell_text.h"

#include <QFontMetricsF>

#include <cmath>
#include <cstdio>

namespace tp {

QString cellText(float value) {
    if (std::isnan(value))
        return QStringLiteral("nan");
    if (std::isinf(value))
        return value > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    if (value == 0.0f)
        return QStringLiteral("0");
    const double v = double(value);
    const double magnitude = std::abs(v);
    char buffer[32];
    if (magnitude >= 0.00995 && magnitude < 999.5) {  // 0.00995 prints as "0.01" in %.2g
        // %.2g switches to an exponent from 100 on; keep fixed notation up to 999.
        if (magnitude >= 99.5)  // 99.5 .. 999.4: three digits, no exponent
            std::snprintf(buffer, sizeof buffer, "%.0f", v);
        else
            std::snprintf(buffer, sizeof buffer, "%.2g", v);
        return QString::fromLatin1(buffer);
    }
    // "-2.3e-03" -> "-2.3e-3": mantissa with one decimal, the exponent without padding.
    std::snprintf(buffer, sizeof buffer, "%.1e", v);
    QString text = QString::fromLatin1(buffer);
    const qsizetype e = text.indexOf(QLatin1Char('e'));
    const QString mantissa = text.left(e);
    const int exponent = text.mid(e + 1).toInt();
    return mantissa + QLatin1Char('e') + QString::number(exponent);
}

int numberPixelSize(const QFont& family, QSizeF cell, const QString& widest) {
    QFont font = family;
    for (int size = 13; size >= kMinNumberPixelSize; --size) {
        font.setPixelSize(size);
        const QFontMetricsF metrics(font);
        if (metrics.horizontalAdvance(widest) <= cell.width() - 4 &&
            metrics.capHeight() + 4 <= cell.height() && size <= cell.height() * 0.6 + 1)
            return size;
    }
    return 0;
}

double relativeLuminance(QRgb colour) {
    const auto channel = [](int c) {
        const double s = c / 255.0;
        return s <= 0.04045 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * channel(qRed(colour)) + 0.7152 * channel(qGreen(colour)) +
           0.0722 * channel(qBlue(colour));
}

double contrastRatio(QRgb a, QRgb b) {
    const double la = relativeLuminance(a);
    const double lb = relativeLuminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QRgb numberColourOn(QRgb background) {
    const QRgb black = qRgb(0, 0, 0);
    const QRgb white = qRgb(255, 255, 255);
    return contrastRatio(background, black) >= contrastRatio(background, white) ? black : white;
}

}  // namespace tp
