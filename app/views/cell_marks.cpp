#include "cell_marks.h"

#include <QPainter>

namespace tp {

void paintCellMarks(QPainter& painter, const MatrixLayout& l, const CellMarks& marks,
                    const QColor& frame) {
    painter.setPen(QPen(frame, 0));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(QRectF(l.origin, l.content).adjusted(-0.5, -0.5, 0.5, 0.5));

    const auto outline = [&](const QRectF& band) {
        painter.setPen(QPen(Qt::white, 4));
        painter.drawRect(band.adjusted(-1, -1, 1, 1));
        painter.setPen(QPen(marks.traceColour, 2));
        painter.drawRect(band.adjusted(-1, -1, 1, 1));
    };
    if (marks.traceRow >= 0 && marks.traceRow < l.rows)
        outline(QRectF(l.origin.x(), l.origin.y() + marks.traceRow * l.cell.height(),
                       l.content.width(), l.cell.height()));
    if (marks.traceCol >= 0 && marks.traceCol < l.cols)
        outline(QRectF(l.origin.x() + marks.traceCol * l.cell.width(), l.origin.y(), l.cell.width(),
                       l.content.height()));

    if (marks.hovered.isValid() && l.cell.width() >= 3 && l.cell.height() >= 3) {
        const QRectF cell = l.cellRect(marks.hovered.row, marks.hovered.col);
        painter.setPen(QPen(QColor(0x10, 0x10, 0x10), 2));
        painter.drawRect(cell.adjusted(1, 1, -1, -1));
        painter.setPen(QPen(Qt::white, 1));
        painter.drawRect(cell.adjusted(2.5, 2.5, -2.5, -2.5));
    }
}

}  // namespace tp
