#include "column_aligned_pair.h"

#include "matrix_view.h"

#include <QScrollBar>
#include <QTimer>

namespace tp {
namespace {

// MatrixView's margin around its cells, on each side (views/matrix_view.cpp, kMargin).
constexpr int kViewMargin = 6;

}  // namespace

ColumnAlignedPair::ColumnAlignedPair(MatrixView* top, MatrixView* strip, int stripHeight,
                                     QWidget* parent)
    : QWidget(parent), m_top(top), m_strip(strip), m_stripHeight(stripHeight) {
    top->setParent(this);
    strip->setParent(this);
    // Queued: the top view computes its new layout in its own resize and zoom handlers first.
    auto later = [this] { QTimer::singleShot(0, this, &ColumnAlignedPair::align); };
    connect(top, &MatrixView::zoomChanged, this, later);
    connect(top->horizontalScrollBar(), &QScrollBar::rangeChanged, this, later);
    connect(top->horizontalScrollBar(), &QScrollBar::valueChanged, this, later);
}

QSize ColumnAlignedPair::sizeHint() const {
    const QSize top = m_top->sizeHint();
    return {top.width(), top.height() + m_stripHeight};
}

QSize ColumnAlignedPair::minimumSizeHint() const {
    const QSize top = m_top->minimumSizeHint();
    return {top.width(), top.height() + m_stripHeight};
}

void ColumnAlignedPair::resizeEvent(QResizeEvent*) {
    m_top->setGeometry(0, 0, width(), std::max(0, height() - m_stripHeight));
    align();
}

void ColumnAlignedPair::align() {
    const int y = std::max(0, height() - m_stripHeight);
    const MatrixData& m = m_top->matrix();
    QRect strip(0, y, width(), m_stripHeight);
    if (!m.isEmpty()) {
        const QRectF first = m_top->cellRect(0, 0);
        const QRectF last = m_top->cellRect(0, m.cols() - 1);
        const QPoint origin = m_top->viewport()->mapTo(this, QPoint(0, 0));
        const qreal left = origin.x() + first.left();
        const qreal right = origin.x() + last.right();
        const bool fits = left >= origin.x() && right <= origin.x() + m_top->viewport()->width() + 1;
        if (fits)
            strip = QRect(int(std::round(left)) - kViewMargin, y,
                          int(std::round(right - left)) + 2 * kViewMargin, m_stripHeight);
    }
    m_strip->setGeometry(strip);
}

}  // namespace tp
