#include "matrix_view.h"

#include "cell_image_cache.h"
#include "cell_text.h"
#include "cell_vector.h"
#include "group_band.h"
#include "hover_text.h"
#include "readable_height.h"
#include "title_row.h"

#include <QFontMetricsF>
#include <QGestureEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QNativeGestureEvent>
#include <QPaintEngine>
#include <QPainter>
#include <QPinchGesture>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace tp {

namespace {

constexpr double kZoomStep = 1.25;

// The image the visible cells need now: which cells, at which device size, with which decoration.
CellImageKey wantedKey(const MatrixLayout& l, quint64 generation, qreal dpr, bool numbers) {
    CellImageKey key;
    key.generation = generation;
    if (l.rows <= 0 || l.cols <= 0 || l.cell.isEmpty())
        return key;
    key.rows = l.visibleRows();
    key.cols = l.visibleCols();
    key.devicePixelRatio = dpr;
    key.deviceSize = l.visibleDeviceSize(dpr);
    key.numbers = numbers;
    key.grid = l.cell.width() >= 10 && l.cell.height() >= 10;
    return key;
}

}  // namespace

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
    m_traceRow = m_traceCol = -1;
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
    if (row == m_traceRow && col == m_traceCol && colour == m_traceColour)
        return;
    m_traceRow = row;
    m_traceCol = col;
    m_traceColour = colour;
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

IndexRange MatrixView::shownRange(std::size_t k) const {
    return k < m_labelRanges.size() ? m_labelRanges[k] : m_style.groups[k];
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
            labels.push_back(rangeText(shownRange(k)));
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

bool MatrixView::isRendering() const {
    return m_cache->isRendering();
}

int MatrixView::renderCount() const {
    return m_cache->renderCount();
}

QImage MatrixView::cachedImage() const {
    return m_cache->image();
}

void MatrixView::zoomIn() {
    setZoom(m_zoom * kZoomStep);
}

void MatrixView::zoomOut() {
    setZoom(m_zoom / kZoomStep);
}

void MatrixView::resetZoom() {
    setZoom(1.0);
}

void MatrixView::setZoom(double zoom, QPointF anchor) {
    const MatrixLayout before = layout();
    zoom = before.clampZoom(zoom);
    if (std::abs(zoom - m_zoom) < 1e-9)
        return;
    if (anchor.x() < 0 || anchor.y() < 0)
        anchor = before.area.center();
    QPointF matrixPoint(0, 0);  // in cells
    if (!before.cell.isEmpty())
        matrixPoint = QPointF((anchor.x() - before.origin.x()) / before.cell.width(),
                              (anchor.y() - before.origin.y()) / before.cell.height());
    m_zoom = zoom;
    updateScrollBars();
    const MatrixLayout after = layout();
    // Scroll so that the same matrix point stays under the anchor.
    const QPointF wantedOrigin(anchor.x() - matrixPoint.x() * after.cell.width(),
                               anchor.y() - matrixPoint.y() * after.cell.height());
    horizontalScrollBar()->setValue(int(std::lround(after.area.left() - wantedOrigin.x())));
    verticalScrollBar()->setValue(int(std::lround(after.area.top() - wantedOrigin.y())));
    viewport()->update();
    emit zoomChanged(m_zoom);
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

void MatrixView::requestImage(const MatrixLayout& l) {
    const CellImageKey key =
        wantedKey(l, m_generation, viewport()->devicePixelRatioF(), cellNumbersShown());
    if (key == m_cache->key() || m_matrix.isEmpty() || key.deviceSize.isEmpty())
        return;
    m_cache->request({key, m_matrix.block(key.rows, key.cols), blockStyle(key),
                      CellDecoration{key.grid, key.numbers, font(), numberPixelSize()}});
}

HeatmapStyle MatrixView::blockStyle(const CellImageKey& key) const {
    HeatmapStyle style =
        styleForBlock(m_style, key.rows.start, key.cols.start, key.rows.size(), key.cols.size());
    style.scale = effectiveScale();
    style.devicePixelRatio = key.devicePixelRatio;
    return style;
}

void MatrixView::paintEvent(QPaintEvent*) {
    QPainter painter(viewport());
    const MatrixLayout l = layout();
    painter.fillRect(viewport()->rect(), palette().color(QPalette::Window));
    paintTitle(painter, l);
    if (m_matrix.isEmpty())
        return;
    requestImage(l);
    paintCells(painter, l);
    if (!m_style.groups.empty()) {
        std::vector<IndexRange> shown;
        for (std::size_t k = 0; k < m_style.groups.size(); ++k)
            shown.push_back(shownRange(k));
        paintGroupBand(painter, m_style, shown, l, font(), palette());
    }
}

int MatrixView::scaleGroup() const {
    if (m_style.highlightedGroup >= 0)
        return m_style.highlightedGroup;
    if (m_style.groups.empty())
        return -1;
    return m_style.groupIds.empty() ? 0 : m_style.groupIds.front();
}

QRectF MatrixView::scaleRampRect(const MatrixLayout& l) const {
    if (m_matrix.isEmpty())
        return {};
    return titleScaleRamp(l, font(), scaleText(), m_zoom);
}

QString MatrixView::scaleText() const {
    return QStringLiteral("\u00b1") + cellText(effectiveScale());
}

void MatrixView::paintTitle(QPainter& painter, const MatrixLayout& l) {
    paintTitleRow(painter, l,
                  TitleRow{m_title, m_matrix.isEmpty() ? QString() : scaleText(), effectiveScale(),
                           scaleGroup(), m_zoom},
                  font(), palette());
}

// The cached image (1:1 when it is the wanted one, scaled while a newer one renders), the frame
// and the hovered cell, clipped to the area.
void MatrixView::paintCells(QPainter& painter, const MatrixLayout& l) {
    painter.save();
    painter.setClipRect(l.area);
    const QImage& image = m_cache->image();
    if (!image.isNull()) {
        const CellImageKey& key = m_cache->key();
        const qreal dpr = viewport()->devicePixelRatioF();
        QRectF target(l.origin.x() + qreal(key.cols.start) * l.cell.width(),
                      l.origin.y() + qreal(key.rows.start) * l.cell.height(),
                      qreal(key.cols.size()) * l.cell.width(),
                      qreal(key.rows.size()) * l.cell.height());
        if (key == wantedKey(l, m_generation, dpr, cellNumbersShown())) {
            // Exact: snap to device pixels and blit 1:1.
            target.moveTopLeft(QPointF(std::round(target.left() * dpr) / dpr,
                                       std::round(target.top() * dpr) / dpr));
            target.setSize(QSizeF(image.size()) / dpr);
        } else {
            painter.setRenderHint(QPainter::SmoothPixmapTransform);
        }
        // Into an SVG, the numbers go as text, so that the file keeps them readable and findable.
        if (key.numbers && painter.paintEngine() &&
            painter.paintEngine()->type() == QPaintEngine::SVG)
            paintBlockForVector(painter, target, m_matrix.block(key.rows, key.cols),
                                blockStyle(key), key.deviceSize,
                                CellDecoration{key.grid, key.numbers, font(), numberPixelSize()});
        else
            painter.drawImage(target, image);
    }
    // Frame: zero is white, so the sheet needs an edge on a light background.
    painter.setPen(QPen(palette().color(QPalette::Mid), 0));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(QRectF(l.origin, l.content).adjusted(-0.5, -0.5, 0.5, 0.5));

    // Traced row and column: a band in the tracing group's colour, white-edged on every map.
    const auto outline = [&](const QRectF& band) {
        painter.setPen(QPen(Qt::white, 4));
        painter.drawRect(band.adjusted(-1, -1, 1, 1));
        painter.setPen(QPen(m_traceColour, 2));
        painter.drawRect(band.adjusted(-1, -1, 1, 1));
    };
    if (m_traceRow >= 0 && m_traceRow < l.rows)
        outline(QRectF(l.origin.x(), l.origin.y() + m_traceRow * l.cell.height(), l.content.width(),
                       l.cell.height()));
    if (m_traceCol >= 0 && m_traceCol < l.cols)
        outline(QRectF(l.origin.x() + m_traceCol * l.cell.width(), l.origin.y(), l.cell.width(),
                       l.content.height()));

    if (m_hovered.x() >= 0 && l.cell.width() >= 3 && l.cell.height() >= 3) {
        const QRectF cell = l.cellRect(m_hovered.x(), m_hovered.y());
        painter.setPen(QPen(QColor(0x10, 0x10, 0x10), 2));
        painter.drawRect(cell.adjusted(1, 1, -1, -1));
        painter.setPen(QPen(Qt::white, 1));
        painter.drawRect(cell.adjusted(2.5, 2.5, -2.5, -2.5));
    }
    painter.restore();
}

void MatrixView::resizeEvent(QResizeEvent* event) {
    QAbstractScrollArea::resizeEvent(event);
    updateScrollBars();
}

void MatrixView::scrollContentsBy(int, int) {
    viewport()->update();
}

QString MatrixView::cellDescription(int row, int col) const {
    const QString name =
        m_title.isEmpty() ? QStringLiteral("value") : m_title.section(QStringLiteral(" ("), 0, 0);
    const int group = groupAt(m_style, row, col);
    QString span;
    if (group >= 0) {
        const bool byColumn = m_style.groupAxis == Qt::Horizontal;
        const Index position = byColumn ? col : row;
        IndexRange range;
        for (std::size_t k = 0; k < m_style.groups.size(); ++k) {
            const int id = k < m_style.groupIds.size() ? m_style.groupIds[k] : int(k);
            if (id == group && position >= m_style.groups[k].start &&
                position < m_style.groups[k].stop)
                range = shownRange(k);
        }
        const QString what = !m_labelWhat.isEmpty() ? m_labelWhat
                             : byColumn             ? QStringLiteral("columns")
                                                    : QStringLiteral("rows");
        span = what + QLatin1Char(' ') + rangeText(range);
    }
    return hoverText(name, row, col, m_matrix(row, col), group, span);
}

void MatrixView::updateHover(QPointF pos, QPoint globalPos) {
    const MatrixLayout l = layout();
    const QPoint cell = l.cellAt(pos);
    if (cell.x() < 0) {
        clearHover();
        return;
    }
    if (cell == m_hovered)
        return;
    m_hovered = cell;
    const int row = cell.x();
    const int col = cell.y();
    QToolTip::showText(globalPos, cellDescription(row, col), viewport(),
                       l.cellRect(row, col).toAlignedRect());
    viewport()->update();
    emit cellHovered(row, col, m_matrix(row, col), groupAt(m_style, row, col));
}

void MatrixView::clearHover() {
    if (m_hovered.x() < 0)
        return;
    m_hovered = {-1, -1};
    QToolTip::hideText();
    viewport()->update();
    emit hoverLeft();
}

bool MatrixView::viewportEvent(QEvent* event) {
    switch (event->type()) {
        case QEvent::Leave:
            clearHover();
            break;
        case QEvent::ToolTip:
            return true;  // tooltips follow the hovered cell (updateHover)
        case QEvent::NativeGesture: {
            auto* gesture = static_cast<QNativeGestureEvent*>(event);
            if (gesture->gestureType() == Qt::ZoomNativeGesture) {
                setZoom(m_zoom * (1.0 + gesture->value()), gesture->position());
                return true;
            }
            break;
        }
        case QEvent::Gesture: {
            auto* gestureEvent = static_cast<QGestureEvent*>(event);
            if (auto* pinch =
                    static_cast<QPinchGesture*>(gestureEvent->gesture(Qt::PinchGesture))) {
                const QPointF centre = viewport()->mapFromGlobal(pinch->centerPoint());
                setZoom(m_zoom * pinch->scaleFactor(), centre);
                gestureEvent->accept(pinch);
                return true;
            }
            break;
        }
        default:
            break;
    }
    return QAbstractScrollArea::viewportEvent(event);
}

void MatrixView::wheelEvent(QWheelEvent* event) {
    if (event->modifiers() & Qt::ControlModifier) {
        const double notches = event->angleDelta().y() / 120.0;
        if (notches != 0)
            setZoom(m_zoom * std::pow(kZoomStep, notches), event->position());
        event->accept();
        return;
    }
    QAbstractScrollArea::wheelEvent(event);
}

void MatrixView::keyPressEvent(QKeyEvent* event) {
    switch (event->key()) {
        case Qt::Key_Plus:
        case Qt::Key_Equal:
            zoomIn();
            return;
        case Qt::Key_Minus:
            zoomOut();
            return;
        case Qt::Key_0:
            resetZoom();
            return;
        default:
            QAbstractScrollArea::keyPressEvent(event);
    }
}

void MatrixView::mousePressEvent(QMouseEvent* event) {
    const bool scrollable =
        horizontalScrollBar()->maximum() > 0 || verticalScrollBar()->maximum() > 0;
    if (event->button() == Qt::LeftButton && scrollable) {
        m_dragging = true;
        m_dragStart = event->position();
        m_dragScrollStart = QPoint(horizontalScrollBar()->value(), verticalScrollBar()->value());
        viewport()->setCursor(Qt::ClosedHandCursor);
        event->accept();
        return;
    }
    QAbstractScrollArea::mousePressEvent(event);
}

void MatrixView::mouseMoveEvent(QMouseEvent* event) {
    if (m_dragging) {
        const QPointF delta = event->position() - m_dragStart;
        horizontalScrollBar()->setValue(m_dragScrollStart.x() - int(std::lround(delta.x())));
        verticalScrollBar()->setValue(m_dragScrollStart.y() - int(std::lround(delta.y())));
    }
    updateHover(event->position(), event->globalPosition().toPoint());
}

void MatrixView::mouseReleaseEvent(QMouseEvent* event) {
    if (m_dragging && event->button() == Qt::LeftButton) {
        m_dragging = false;
        viewport()->unsetCursor();
        event->accept();
        return;
    }
    QAbstractScrollArea::mouseReleaseEvent(event);
}

void MatrixView::leaveEvent(QEvent* event) {
    clearHover();
    QAbstractScrollArea::leaveEvent(event);
}

void MatrixView::changeEvent(QEvent* event) {
    if (event->type() == QEvent::FontChange || event->type() == QEvent::PaletteChange ||
        event->type() == QEvent::StyleChange)
        invalidate();
    QAbstractScrollArea::changeEvent(event);
}

}  // namespace tp
