#include "heatmap_legend.h"

#include <QEvent>
#include <QFontMetrics>
#include <QPainter>

namespace tp {

HeatmapLegend::HeatmapLegend(QWidget* parent) : QWidget(parent) {
    // As tall as its width asks for (the caption wraps in a narrow legend): not Fixed, whose
    // sizeHint() would cap the height at one caption line.
    QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    policy.setHeightForWidth(true);
    setSizePolicy(policy);
}

void HeatmapLegend::setScale(float scale) {
    if (scale == m_scale)
        return;
    m_scale = scale;
    m_cache = {};
    update();
}

void HeatmapLegend::setGroups(std::vector<int> groups) {
    if (groups == m_groups)
        return;
    m_groups = std::move(groups);
    m_cache = {};
    updateGeometry();  // the neutral map's caption is longer
    update();
}

void HeatmapLegend::setNonFinite(NonFiniteKinds kinds) {
    if (kinds == m_nonFinite)
        return;
    m_nonFinite = kinds;
    m_cache = {};
    updateGeometry();  // the entries take the caption's room
    update();
}

void HeatmapLegend::setCaptionShown(bool shown) {
    if (shown == m_caption)
        return;
    m_caption = shown;
    m_cache = {};
    updateGeometry();
    update();
}

QSize HeatmapLegend::sizeHint() const {
    const QFontMetrics metrics(font());
    int entries = 0;
    for (const auto& entry : nonFiniteLegendEntries(m_nonFinite))
        entries += metrics.height() + metrics.horizontalAdvance(entry.first) + 11;
    return {metrics.horizontalAdvance(legendCaption(style())) + 16 + entries,
            m_caption ? 3 * metrics.height() + 14 : minimumSizeHint().height()};
}

QStringList HeatmapLegend::captionLines(int width) const {
    return legendCaptionLines(style(), width);
}

int HeatmapLegend::heightForWidth(int width) const {
    if (!m_caption)
        return minimumSizeHint().height();
    const QFontMetrics metrics(font());
    return int(2 + captionLines(width).size()) * metrics.height() + 14;
}

LegendStyle HeatmapLegend::style() const {
    LegendStyle style;
    style.scale = m_scale;
    style.groups = m_groups;
    style.nonFinite = m_nonFinite;
    style.font = font();
    style.textColor = palette().color(QPalette::WindowText);
    style.devicePixelRatio = devicePixelRatioF();
    return style;
}

QSize HeatmapLegend::minimumSizeHint() const {
    const QFontMetrics metrics(font());
    return {120, 2 * metrics.height() + 10};
}

void HeatmapLegend::paintEvent(QPaintEvent*) {
    const qreal dpr = devicePixelRatioF();
    const QSize deviceSize = (QSizeF(size()) * dpr).toSize();
    if (m_cache.size() != deviceSize || m_cache.devicePixelRatio() != dpr) {
        m_cache = renderLegend(style(), deviceSize);
    }
    QPainter painter(this);
    painter.drawImage(QPointF(0, 0), m_cache);
}

void HeatmapLegend::changeEvent(QEvent* event) {
    if (event->type() == QEvent::FontChange || event->type() == QEvent::PaletteChange) {
        m_cache = {};
        if (event->type() == QEvent::FontChange)
            updateGeometry();
        update();
    }
    QWidget::changeEvent(event);
}

}  // namespace tp
