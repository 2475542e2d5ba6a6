#include "group_band.h"

#include "palette.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>

namespace tp {

namespace {

QColor blend(const QColor& a, const QColor& b, qreal amountOfB) {
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * amountOfB),
                            float(a.greenF() + (b.greenF() - a.greenF()) * amountOfB),
                            float(a.blueF() + (b.blueF() - a.blueF()) * amountOfB));
}

// One group's visible part of the band.
struct VisibleGroup {
    int id;
    IndexRange shown;  ///< the range its label names
    QRectF strip;      ///< the coloured strip
    QRectF label;      ///< room for the label
};

constexpr GroupLabelForm kForms[] = {GroupLabelForm::NumberAndRange, GroupLabelForm::Range,
                                     GroupLabelForm::ShortNumber, GroupLabelForm::Number};

}  // namespace

QString rangeText(IndexRange range) {
    return QStringLiteral("[%1:%2)").arg(range.start).arg(range.stop);
}

QString groupSpanText(const HeatmapStyle& style, const std::vector<IndexRange>& shown,
                      const QString& what, Index row, Index col) {
    const int group = groupAt(style, row, col);
    if (group < 0)
        return {};
    const bool byColumn = style.groupAxis == Qt::Horizontal;
    const Index position = byColumn ? col : row;
    IndexRange range;
    for (std::size_t k = 0; k < style.groups.size(); ++k) {
        const int id = k < style.groupIds.size() ? style.groupIds[k] : int(k);
        if (id == group && position >= style.groups[k].start && position < style.groups[k].stop)
            range = k < shown.size() ? shown[k] : style.groups[k];
    }
    const QString counted = !what.isEmpty() ? what
                            : byColumn      ? QStringLiteral("columns")
                                            : QStringLiteral("rows");
    return counted + QLatin1Char(' ') + rangeText(range);
}

qreal groupBandExtent(const QFont& font, Qt::Orientation axis, const std::vector<QString>& labels) {
    if (axis == Qt::Horizontal)
        return QFontMetricsF(font).height() + kGroupStripThickness + 4;
    // Wide enough for every label in bold (the highlighted group's).
    QFont bold = font;
    bold.setBold(true);
    const QFontMetricsF boldMetrics(bold);
    qreal widest = 0;
    for (const QString& label : labels)
        widest = std::max(widest, boldMetrics.horizontalAdvance(label) + 1);
    return std::min<qreal>(widest, 120) + kGroupStripThickness + 8;
}

QString groupLabel(int id, IndexRange shown, GroupLabelForm form) {
    switch (form) {
        case GroupLabelForm::NumberAndRange:
            return QStringLiteral("group %1 \u00b7 %2").arg(id).arg(rangeText(shown));
        case GroupLabelForm::Range:
            return rangeText(shown);
        case GroupLabelForm::ShortNumber:
            return QStringLiteral("g%1").arg(id);
        case GroupLabelForm::Number:
            break;
    }
    return QString::number(id);
}

void paintGroupBand(QPainter& painter, const HeatmapStyle& style,
                    const std::vector<IndexRange>& shown, const MatrixLayout& layout,
                    const QFont& font, const QPalette& palette) {
    const bool byColumn = style.groupAxis == Qt::Horizontal;
    const QRectF visibleMatrix = QRectF(layout.origin, layout.content).intersected(layout.area);
    const QRectF& band = layout.band;
    std::vector<VisibleGroup> visible;
    for (std::size_t k = 0; k < style.groups.size(); ++k) {
        const IndexRange range = style.groups[k];
        if (range.size() <= 0)
            continue;
        const int id = k < style.groupIds.size() ? style.groupIds[k] : int(k);
        const IndexRange named = k < shown.size() ? shown[k] : range;
        if (byColumn) {
            const qreal x0 = std::max(layout.origin.x() + qreal(range.start) * layout.cell.width(),
                                      visibleMatrix.left());
            const qreal x1 = std::min(layout.origin.x() + qreal(range.stop) * layout.cell.width(),
                                      visibleMatrix.right());
            if (x1 - x0 < 1)
                continue;
            visible.push_back({id, named,
                               QRectF(x0 + 1, band.bottom() - kGroupStripThickness, x1 - x0 - 2,
                                      kGroupStripThickness),
                               QRectF(x0 + 2, band.top(), x1 - x0 - 4,
                                      band.height() - kGroupStripThickness - 1)});
        } else {
            const qreal y0 = std::max(layout.origin.y() + qreal(range.start) * layout.cell.height(),
                                      visibleMatrix.top());
            const qreal y1 = std::min(layout.origin.y() + qreal(range.stop) * layout.cell.height(),
                                      visibleMatrix.bottom());
            if (y1 - y0 < 1)
                continue;
            visible.push_back(
                {id, named,
                 QRectF(band.right() - kGroupStripThickness, y0 + 1, kGroupStripThickness,
                        y1 - y0 - 2),
                 QRectF(band.left(), y0, band.width() - kGroupStripThickness - 4, y1 - y0)});
        }
    }

    const QFontMetricsF metrics(font);
    QFont bold = font;
    bold.setBold(true);
    const QFontMetricsF boldMetrics(bold);
    const auto fits = [&](const VisibleGroup& g, GroupLabelForm form) {
        if (!byColumn && g.label.height() < metrics.height())
            return false;
        return boldMetrics.horizontalAdvance(groupLabel(g.id, g.shown, form)) <= g.label.width();
    };
    const auto forms = byColumn ? std::begin(kForms) : std::begin(kForms) + 1;
    // One form for all groups when one fits them all (the richest that does).
    const auto common = std::find_if(forms, std::end(kForms), [&](GroupLabelForm form) {
        return std::all_of(visible.begin(), visible.end(),
                           [&](const VisibleGroup& g) { return fits(g, form); });
    });

    const QColor background = palette.color(QPalette::Window);
    for (const VisibleGroup& g : visible) {
        const bool dimmed = style.highlightedGroup >= 0 && g.id != style.highlightedGroup;
        const bool highlighted = style.highlightedGroup >= 0 && g.id == style.highlightedGroup;
        QColor color = groupColor(g.id);
        if (dimmed)
            color = blend(color, background, 0.7);
        painter.fillRect(g.strip, color);
        if (groupHatched(g.id))
            painter.fillRect(g.strip, QBrush(Qt::white, Qt::BDiagPattern));

        const auto form = common != std::end(kForms)
                              ? common
                              : std::find_if(forms, std::end(kForms),
                                             [&](GroupLabelForm f) { return fits(g, f); });
        if (form == std::end(kForms))
            continue;
        QFont labelFont = font;
        labelFont.setBold(highlighted);
        painter.setFont(labelFont);
        painter.setPen(dimmed ? palette.color(QPalette::PlaceholderText)
                              : palette.color(QPalette::WindowText));
        painter.drawText(
            g.label,
            byColumn ? (Qt::AlignHCenter | Qt::AlignBottom) : (Qt::AlignRight | Qt::AlignVCenter),
            groupLabel(g.id, g.shown, *form));
    }
}

}  // namespace tp
