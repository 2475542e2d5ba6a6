#include "unused_cells_overlay.h"

#include "matrix_view.h"

#include <QPainter>

namespace tp {

UnusedCellsOverlay::UnusedCellsOverlay(MatrixView* view)
    : CellsOverlay(view, QStringLiteral("unusedCellsOverlay")) {}

void UnusedCellsOverlay::setUsedBlocks(std::vector<CellBlock> blocks) {
    m_blocks = std::move(blocks);
    follow();
}

void UnusedCellsOverlay::follow() {
    if (m_blocks.empty() || m_view->matrix().isEmpty()) {
        hide();
        return;
    }
    setGeometry(m_view->viewport()->rect());
    show();
    raise();
    update();
}

void UnusedCellsOverlay::paintEvent(QPaintEvent*) {
    const MatrixData& m = m_view->matrix();
    if (m.isEmpty())
        return;
    // The rects of cells [rows, cols) as drawn now, in viewport (= this widget's) coordinates.
    const auto area = [this](IndexRange rows, IndexRange cols) {
        const QRectF first = m_view->cellRect(rows.start, cols.start);
        const QRectF last = m_view->cellRect(rows.stop - 1, cols.stop - 1);
        return QRectF(first.topLeft(), last.bottomRight());
    };
    QRegion unused(area({0, m.rows()}, {0, m.cols()}).toAlignedRect());
    for (const CellBlock& b : m_blocks)
        if (b.rows.size() > 0 && b.cols.size() > 0)
            unused -= area(b.rows, b.cols).toAlignedRect();
    QPainter painter(this);
    painter.setClipRegion(unused);
    QColor wash = palette().color(QPalette::Base);
    wash.setAlpha(215);
    painter.fillRect(rect(), wash);
}

}  // namespace tp
