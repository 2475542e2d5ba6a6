#include "tp_sweep_plot.h"

#include "mesh_costs.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>

namespace tp {

std::vector<TpPoint> tpSweep(const LayerConfig& config) {
    const std::int64_t split = config.mode == ParallelMode::Column ? config.features : config.inDim;
    std::vector<TpPoint> points;
    for (const std::int64_t tp : divisors(split)) {
        LayerConfig c = config;
        c.tpSize = tp;
        if (!c.validate().empty())
            continue;
        const MeshCosts costs = meshCosts(c);
        points.push_back({tp, totalBytes(costs.perDevice), costs.collective.bytesSentPerDevice});
    }
    return points;
}

TpSweepPlot::TpSweepPlot(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("tpSweepPlot"));
    setToolTip(
        tr("Memory per device (solid) and bytes each device sends (dashed) for every valid "
           "tp size, each scaled to its largest value; the current tp is marked"));
}

void TpSweepPlot::setSweep(std::vector<TpPoint> points, std::int64_t currentTp) {
    m_points = std::move(points);
    m_current = currentTp;
    update();
}

std::int64_t TpSweepPlot::markedTp() const {
    const auto it = std::find_if(m_points.begin(), m_points.end(),
                                 [&](const TpPoint& p) { return p.tp == m_current; });
    return it == m_points.end() ? -1 : it->tp;
}

QRectF TpSweepPlot::plotRect() const {
    const int line = fontMetrics().height();
    return QRectF(rect()).adjusted(8, line + 6, -8, -(line + 6));
}

qreal TpSweepPlot::xOf(std::size_t index) const {
    const QRectF r = plotRect();
    if (m_points.size() <= 1)
        return r.center().x();
    return r.left() + r.width() * qreal(index) / qreal(m_points.size() - 1);
}

void TpSweepPlot::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), palette().base());
    const QRectF r = plotRect();
    p.setPen(QColor(0xcc, 0xcc, 0xcc));
    p.drawRect(r);
    p.setPen(palette().text().color());
    p.drawText(QRectF(0, 0, width(), r.top()), Qt::AlignCenter,
               tr("per device vs tp: memory (solid), sent (dashed)"));
    if (m_points.empty())
        return;
    std::int64_t maxMemory = 1, maxWire = 1;
    for (const TpPoint& point : m_points) {
        maxMemory = std::max(maxMemory, point.memoryBytes);
        maxWire = std::max(maxWire, point.wireBytes);
    }
    const auto yOf = [&](std::int64_t value, std::int64_t max) {
        return r.bottom() - r.height() * 0.85 * double(value) / double(max);
    };
    const QColor memoryColour(0x00, 0x72, 0xb2), wireColour(0xd5, 0x5e, 0x00);
    QPainterPath memory, wire;
    for (std::size_t i = 0; i < m_points.size(); ++i) {
        const QPointF a(xOf(i), yOf(m_points[i].memoryBytes, maxMemory));
        const QPointF b(xOf(i), yOf(m_points[i].wireBytes, maxWire));
        i == 0 ? memory.moveTo(a) : memory.lineTo(a);
        i == 0 ? wire.moveTo(b) : wire.lineTo(b);
    }
    // Each curve's largest value, in its colour, names the scale of its own axis.
    const QRectF inner = r.adjusted(4, 2, -4, 0);
    p.setPen(memoryColour);
    p.drawText(inner, Qt::AlignLeft | Qt::AlignTop,
               tr("max %1").arg(QString::fromStdString(formatBytes(maxMemory))));
    p.setPen(wireColour);
    p.drawText(inner, Qt::AlignRight | Qt::AlignTop,
               tr("max %1").arg(QString::fromStdString(formatBytes(maxWire))));
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(memoryColour, 2));
    p.drawPath(memory);
    p.setPen(QPen(wireColour, 2, Qt::DashLine));
    p.drawPath(wire);
    // Tick labels, thinned so they do not overlap, and the current tp marked.
    const int labelWidth = fontMetrics().horizontalAdvance(QStringLiteral("0000"));
    qreal lastLabel = -1e9;
    for (std::size_t i = 0; i < m_points.size(); ++i) {
        const qreal x = xOf(i);
        const bool current = m_points[i].tp == m_current;
        if (current) {
            p.setPen(QPen(QColor(0x33, 0x33, 0x33), 1, Qt::DotLine));
            p.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()));
            p.setPen(Qt::NoPen);
            p.setBrush(memoryColour);
            p.drawEllipse(QPointF(x, yOf(m_points[i].memoryBytes, maxMemory)), 4, 4);
            p.setBrush(wireColour);
            p.drawEllipse(QPointF(x, yOf(m_points[i].wireBytes, maxWire)), 4, 4);
            p.setBrush(Qt::NoBrush);
        }
        if (current || x - lastLabel >= labelWidth) {
            QFont f = font();
            f.setBold(current);
            p.setFont(f);
            p.setPen(palette().text().color());
            p.drawText(QRectF(x - labelWidth, r.bottom() + 2, 2 * labelWidth, r.top()),
                       Qt::AlignHCenter | Qt::AlignTop, QString::number(m_points[i].tp));
            lastLabel = x;
        }
    }
}

}  // namespace tp
