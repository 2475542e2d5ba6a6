#include "tp_sweep_plot.h"

#include "block/mlp_costs.h"
#include "devices/mesh_costs.h"

#include "sweep_ticks.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>

namespace tp {

std::vector<TpPoint> tpSweep(const LayerConfig& config, Mistake mistake) {
    std::vector<TpPoint> points;
    for (const std::int64_t tp : divisors(config.splitDim())) {
        LayerConfig c = config;
        c.tpSize = tp;
        if (!c.validate().empty() || !mistakeProblems(c, mistake).empty())
            continue;
        if (c.block == Block::Mlp) {
            const MlpCosts costs = mlpCosts(c, mistake);
            std::int64_t sent = 0;
            for (const MlpCollective& collective : costs.collectives)
                sent += collective.cost.bytesSentPerDevice;
            points.push_back({tp, costs.perDevice.total(), sent});
            continue;
        }
        const MeshCosts costs = meshCosts(c);
        points.push_back({tp, totalBytes(costs.perDevice), costs.collective.bytesSentPerDevice});
    }
    return points;
}

namespace {

const QColor kMemoryColour(0x00, 0x72, 0xb2), kWireColour(0xd5, 0x5e, 0x00);

std::int64_t largest(const std::vector<TpPoint>& points, bool sent) {
    std::int64_t max = 0;
    for (const TpPoint& point : points)
        max = std::max(max, sent ? point.wireBytes : point.memoryBytes);
    return max;
}

}  // namespace

TpAxisText tpAxisText(const std::vector<TpPoint>& points, bool sent) {
    TpAxisText axis;
    axis.title = sent ? QObject::tr("bytes sent per device (dashed)")
                      : QObject::tr("bytes of memory per device (solid)");
    axis.foot = QStringLiteral("0");
    const std::int64_t max = largest(points, sent);
    if (max > 0)
        axis.top = QString::fromStdString(formatBytes(max));
    else if (!points.empty())
        axis.nothing = sent ? QObject::tr("nothing is sent at any tp")
                            : QObject::tr("nothing is held at any tp");
    return axis;
}

TpSweepPlot::TpSweepPlot(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("tpSweepPlot"));
    setToolTip(
        tr("Against every valid tp size: the memory each device holds (solid, left axis) and the "
           "bytes each device sends in the collective (dashed, right axis); the current tp is "
           "marked"));
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
    // Room on each side for its axis' labels.
    const QFontMetrics metrics = fontMetrics();
    const auto side = [&](bool sent) {
        const TpAxisText axis = tpAxisText(m_points, sent);
        return std::max(metrics.horizontalAdvance(axis.top), metrics.horizontalAdvance(axis.foot));
    };
    return sweepPlotRect(*this, side(false), side(true));
}

qreal TpSweepPlot::xOf(std::size_t index) const {
    return sweepX(plotRect(), index, m_points.size());
}

void TpSweepPlot::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const QRectF r = plotRect();
    drawSweepFrame(p, *this, r);
    const TpAxisText memoryAxis = tpAxisText(m_points, false);
    const TpAxisText wireAxis = tpAxisText(m_points, true);
    const int line = fontMetrics().height();
    // The two titles on lines of their own, each on its axis' side, so that neither covers the
    // other in a narrow panel.
    p.setPen(kMemoryColour);
    p.drawText(QRectF(4, 2, width() - 8, line), Qt::AlignLeft | Qt::AlignVCenter, memoryAxis.title);
    p.setPen(kWireColour);
    p.drawText(QRectF(4, 2 + line, width() - 8, line), Qt::AlignRight | Qt::AlignVCenter,
               wireAxis.title);
    p.setPen(palette().text().color());
    p.drawText(QRectF(0, height() - line - 2, width(), line), Qt::AlignCenter,
               tr("tp_size, devices on the model axis"));
    if (m_points.empty())
        return;
    const std::int64_t maxMemory = largest(m_points, false), maxWire = largest(m_points, true);
    // Each axis runs from 0 at the foot to its largest value at 85% of the height.
    const qreal topY = r.bottom() - r.height() * 0.85;
    const auto yOf = [&](std::int64_t value, std::int64_t max) {
        return max > 0 ? r.bottom() - (r.bottom() - topY) * double(value) / double(max)
                       : r.bottom();
    };
    const auto drawAxis = [&](const TpAxisText& axis, const QColor& colour, bool right) {
        p.setPen(colour);
        const qreal x = right ? r.right() + 4 : 0;
        const qreal w = right ? width() - r.right() - 4 : r.left() - 4;
        const Qt::Alignment side = right ? Qt::AlignLeft : Qt::AlignRight;
        p.drawText(QRectF(x, r.bottom() - line / 2.0, w, line), side | Qt::AlignVCenter, axis.foot);
        if (!axis.top.isEmpty()) {
            p.drawText(QRectF(x, topY - line / 2.0, w, line), side | Qt::AlignVCenter, axis.top);
            p.setPen(QPen(colour, 1, Qt::DotLine));
            p.drawLine(QPointF(right ? r.right() - 4 : r.left(), topY),
                       QPointF(right ? r.right() : r.left() + 4, topY));
        }
        if (!axis.nothing.isEmpty()) {
            p.setPen(colour);
            p.drawText(r.adjusted(4, 0, -4, -4), Qt::AlignHCenter | Qt::AlignBottom, axis.nothing);
        }
    };
    drawAxis(memoryAxis, kMemoryColour, false);
    drawAxis(wireAxis, kWireColour, true);
    std::vector<std::int64_t> values;
    for (const TpPoint& point : m_points)
        values.push_back(point.tp);
    drawSweepTicks(p, *this, r, values, m_current, [this](std::size_t i) { return xOf(i); });
    QPainterPath memory, wire;
    for (std::size_t i = 0; i < m_points.size(); ++i) {
        const QPointF a(xOf(i), yOf(m_points[i].memoryBytes, maxMemory));
        const QPointF b(xOf(i), yOf(m_points[i].wireBytes, maxWire));
        i == 0 ? memory.moveTo(a) : memory.lineTo(a);
        i == 0 ? wire.moveTo(b) : wire.lineTo(b);
    }
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(kMemoryColour, 2));
    p.drawPath(memory);
    p.setPen(QPen(kWireColour, 2, Qt::DashLine));
    p.drawPath(wire);
    // The current tp's dots over the dotted line the ticks drew.
    for (std::size_t i = 0; i < m_points.size(); ++i) {
        if (m_points[i].tp != m_current)
            continue;
        p.setPen(Qt::NoPen);
        p.setBrush(kMemoryColour);
        p.drawEllipse(QPointF(xOf(i), yOf(m_points[i].memoryBytes, maxMemory)), 4, 4);
        p.setBrush(kWireColour);
        p.drawEllipse(QPointF(xOf(i), yOf(m_points[i].wireBytes, maxWire)), 4, 4);
        p.setBrush(Qt::NoBrush);
    }
}

}  // namespace tp
