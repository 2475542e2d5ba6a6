#include "layout_sweep_plot.h"

#include "sweep_ticks.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>

namespace tp {

QColor layoutColour(ShardingLayout layout) {
    switch (layout) {
        case ShardingLayout::Tensor:
            return {0x00, 0x72, 0xb2};
        case ShardingLayout::Fsdp:
            return {0xd5, 0x5e, 0x00};
        case ShardingLayout::Sequence:
            return {0x00, 0x9e, 0x73};
    }
    return Qt::black;
}

std::int64_t sweepBytesSent(const LayoutSummary& s, bool backward) {
    return s.forwardSent + (backward ? s.backwardSent : 0);
}

LayoutSweepPlot::LayoutSweepPlot(MeshSize size, QWidget* parent) : QWidget(parent), m_size(size) {
    setObjectName(size == MeshSize::Tp ? QStringLiteral("layoutsOverTp")
                                       : QStringLiteral("layoutsOverData"));
    setToolTip(tr("The three layouts against %1: the bytes each device keeps at rest (solid, "
                  "left axis) and the bytes it sends (dashed, right axis); a layout that a size "
                  "refuses has no point there")
                   .arg(size == MeshSize::Tp ? tr("tp_size") : tr("D")));
}

void LayoutSweepPlot::setSweep(std::vector<LayoutSweepPoint> points, bool backward,
                               std::int64_t current) {
    m_points = std::move(points);
    m_backward = backward;
    m_current = current;
    update();
}

std::int64_t LayoutSweepPlot::largest(bool sent) const {
    std::int64_t max = 0;
    for (const LayoutSweepPoint& point : m_points)
        for (const LayoutSummary& s : point.layouts)
            if (s.refusal.empty())
                max = std::max(max, sent ? sweepBytesSent(s, m_backward) : s.bytesAtRest);
    return max;
}

QRectF LayoutSweepPlot::plotRect() const {
    const auto side = [&](bool sent) {
        return fontMetrics().horizontalAdvance(QString::fromStdString(formatBytes(largest(sent))));
    };
    return sweepPlotRect(*this, side(false), side(true));
}

qreal LayoutSweepPlot::xOf(std::size_t index) const {
    return sweepX(plotRect(), index, m_points.size());
}

qreal LayoutSweepPlot::yOf(std::int64_t bytes, bool sent) const {
    // Each axis from 0 at the foot to its largest value at 85% of the height.
    const QRectF r = plotRect();
    const std::int64_t max = largest(sent);
    return max > 0 ? r.bottom() - r.height() * 0.85 * double(bytes) / double(max) : r.bottom();
}

void LayoutSweepPlot::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const QRectF r = plotRect();
    drawSweepFrame(p, *this, r);
    const int line = fontMetrics().height();
    // The legend: each layout's name in its colour, then what the two line styles are.
    qreal x = 4;
    for (const ShardingLayout layout :
         {ShardingLayout::Tensor, ShardingLayout::Fsdp, ShardingLayout::Sequence}) {
        const QString name = QString::fromUtf8(toString(layout));
        p.setPen(layoutColour(layout));
        p.drawText(QRectF(x, 2, width(), line), Qt::AlignLeft | Qt::AlignVCenter, name);
        x += fontMetrics().horizontalAdvance(name) + 10;
    }
    p.setPen(palette().text().color());
    p.drawText(QRectF(4, 2 + line, width() - 8, line), Qt::AlignLeft | Qt::AlignVCenter,
               m_backward ? tr("solid: at rest; dashed: sent, forward + backward")
                          : tr("solid: at rest; dashed: sent"));
    p.drawText(QRectF(0, height() - line - 2, width(), line), Qt::AlignCenter,
               m_size == MeshSize::Tp ? tr("tp_size, devices on the model axis")
                                      : tr("D, devices on the data axis"));
    if (m_points.empty())
        return;
    for (const bool sent : {false, true}) {
        const QString top = QString::fromStdString(formatBytes(largest(sent)));
        const qreal left = sent ? r.right() + 4 : 0;
        const qreal w = sent ? width() - r.right() - 4 : r.left() - 4;
        const Qt::Alignment side = (sent ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter;
        p.drawText(QRectF(left, yOf(largest(sent), sent) - line / 2.0, w, line), side, top);
        p.drawText(QRectF(left, r.bottom() - line / 2.0, w, line), side, QStringLiteral("0"));
    }
    std::vector<std::int64_t> values;
    for (const LayoutSweepPoint& point : m_points)
        values.push_back(point.value);
    drawSweepTicks(p, *this, r, values, m_current, [this](std::size_t i) { return xOf(i); });
    // One path per layout and quantity, broken where a value refuses the layout.
    for (std::size_t k = 0; k < 3; ++k) {
        for (const bool sent : {false, true}) {
            QPainterPath path;
            bool drawing = false;
            for (std::size_t i = 0; i < m_points.size(); ++i) {
                const LayoutSummary& s = m_points[i].layouts.at(k);
                if (!s.refusal.empty()) {
                    drawing = false;
                    continue;
                }
                const QPointF at(xOf(i),
                                 yOf(sent ? sweepBytesSent(s, m_backward) : s.bytesAtRest, sent));
                drawing ? path.lineTo(at) : path.moveTo(at);
                drawing = true;
                if (m_points[i].value == m_current) {
                    p.setPen(Qt::NoPen);
                    p.setBrush(layoutColour(s.layout));
                    p.drawEllipse(at, 3.5, 3.5);
                    p.setBrush(Qt::NoBrush);
                }
            }
            const QColor colour = layoutColour(m_points.front().layouts.at(k).layout);
            p.setPen(QPen(colour, 2, sent ? Qt::DashLine : Qt::SolidLine));
            p.drawPath(path);
        }
    }
}

}  // namespace tp
