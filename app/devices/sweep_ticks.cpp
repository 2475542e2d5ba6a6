#include "sweep_ticks.h"

#include <QPainter>
#include <QWidget>

namespace tp {

QRectF sweepPlotRect(const QWidget& widget, int left, int right) {
    const int line = widget.fontMetrics().height();
    return QRectF(widget.rect()).adjusted(left + 8, 2 * line + 8, -(right + 8), -(2 * line + 6));
}

qreal sweepX(const QRectF& plot, std::size_t index, std::size_t count) {
    if (count <= 1)
        return plot.center().x();
    return plot.left() + plot.width() * qreal(index) / qreal(count - 1);
}

void drawSweepFrame(QPainter& p, const QWidget& widget, const QRectF& plot) {
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(widget.rect(), widget.palette().base());
    p.setPen(QColor(0xcc, 0xcc, 0xcc));
    p.drawRect(plot);
}

void drawSweepTicks(QPainter& p, const QWidget& widget, const QRectF& plot,
                    const std::vector<std::int64_t>& values, std::int64_t current,
                    const std::function<qreal(std::size_t)>& xOf) {
    const QFontMetrics metrics = widget.fontMetrics();
    const int labelWidth = metrics.horizontalAdvance(QStringLiteral("0000"));
    qreal lastLabel = -1e9;
    for (std::size_t i = 0; i < values.size(); ++i) {
        const qreal x = xOf(i);
        const bool marked = values[i] == current;
        if (marked) {
            p.setPen(QPen(QColor(0x33, 0x33, 0x33), 1, Qt::DotLine));
            p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
        }
        if (marked || x - lastLabel >= labelWidth) {
            QFont f = widget.font();
            f.setBold(marked);
            p.setFont(f);
            p.setPen(widget.palette().text().color());
            p.drawText(QRectF(x - labelWidth, plot.bottom() + 2, 2 * labelWidth, metrics.height()),
                       Qt::AlignHCenter | Qt::AlignTop, QString::number(values[i]));
            lastLabel = x;
        }
    }
    p.setFont(widget.font());
}

}  // namespace tp
