#include "pending_overlay.h"

#include "matrix_view.h"

#include <QPainter>

#include <algorithm>

namespace tp {

PendingOverlay::PendingOverlay(MatrixView* view)
    : CellsOverlay(view, QStringLiteral("pendingOverlay")) {}

void PendingOverlay::setPending(Index fromColumn, const QString& caption) {
    m_fromColumn = fromColumn;
    m_fromRow = 0;
    m_caption = caption;
    follow();
}

void PendingOverlay::setPendingRows(Index fromRow, const QString& caption) {
    m_fromColumn = fromRow < 0 ? -1 : 0;
    m_fromRow = std::max<Index>(fromRow, 0);
    m_caption = caption;
    follow();
}

void PendingOverlay::follow() {
    const MatrixData& m = m_view->matrix();
    if (m_fromColumn < 0 || m.isEmpty() || m_fromColumn >= m.cols() || m_fromRow >= m.rows()) {
        hide();
        return;
    }
    // The covered cells: rows fromRow..rows-1, columns fromColumn..cols-1, clipped to the
    // viewport.
    const QRectF first = m_view->cellRect(m_fromRow, m_fromColumn);
    const QRectF last = m_view->cellRect(m.rows() - 1, m.cols() - 1);
    const QRect area =
        QRectF(first.topLeft(), last.bottomRight()).toAlignedRect().adjusted(0, 0, 1, 1);
    const QRect visible = area.intersected(m_view->viewport()->rect());
    if (visible.isEmpty()) {
        hide();
        return;
    }
    setGeometry(visible);
    show();
    raise();
    update();
}

void PendingOverlay::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), QColor(250, 250, 250));
    painter.setPen(QPen(QColor(150, 150, 150), 1, Qt::DashLine));
    painter.drawRect(rect().adjusted(0, 0, -1, -1));
    if (m_caption.isEmpty())
        return;
    painter.setPen(QColor(110, 110, 110));
    QFont f = font();
    f.setItalic(true);
    painter.setFont(f);
    painter.drawText(rect().adjusted(4, 2, -4, -2), Qt::AlignCenter | Qt::TextWordWrap, m_caption);
}

}  // namespace tp
