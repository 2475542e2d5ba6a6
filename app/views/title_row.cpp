#include "title_row.h"

#include "heatmap_image.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace tp {

namespace {

// The scale's ramp right of the title: at most this wide, this far from the title's text, and
// followed by the scale's text with this much room around it.
constexpr qreal kMaxRampWidth = 56;
constexpr qreal kRampGap = 8;
constexpr qreal kScaleTextPadding = 4;

bool zoomed(double zoom) {
    return std::abs(zoom - 1.0) > 1e-6;
}

}  // namespace

QRectF titleScaleRamp(const MatrixLayout& l, const QFont& font, const QString& scaleText,
                      double zoom) {
    if (l.title.isEmpty() || scaleText.isEmpty())
        return {};
    const QFontMetricsF metrics(font);
    const qreal textWidth = metrics.horizontalAdvance(scaleText) + kScaleTextPadding;
    const qreal zoomWidth =
        zoomed(zoom) ? metrics.horizontalAdvance(QStringLiteral("8888%")) + 6 : 0;
    const qreal rampWidth = std::clamp<qreal>(l.title.width() * 0.15, 24, kMaxRampWidth);
    if (l.title.width() < 3 * (rampWidth + textWidth))
        return {};
    const qreal height = std::min<qreal>(8, l.title.height() - 4);
    return QRectF(l.title.right() - zoomWidth - textWidth - rampWidth,
                  l.title.center().y() - height / 2, rampWidth, height);
}

qreal wholeTitleWidth(const QFont& font, const QString& title, const QString& scaleText) {
    QFont titleFont = font;
    titleFont.setBold(true);
    const qreal text = QFontMetricsF(font).horizontalAdvance(scaleText) + kScaleTextPadding;
    return 2 * MatrixLayout::kMargin + QFontMetricsF(titleFont).horizontalAdvance(title) +
           kRampGap + kMaxRampWidth + text;
}

void paintTitleRow(QPainter& painter, const MatrixLayout& l, const TitleRow& row, const QFont& font,
                   const QPalette& palette) {
    if (l.title.isEmpty())
        return;
    // Right of the title: this view's map and scale, so that every matrix on screen says what
    // its colours mean.
    const QRectF ramp = titleScaleRamp(l, font, row.scaleText, row.zoom);
    qreal reserved = kRampGap;
    if (!ramp.isEmpty()) {
        reserved = l.title.right() - ramp.left() + kRampGap;
        const int steps = std::max(2, int(ramp.width()));
        for (int i = 0; i < steps; ++i) {
            const float t = -1.0f + 2.0f * float(i) / float(steps - 1);
            painter.fillRect(QRectF(ramp.left() + ramp.width() * i / steps, ramp.top(),
                                    ramp.width() / steps + 0.5, ramp.height()),
                             QColor(heatmapColor(t * row.scale, row.scale, row.group)));
        }
        painter.setPen(QPen(palette.color(QPalette::Mid), 0));
        painter.drawRect(ramp);
        painter.setFont(font);
        painter.setPen(palette.color(QPalette::WindowText));
        painter.drawText(QRectF(ramp.right() + 3, l.title.top(), l.title.right() - ramp.right(),
                                l.title.height()),
                         Qt::AlignLeft | Qt::AlignVCenter, row.scaleText);
    } else if (zoomed(row.zoom)) {
        reserved = 60;
    }
    QFont titleFont = font;
    titleFont.setBold(true);
    painter.setFont(titleFont);
    painter.setPen(palette.color(QPalette::WindowText));
    painter.drawText(l.title, Qt::AlignLeft | Qt::AlignVCenter,
                     QFontMetricsF(titleFont).elidedText(row.title, Qt::ElideMiddle,
                                                         l.title.width() - reserved));
    if (zoomed(row.zoom)) {
        painter.setFont(font);
        painter.setPen(palette.color(QPalette::PlaceholderText));
        painter.drawText(l.title, Qt::AlignRight | Qt::AlignVCenter,
                         QStringLiteral("%1%").arg(std::lround(row.zoom * 100)));
    }
}

}  // namespace tp
