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
    const auto cardAt = [this](int row, int column) {
        return m_cards[std::size_t(row * m_columns + column)];
    };
    for (const DeviceArrow& a : m_arrows) {
        const bool data = a.axis == MeshAxis::Data;
        const DeviceCard* sender = data ? cardAt(a.from, a.line) : cardAt(a.line, a.from);
        const DeviceCard* receiver = data ? cardAt(a.to, a.line) : cardAt(a.line, a.to);
        const QRect from = sender->geometry();
        const QRect to = receiver->geometry();
        // The row of the array the chunk moves into, in a card's coordinates.
        const auto bufferY = [](const DeviceCard* card) {
            const int array = card->holdings().ringArray >= 0
                                  ? card->holdings().ringArray
                                  : int(card->holdings().arrays.size()) - 1;
            const QRect held = card->arrayRect(array);
            return held.isEmpty() ? card->height() / 2 : held.center().y();
        };
        // A ring over "model" moves chunk c of the collective, in its owner's colour; a ring over
        // "data" sums group `line`'s block, in that group's colour.
        const QColor colour = groupColor(data ? a.line : a.chunk);
        p.setPen(QPen(colour, 3));
        QPointF tip, before, label;
        if (data && a.to == a.from + 1) {  // straight down across the gap between the rows
            const qreal x = from.left() + from.width() * 0.5;
            const QPointF start(x, from.bottom() - 4);
            tip = QPointF(x, to.top() + 4);
            p.drawLine(start, tip);
            before = start;
            label = QPointF(x + 22, (start.y() + tip.y()) / 2 + 9);
        } else if (data) {  // the wrap: out of the right side, up the gap, into the first row
            const qreal side = from.right() + 14;
            const QPointF start(from.right() - 4, from.top() + bufferY(sender));
            tip = QPointF(to.right() - 4, to.top() + bufferY(receiver));
            QPainterPath path(start);
            path.lineTo(side, start.y());
            path.lineTo(side, tip.y());
            path.lineTo(tip.x() + 10, tip.y());
            p.drawPath(path);
            before = QPointF(side, tip.y());
            label = QPointF(side, (start.y() + tip.y()) / 2 + 9);
        } else if (a.to == a.from + 1) {  // straight across the gap, at the row of the buffer
            const qreal y = from.top() + bufferY(sender);
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
