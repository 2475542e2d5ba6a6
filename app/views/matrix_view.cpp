#include "matrix_view.h"

#include "cell_image_cache.h"
#include "cell_text.h"
#include "group_band.h"
#include "hover_text.h"

#include <QEvent>

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
    m_bandExtent = -1;
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

void MatrixView::setGroupLabelRanges(std::vector<IndexRange> ranges, QString what) {
    m_labelRanges = std::move(ranges);
    m_labelWhat = std::move(what);
    m_bandExtent = -1;
    invalidateLayout();
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

void MatrixView::invalidate() {
    ++m_generation;
    invalidateLayout();
}

void MatrixView::invalidateLayout() {
    updateScrollBars();
    viewport()->update();
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
        event->type() == QEvent::StyleChange) {
        m_bandExtent = -1;
        invalidate();
    }
    QAbstractScrollArea::changeEvent(event);
}

}  // namespace tp
