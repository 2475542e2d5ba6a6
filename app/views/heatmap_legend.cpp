#include "heatmap_legend.h"

#include <QEvent>
#include <QFontMetrics>
#include <QPainter>

namespace tp {

HeatmapLegend::HeatmapLegend(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
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
    update();
}

void HeatmapLegend::setNonFinite(NonFiniteKinds kinds) {
    if (kinds == m_nonFinite)
        return;
    m_nonFinite = kinds;
    m_cache = {};
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
    return {metrics.horizontalAdvance(QStringLiteral("negative = dark \u00b7 zero = white \u00b7 "
                                                     "positive = vivid")) +
                16 + entries,
            m_caption ? 3 * metrics.height() + 14 : minimumSizeHint().height()};
}

QSize HeatmapLegend::minimumSizeHint() const {
    const QFontMetrics metrics(font());
    return {120, 2 * metrics.height() + 10};
}

void HeatmapLegend::paintEvent(QPaintEvent*) {
    const qreal dpr = devicePixelRatioF();
    const QSize deviceSize = (QSizeF(size()) * dpr).toSize();
    if (m_cache.size() != deviceSize || m_cache.devicePixelRatio() != dpr) {
        LegendStyle style;
        style.scale = m_scale;
        style.groups = m_groups;
        style.nonFinite = m_nonFinite;
        style.font = font();
        style.textColor = palette().color(QPalette::WindowText);
        style.devicePixelRatio = dpr;
        m_cache = renderLegend(style, deviceSize);
    }
    QPainter painter(this);
    painter.drawImage(QPointF(0, 0), m_cache);
}

void HeatmapLegend::changeEvent(QEvent* event) {
    if (event->type() == QEvent::FontChange || event->type() == QEvent::PaletteChange) {
        m_cache = {};
        update();
    }
    QWidget::changeEvent(event);
}

}  // namespace tp
