#include "matrix_view.h"

#include "cell_image_cache.h"
#include "cell_text.h"
#include "group_band.h"
#include "hover_text.h"
#include "readable_height.h"

#include <QEvent>
#include <QFontMetricsF>
#include <QScrollBar>

#include <algorithm>
#include <cmath>

namespace tp {

MatrixView::MatrixView(QWidget* parent)
    : QAbstractScrollArea(parent), m_cache(new CellImageCache(this)) {
    setFrameShape(QFrame::NoFrame);
    setFocusPolicy(Qt::WheelFocus);
    viewport()->setMouseTracking(true);
    viewport()->setBackgroundRole(QPalette::Window);
    viewport()->grabGesture(Qt::PinchGesture);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    connect(m_cache, &CellImageCache::imageReady, viewport(), qOverload<>(&QWidget::update));
}

MatrixView::~MatrixView() = default;

void MatrixView::setMatrix(MatrixData matrix, std::optional<float> knownMaxAbs) {
    const float before = effectiveScale();
    m_matrix = std::move(matrix);
    m_marks.traceRow = m_marks.traceCol = -1;
    // A matrix known to be finite with its largest |element| needs no scan (a big kernel is
    // scanned once, by the scene's own pass over it); any other is scanned for both.
    m_autoScale = m_matrix.isEmpty() ? 1.0f : knownMaxAbs ? *knownMaxAbs : maxAbs(m_matrix);
    m_nonFinite = m_matrix.isEmpty() || knownMaxAbs ? NonFiniteKinds{} : nonFiniteKinds(m_matrix);
    // One font size for the whole matrix: the one its widest text fits. A matrix too big to scan
    // assumes the widest form there is.
    const long long count = m_matrix.isEmpty() ? 0 : m_matrix.rows() * m_matrix.cols();
    const Index cols = m_matrix.cols();
    m_widestText = count > kScannedCells ? QStringLiteral("-8.8e-88")
                                         : widestCellText(count, [&](long long i) {
                                               return m_matrix(Index(i / cols), Index(i % cols));
                                           });
    if (!(m_autoScale > 0.0f) || !std::isfinite(m_autoScale))
        m_autoScale = 1.0f;
    clearHover();
    invalidate();
    if (effectiveScale() != before)
        emit effectiveScaleChanged(effectiveScale());
}

void MatrixView::setGroups(std::vector<IndexRange> groups, Qt::Orientation axis,
                           std::vector<int> groupIds) {
    m_style.groups = std::move(groups);
    m_style.groupIds = std::move(groupIds);
    m_style.groupAxis = axis;
    invalidate();
}

void MatrixView::setHighlightedGroup(int group) {
    if (group == m_style.highlightedGroup)
        return;
    m_style.highlightedGroup = group;
    invalidate();
}

void MatrixView::setMaxFitCell(qreal side) {
    if (std::abs(side - m_maxFitCell) < 0.5)
        return;
    m_maxFitCell = side;
    invalidateLayout();
}

void MatrixView::setHorizontalAlignment(Qt::Alignment align) {
    m_horizontalAlign = align;
    invalidateLayout();
}

void MatrixView::setTraceLines(int row, int col, const QColor& colour) {
    if (row == m_marks.traceRow && col == m_marks.traceCol && colour == m_marks.traceColour)
        return;
    m_marks.traceRow = row;
    m_marks.traceCol = col;
    m_marks.traceColour = colour;
    viewport()->update();
}

void MatrixView::setTitle(const QString& title) {
    if (title == m_title)
        return;
    m_title = title;
    invalidateLayout();
}

void MatrixView::setScale(float scale) {
    const float before = effectiveScale();
    m_style.scale = std::max(0.0f, scale);
    invalidate();
    if (effectiveScale() != before)
        emit effectiveScaleChanged(effectiveScale());
}

float MatrixView::effectiveScale() const {
    return m_style.scale > 0.0f ? m_style.scale : m_autoScale;
}

void MatrixView::setCellNumbersVisible(bool visible) {
    setCellNumbers(visible ? CellNumbers::Shown : CellNumbers::Hidden);
}

void MatrixView::setCellNumbers(CellNumbers mode) {
    m_cellNumbers = mode;
    invalidate();
}

bool MatrixView::cellNumbersShown() const {
    if (m_matrix.isEmpty())
        return false;
    return numberPixelSize() > 0;
}

int MatrixView::numberPixelSize() const {
    if (m_matrix.isEmpty() || m_cellNumbers == CellNumbers::Hidden)
        return 0;
    return tp::numberPixelSize(font(), cellSize(), m_widestText);
}

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

void MatrixView::setGroupLabelRanges(std::vector<IndexRange> ranges, QString what) {
    m_labelRanges = std::move(ranges);
    m_labelWhat = std::move(what);
    invalidateLayout();
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
        std::vector<QString> labels;
        for (std::size_t k = 0; k < m_style.groups.size(); ++k)
            labels.push_back(
                rangeText(k < m_labelRanges.size() ? m_labelRanges[k] : m_style.groups[k]));
        in.band = m_style.groupAxis == Qt::Horizontal ? BandSide::Above : BandSide::Left;
        in.bandExtent = groupBandExtent(font(), m_style.groupAxis, labels);
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

bool MatrixView::isRendering() const {
    return m_cache->isRendering();
}

int MatrixView::renderCount() const {
    return m_cache->renderCount();
}

QImage MatrixView::cachedImage() const {
    return m_cache->image();
}

QSize MatrixView::sizeHint() const {
    return {480, 320};
}

QSize MatrixView::minimumSizeHint() const {
    return {120, leastViewHeight(font())};
}

void MatrixView::invalidate() {
    ++m_generation;
    invalidateLayout();
}

void MatrixView::invalidateLayout() {
    updateScrollBars();
    viewport()->update();
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

void MatrixView::scrollContentsBy(int, int) {
    viewport()->update();
}

QString MatrixView::cellDescription(int row, int col) const {
    const QString name = m_name.isEmpty() ? QStringLiteral("value") : m_name;
    return hoverText(name, row, col, m_matrix(row, col), groupAt(m_style, row, col),
                     groupSpanText(m_style, m_labelRanges, m_labelWhat, row, col));
}

void MatrixView::changeEvent(QEvent* event) {
    if (event->type() == QEvent::FontChange || event->type() == QEvent::PaletteChange ||
        event->type() == QEvent::StyleChange)
        invalidate();
    QAbstractScrollArea::changeEvent(event);
}

}  // namespace tp
