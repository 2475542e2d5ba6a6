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
    const int bottom = height();
    const MatrixData& m = m_top->matrix();
    if (m.isEmpty()) {
        m_strip->setGeometry(0, bottom - m_stripHeight, width(), m_stripHeight);
        return;
    }
    const QRectF first = m_top->cellRect(0, 0);
    const QRectF last = m_top->cellRect(m.rows() - 1, m.cols() - 1);
    const QPoint origin = m_top->viewport()->mapTo(this, QPoint(0, 0));
    const qreal left = origin.x() + first.left();
    const qreal right = origin.x() + last.right();
    const bool fits = left >= origin.x() && right <= origin.x() + m_top->viewport()->width() + 1;
    if (!fits) {  // zoomed in: the strip spans the top view's viewport, following its columns
        m_strip->setGeometry(origin.x(), bottom - m_stripHeight, m_top->viewport()->width(),
                             m_stripHeight);
        return;
    }
    // Right under the kernel's last row (the kernel is centred in its area), column under column.
    auto place = [&](int stripHeight) {
        const int top =
            std::min(int(std::ceil(origin.y() + last.bottom())) + 2, bottom - stripHeight);
        m_strip->setGeometry(int(std::round(left)) - kViewMargin, std::max(0, top),
                             int(std::round(right - left)) + 2 * kViewMargin, stripHeight);
    };
    place(m_stripHeight);
    // A strip too short for cells as wide as the kernel's would draw smaller square cells that
    // no longer line up: grow it by what its cells lack (its cells grow one for one with height).
    if (m_strip->matrix().isEmpty() || !m_strip->isVisible())
        return;
    const qreal wanted = std::min<qreal>(first.width(), 80);
    const qreal lacking = wanted - m_strip->cellRect(0, 0).height();
    if (lacking > 0.5)
        place(m_stripHeight + int(std::ceil(lacking)));
}

}  // namespace tp
