#include "legend_widget.h"

#include "heatmap_image.h"

#include <QPainter>

namespace tp {

LegendWidget::LegendWidget(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

void LegendWidget::setLegend(float scale, std::vector<int> groups) {
    if (scale == m_scale && groups == m_groups)
        return;
    m_scale = scale;
    m_groups = std::move(groups);
    updateGeometry();
    update();
}

QSize LegendWidget::sizeHint() const {
    const int ramps = std::max<int>(1, int(m_groups.size()));
    return {380, fontMetrics().height() * 3 + ramps * 10 + 8};
}

void LegendWidget::paintEvent(QPaintEvent*) {
    LegendStyle style;
    style.scale = m_scale;
    style.groups = m_groups;
    style.font = font();
    style.textColor = palette().color(QPalette::WindowText);
    style.devicePixelRatio = devicePixelRatioF();
    const QImage image = renderLegend(style, (QSizeF(size()) * style.devicePixelRatio).toSize());
    QPainter painter(this);
    painter.drawImage(QPointF(0, 0), image);
}

}  // namespace tp
