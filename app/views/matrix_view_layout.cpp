// Where MatrixView lays out its matrix: the layout's input from the viewport, zoom, scroll and
// column leader, the scroll bars that follow from it, and the sizes the view asks for.

#include "matrix_view.h"

#include "group_band.h"
#include "readable_height.h"

#include <QFontMetricsF>
#include <QScrollBar>

#include <algorithm>

namespace tp {

void MatrixView::setColumnLeader(MatrixView* leader) {
    if (m_columnLeader)
        disconnect(m_columnLeader, nullptr, this, nullptr);
    m_columnLeader = leader;
    setHorizontalScrollBarPolicy(leader ? Qt::ScrollBarAlwaysOff : Qt::ScrollBarAsNeeded);
    if (leader) {
        connect(leader, &MatrixView::zoomChanged, this, &MatrixView::invalidateLayout);
        connect(leader->horizontalScrollBar(), &QScrollBar::valueChanged, this,
                &MatrixView::invalidateLayout);
        connect(leader->horizontalScrollBar(), &QScrollBar::rangeChanged, this,
                &MatrixView::invalidateLayout);
    }
    invalidateLayout();
}

qreal MatrixView::heightForSquareCells() const {
    if (!m_columnLeader || m_matrix.isEmpty())
        return 0;
    const qreal wanted = std::min(m_columnLeader->cellSize().height(), MatrixLayout::kMaxFitCell);
    return std::max<qreal>(0, wanted - cellSize().height());
}

MatrixLayout MatrixView::layout() const {
    return MatrixLayout(layoutInput());
}

MatrixLayoutInput MatrixView::layoutInput() const {
    MatrixLayoutInput in;
    in.viewport = viewport()->size();
    in.fitViewport = maximumViewportSize();
    in.rows = m_matrix.rows();
    in.cols = m_matrix.cols();
    if (!m_title.isEmpty()) {
        QFont titleFont = font();
        titleFont.setBold(true);
        in.titleHeight = QFontMetricsF(titleFont).height();
    }
    if (!m_style.groups.empty()) {
        if (m_bandExtent < 0) {
            std::vector<QString> labels;
            for (std::size_t k = 0; k < m_style.groups.size(); ++k)
                labels.push_back(
                    rangeText(k < m_labelRanges.size() ? m_labelRanges[k] : m_style.groups[k]));
            m_bandExtent = groupBandExtent(font(), m_style.groupAxis, labels);
        }
        in.band = m_style.groupAxis == Qt::Horizontal ? BandSide::Above : BandSide::Left;
        in.bandExtent = m_bandExtent;
    }
    in.zoom = m_zoom;
    in.horizontalAlign = m_horizontalAlign;
    in.maxFitCell = m_maxFitCell;
    in.scroll = QPoint(horizontalScrollBar()->value(), verticalScrollBar()->value());
    if (m_columnLeader && !m_matrix.isEmpty() && m_columnLeader->matrix().cols() == in.cols) {
        // The leader's first column, in this viewport's coordinates.
        const MatrixLayout lead = m_columnLeader->layout();
        const QWidget* top = window();
        const QPoint leaderOrigin = m_columnLeader->viewport()->mapTo(top, QPoint(0, 0));
        const QPoint ownOrigin = viewport()->mapTo(top, QPoint(0, 0));
        in.leader = LeaderColumns{lead.cell.width(),
                                  lead.origin.x() + qreal(leaderOrigin.x() - ownOrigin.x())};
    }
    return in;
}

NumbersLayout MatrixView::numbersLayout() const {
    return {layoutInput(), font(), m_widestText, frameWidth(),
            m_cellNumbers == CellNumbers::Hidden};
}

QSize MatrixView::sizeHint() const {
    return {480, 320};
}

QSize MatrixView::minimumSizeHint() const {
    return {120, leastViewHeight(font())};
}

void MatrixView::updateScrollBars() {
    const MatrixLayout l = layout();
    const QSize range = l.scrollRange();
    // A follower's columns scroll with its leader's scroll bar, never with its own.
    horizontalScrollBar()->setRange(0, m_columnLeader ? 0 : range.width());
    horizontalScrollBar()->setPageStep(int(l.area.width()));
    horizontalScrollBar()->setSingleStep(std::max(1, int(l.cell.width())));
    verticalScrollBar()->setRange(0, range.height());
    verticalScrollBar()->setPageStep(int(l.area.height()));
    verticalScrollBar()->setSingleStep(std::max(1, int(l.cell.height())));
}

void MatrixView::resizeEvent(QResizeEvent* event) {
    QAbstractScrollArea::resizeEvent(event);
    updateScrollBars();
}

}  // namespace tp
