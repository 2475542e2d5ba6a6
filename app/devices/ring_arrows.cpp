#include "ring_arrows.h"

#include "device_card.h"
#include "devices_view.h"
#include "palette.h"

#include <QPainter>
#include <QPainterPath>

#include <cmath>

namespace tp {
namespace {

void drawHead(QPainter& p, QPointF tip, QPointF from, const QColor& colour) {
    const QPointF d = tip - from;
    const qreal length = std::hypot(d.x(), d.y());
    if (length <= 0)
        return;
    const QPointF u = d / length, n(-u.y(), u.x());
    const qreal size = 9;
    QPolygonF head;
    head << tip << tip - u * size + n * size * 0.5 << tip - u * size - n * size * 0.5;
    p.setPen(Qt::NoPen);
    p.setBrush(colour);
    p.drawPolygon(head);
    p.setBrush(Qt::NoBrush);
}

}  // namespace

RingArrows::RingArrows(QWidget* parent) : QWidget(parent) {
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setAttribute(Qt::WA_NoSystemBackground);
    setObjectName(QStringLiteral("ringArrows"));
}

void RingArrows::setArrows(std::vector<DeviceArrow> arrows, std::vector<DeviceCard*> cards,
                           int columns) {
    m_arrows = std::move(arrows);
    m_cards = std::move(cards);
    m_columns = columns;
    update();
}

void RingArrows::paintEvent(QPaintEvent*) {
    if (m_arrows.empty() || m_columns <= 0)
        return;
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    for (const DeviceArrow& a : m_arrows) {
        const QRect from = m_cards[std::size_t(a.d * m_columns + a.from)]->geometry();
        const QRect to = m_cards[std::size_t(a.d * m_columns + a.to)]->geometry();
        const QColor colour = groupColor(a.chunk);
        p.setPen(QPen(colour, 3));
        QPointF tip, before, label;
        if (a.to == a.from + 1) {  // straight across the gap, at the row of the buffer it fills
            const DeviceCard* sender = m_cards[std::size_t(a.d * m_columns + a.from)];
            const int buffer = int(sender->holdings().arrays.size()) - 1;
            const QRect held = sender->arrayRect(buffer);
            const qreal y = held.isEmpty() ? from.center().y() : from.top() + held.center().y();
            const QPointF start(from.right() - 4, y);
            tip = QPointF(to.left() + 4, y);
            p.drawLine(start, tip);
            before = start;
            label = QPointF((start.x() + tip.x()) / 2, y - 4);
        } else {  // the wrap: down from the sender, along under the row, up into the receiver
            const qreal below = from.bottom() + 12;
            const QPointF start(from.center().x(), from.bottom() - 4);
            tip = QPointF(to.center().x(), to.bottom() - 4);
            QPainterPath path(start);
            path.lineTo(start.x(), below);
            path.lineTo(tip.x(), below);
            path.lineTo(tip.x(), tip.y() + 10);
            p.drawPath(path);
            before = QPointF(tip.x(), below);
            label = QPointF((start.x() + tip.x()) / 2, below + 9);
        }
        drawHead(p, tip, before, colour);
        // The chunk's number in a badge of its colour, small enough for the gap between cards.
        const QRectF badge(label.x() - 9, label.y() - 19, 18, 18);
        p.setPen(QPen(Qt::white, 1.5));
        p.setBrush(colour);
        p.drawEllipse(badge);
        p.setPen(Qt::white);
        p.drawText(badge, Qt::AlignCenter, QString::number(a.chunk));
        p.setBrush(Qt::NoBrush);
    }
}

}  // namespace tp
