#include "matrix_view.h"

#include "float_format.h"
#include "palette.h"

#include <QFontMetricsF>
#include <QGestureEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QNativeGestureEvent>
#include <QPainter>
#include <QPinchGesture>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>

namespace tp {

namespace {

constexpr qreal kMargin = 6;
constexpr qreal kStripThickness = 5;
constexpr qreal kMaxFitCell = 80;    // a 2x4 matrix should not fill a whole monitor
constexpr qreal kMinSquareCell = 4;  // below this, fitting stretches cells to use the space
constexpr qreal kFixedCell = 32;     // zoom 1 without fit-to-view
constexpr qreal kMaxCell = 400;
constexpr double kZoomStep = 1.25;
constexpr double kMinZoom = 0.25;
// Renders of up to this many elements and pixels run on the UI thread (they take well under a
// millisecond); larger ones run on a worker while the previous image stays on screen.
constexpr double kSyncRenderLimit = 1 << 20;

QString rangeText(IndexRange range) {
    return QStringLiteral("[%1:%2)").arg(range.start).arg(range.stop);
}

QColor blend(const QColor& a, const QColor& b, qreal amountOfB) {
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * amountOfB),
                            float(a.greenF() + (b.greenF() - a.greenF()) * amountOfB),
                            float(a.blueF() + (b.blueF() - a.blueF()) * amountOfB));
}

// The first device pixel of element `e` when `count` elements span `pixels` pixels: the inverse of
// elementsOfPixel(), so grid lines and numbers land exactly on the heatmap's cells.
int firstPixelOf(Index e, Index count, Index pixels) {
    return int((e * pixels + count - 1) / count);
}

// The style for the sub-block starting at (rowOffset, colOffset): group ranges shifted and clipped.
HeatmapStyle styleForBlock(const HeatmapStyle& style, Index rowOffset, Index colOffset, Index rows,
                           Index cols) {
    HeatmapStyle result = style;
    const bool byColumn = style.groupAxis == Qt::Horizontal;
    const Index offset = byColumn ? colOffset : rowOffset;
    const Index extent = byColumn ? cols : rows;
    result.groupIds.clear();
    result.groups.clear();
    for (std::size_t k = 0; k < style.groups.size(); ++k) {
        const Index start = std::clamp<Index>(style.groups[k].start - offset, 0, extent);
        const Index stop = std::clamp<Index>(style.groups[k].stop - offset, 0, extent);
        result.groups.push_back({start, stop});
        result.groupIds.push_back(k < style.groupIds.size() ? style.groupIds[k] : int(k));
    }
    return result;
}

struct Decoration {
    bool grid = false;
    bool numbers = false;
    QFont font;
};

// Heatmap of the block plus what depends on the same inputs: cell grid, white gaps at group
// boundaries and the values printed in cells. Pure; safe on a worker thread.
QImage renderBlock(const MatrixData& block, const HeatmapStyle& style, QSize deviceSize,
                   const Decoration& decoration) {
    QImage image = renderHeatmap(block, style, deviceSize);
    if (image.isNull())
        return image;
    const qreal dpr = style.devicePixelRatio;
    const int width = image.width();
    const int height = image.height();
    const Index rows = block.rows();
    const Index cols = block.cols();

    // Colours of cell centres, read before anything is drawn over them.
    std::vector<QRgb> centre;
    if (decoration.numbers) {
        centre.resize(std::size_t(rows * cols));
        for (Index r = 0; r < rows; ++r) {
            const int y = (firstPixelOf(r, rows, height) + firstPixelOf(r + 1, rows, height)) / 2;
            for (Index c = 0; c < cols; ++c) {
                const int x = (firstPixelOf(c, cols, width) + firstPixelOf(c + 1, cols, width)) / 2;
                centre[std::size_t(r * cols + c)] =
                    image.pixel(std::min(x, width - 1), std::min(y, height - 1));
            }
        }
    }

    image.setDevicePixelRatio(1);  // paint in device pixels, where the cell edges are exact
    QPainter painter(&image);
    if (decoration.grid) {
        const int line = std::max(1, int(std::lround(dpr)));
        const QColor gridColor(255, 255, 255, 150);
        for (Index c = 1; c < cols; ++c)
            painter.fillRect(firstPixelOf(c, cols, width), 0, line, height, gridColor);
        for (Index r = 1; r < rows; ++r)
            painter.fillRect(0, firstPixelOf(r, rows, height), width, line, gridColor);
    }
    // Group boundaries: a white gap, like the space between devices.
    const bool byColumn = style.groupAxis == Qt::Horizontal;
    const Index extent = byColumn ? cols : rows;
    const int pixels = byColumn ? width : height;
    const int gap = std::max(2, int(std::lround(2 * dpr)));
    for (const IndexRange& range : style.groups) {
        for (const Index boundary : {range.start, range.stop}) {
            if (boundary <= 0 || boundary >= extent)
                continue;
            const int p = firstPixelOf(boundary, extent, pixels) - gap / 2;
            if (byColumn)
                painter.fillRect(p, 0, gap, height, Qt::white);
            else
                painter.fillRect(0, p, width, gap, Qt::white);
        }
    }
    if (decoration.numbers) {
        const qreal cellW = qreal(width) / qreal(cols);
        const qreal cellH = qreal(height) / qreal(rows);
        QFont font = decoration.font;
        font.setPixelSize(std::max(
            1, int(std::lround(
                   std::clamp(std::min(cellH / dpr * 0.42, cellW / dpr * 0.3), 7.0, 14.0) * dpr))));
        painter.setFont(font);
        painter.setRenderHint(QPainter::TextAntialiasing);
        const QFontMetricsF metrics(font);
        const qreal room = cellW - 4 * dpr;
        for (Index r = 0; r < rows; ++r) {
            const int y0 = firstPixelOf(r, rows, height);
            const int y1 = firstPixelOf(r + 1, rows, height);
            for (Index c = 0; c < cols; ++c) {
                const float v = block(r, c);
                // Shorter forms until one fits: 3 then 2 significant digits, then fixed 2 or 1
                // decimals, so that small values (-0.0123) still show as "-0.01" not a blank.
                QString text;
                for (const QString& candidate :
                     {QString::fromStdString(formatFloatShort(v, 3)),
                      QString::fromStdString(formatFloatShort(v, 2)), QString::number(v, 'f', 2),
                      QString::number(v, 'f', 1)}) {
                    if (metrics.horizontalAdvance(candidate) <= room) {
                        text = candidate;
                        break;
                    }
                }
                if (text.isEmpty())
                    continue;
                const int x0 = firstPixelOf(c, cols, width);
                const int x1 = firstPixelOf(c + 1, cols, width);
                const QRgb under = centre[std::size_t(r * cols + c)];
                painter.setPen(qGray(under) < 140 ? QColor(Qt::white) : QColor(0x20, 0x20, 0x20));
                painter.drawText(QRectF(x0, y0, x1 - x0, y1 - y0), Qt::AlignCenter, text);
            }
        }
    }
    painter.end();
    image.setDevicePixelRatio(dpr);
    return image;
}

}  // namespace

struct MatrixView::Layout {
    QRectF title;    ///< the title row
    QRectF band;     ///< group labels: above the cells (Horizontal) or left of them (Vertical)
    QRectF area;     ///< where cells may be drawn (clip)
    QSizeF base;     ///< cell size at zoom 1
    QSizeF cell;     ///< cell size at the current zoom
    QSizeF content;  ///< the whole matrix at the current zoom
    QPointF origin;  ///< viewport position of the matrix's top-left corner
};

MatrixView::MatrixView(QWidget* parent) : QAbstractScrollArea(parent) {
    setFrameShape(QFrame::NoFrame);
    setFocusPolicy(Qt::WheelFocus);
    viewport()->setMouseTracking(true);
    viewport()->setBackgroundRole(QPalette::Window);
    viewport()->grabGesture(Qt::PinchGesture);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    m_watcher = new QFutureWatcher<Rendered>(this);
    connect(m_watcher, &QFutureWatcher<Rendered>::finished, this, &MatrixView::onRenderFinished);
}

MatrixView::~MatrixView() {
    // The worker holds its own MatrixData (and so the owner); waiting only avoids a late signal.
    m_watcher->waitForFinished();
}

void MatrixView::setMatrix(MatrixData matrix) {
    const float before = effectiveScale();
    m_matrix = std::move(matrix);
    m_autoScale = m_matrix.isEmpty() ? 1.0f : maxAbs(m_matrix);
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

void MatrixView::setTitle(const QString& title) {
    if (title == m_title)
        return;
    m_title = title;
    updateScrollBars();
    viewport()->update();
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

void MatrixView::setDownsample(Downsample downsample) {
    m_style.downsample = downsample;
    invalidate();
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
    const QSizeF cell = cellSize();
    switch (m_cellNumbers) {
        case CellNumbers::Auto:
            return cell.width() >= 28 && cell.height() >= 16;
        case CellNumbers::Shown:
            return cell.width() >= 14 && cell.height() >= 10;
        case CellNumbers::Hidden:
            return false;
    }
    return false;
}

void MatrixView::setFitToView(bool fit) {
    if (fit == m_fitToView)
        return;
    m_fitToView = fit;
    resetZoom();
    updateScrollBars();
    viewport()->update();
}

QSizeF MatrixView::cellSize() const {
    return layout().cell;
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
    const Layout before = layout();
    const qreal baseMin = std::min(before.base.width(), before.base.height());
    const double maxZoom = baseMin > 0 ? std::max(1.0, kMaxCell / baseMin) : 1.0;
    zoom = std::clamp(zoom, kMinZoom, maxZoom);
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
    const Layout after = layout();
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
    return {120, 80};
}

QString MatrixView::groupLabel(std::size_t k) const {
    return rangeText(shownRange(k));
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

void MatrixView::invalidateLayout() {
    updateScrollBars();
    viewport()->update();
}

IndexRange MatrixView::shownRange(std::size_t k) const {
    return k < m_labelRanges.size() ? m_labelRanges[k] : m_style.groups[k];
}

void MatrixView::setGroupLabelRanges(std::vector<IndexRange> ranges) {
    m_labelRanges = std::move(ranges);
    viewport()->update();
}

MatrixView::Layout MatrixView::layout() const {
    Layout l;
    const QRectF vp = viewport()->rect();
    const QFontMetricsF metrics(font());
    QFont titleFont = font();
    titleFont.setBold(true);
    const QFontMetricsF titleMetrics(titleFont);

    qreal top = kMargin;
    qreal left = kMargin;
    if (!m_title.isEmpty()) {
        l.title = QRectF(kMargin, top, vp.width() - 2 * kMargin, titleMetrics.height());
        top += l.title.height() + 4;
    }
    const bool haveGroups = !m_style.groups.empty();
    const bool byColumn = m_style.groupAxis == Qt::Horizontal;
    qreal bandExtent = 0;
    if (haveGroups && byColumn) {
        bandExtent = metrics.height() + kStripThickness + 4;
        l.band = QRectF(kMargin, top, vp.width() - 2 * kMargin, bandExtent);
        top += bandExtent + 2;
    } else if (haveGroups) {
        // Wide enough for every range label in bold (the highlighted group's).
        QFont bold = font();
        bold.setBold(true);
        const QFontMetricsF boldMetrics(bold);
        qreal widest = 0;
        for (std::size_t k = 0; k < m_style.groups.size(); ++k)
            widest = std::max(widest, boldMetrics.horizontalAdvance(groupLabel(k)) + 1);
        bandExtent = std::min<qreal>(widest, 120) + kStripThickness + 8;
        l.band = QRectF(left, top, bandExtent, 0);
        left += bandExtent + 2;
    }
    l.area = QRectF(left, top, std::max<qreal>(1, vp.width() - left - kMargin),
                    std::max<qreal>(1, vp.height() - top - kMargin));
    if (haveGroups && !byColumn)
        l.band.setHeight(l.area.height());

    if (m_matrix.isEmpty())
        return l;
    const qreal rows = qreal(m_matrix.rows());
    const qreal cols = qreal(m_matrix.cols());
    if (m_fitToView) {
        const qreal fitW = l.area.width() / cols;
        const qreal fitH = l.area.height() / rows;
        const qreal square = std::min(fitW, fitH);
        if (square >= kMinSquareCell)
            l.base = QSizeF(std::min(square, kMaxFitCell), std::min(square, kMaxFitCell));
        else
            l.base = QSizeF(std::min(fitW, kMaxFitCell), std::min(fitH, kMaxFitCell));
    } else {
        l.base = QSizeF(kFixedCell, kFixedCell);
    }
    // Zooming in grows the smaller side of a stretched cell first, so cells become square before
    // they grow further; zooming out shrinks both.
    const qreal baseMin = std::min(l.base.width(), l.base.height());
    const auto zoomed = [&](qreal base) {
        return m_zoom <= 1.0 ? base * m_zoom : std::max(base, baseMin * m_zoom);
    };
    l.cell = QSizeF(zoomed(l.base.width()), zoomed(l.base.height()));
    const bool following = m_columnLeader && m_columnLeader->matrix().cols() == m_matrix.cols();
    Layout lead;
    if (following) {
        lead = m_columnLeader->layout();
        l.cell = QSizeF(lead.cell.width(), std::min(lead.cell.width(), l.area.height() / rows));
    }
    l.content = QSizeF(cols * l.cell.width(), rows * l.cell.height());

    qreal x = l.content.width() <= l.area.width()
                  ? l.area.left() + std::floor((l.area.width() - l.content.width()) / 2)
                  : l.area.left() - horizontalScrollBar()->value();
    if (following) {  // the leader's first column, in this viewport's coordinates
        const QWidget* top = window();
        const QPoint leaderOrigin = m_columnLeader->viewport()->mapTo(top, QPoint(0, 0));
        const QPoint ownOrigin = viewport()->mapTo(top, QPoint(0, 0));
        x = lead.origin.x() + qreal(leaderOrigin.x() - ownOrigin.x());
    }
    const qreal y = l.content.height() <= l.area.height()
                        ? l.area.top() + std::floor((l.area.height() - l.content.height()) / 2)
                        : l.area.top() - verticalScrollBar()->value();
    l.origin = QPointF(x, y);
    // The band hugs the cells when they are centred.
    if (haveGroups && byColumn)
        l.band.moveTop(std::max(l.band.top(), y - bandExtent - 2));
    else if (haveGroups)
        l.band.moveLeft(std::max(l.band.left(), x - bandExtent - 2));
    return l;
}

void MatrixView::invalidate() {
    ++m_generation;
    updateScrollBars();
    viewport()->update();
}

void MatrixView::updateScrollBars() {
    const Layout l = layout();
    const int rangeX = int(std::ceil(std::max<qreal>(0, l.content.width() - l.area.width())));
    const int rangeY = int(std::ceil(std::max<qreal>(0, l.content.height() - l.area.height())));
    horizontalScrollBar()->setRange(0, rangeX);
    horizontalScrollBar()->setPageStep(int(l.area.width()));
    horizontalScrollBar()->setSingleStep(std::max(1, int(l.cell.width())));
    verticalScrollBar()->setRange(0, rangeY);
    verticalScrollBar()->setPageStep(int(l.area.height()));
    verticalScrollBar()->setSingleStep(std::max(1, int(l.cell.height())));
}

MatrixView::CacheKey MatrixView::wantedKey(const Layout& l) const {
    CacheKey key;
    key.generation = m_generation;
    if (m_matrix.isEmpty() || l.cell.isEmpty())
        return key;
    const qreal dpr = viewport()->devicePixelRatioF();
    const auto visible = [](qreal areaStart, qreal areaEnd, qreal origin, qreal cell, Index count) {
        const qreal from = std::max<qreal>(0, areaStart - origin);
        const qreal to = std::min<qreal>(qreal(count) * cell, areaEnd - origin);
        Index first = std::clamp<Index>(Index(std::floor(from / cell)), 0, count - 1);
        Index last = std::clamp<Index>(Index(std::ceil(to / cell)), first + 1, count);
        return IndexRange{first, last};
    };
    key.cols =
        visible(l.area.left(), l.area.right(), l.origin.x(), l.cell.width(), m_matrix.cols());
    key.rows =
        visible(l.area.top(), l.area.bottom(), l.origin.y(), l.cell.height(), m_matrix.rows());
    key.devicePixelRatio = dpr;
    key.deviceSize =
        QSize(std::max(1, int(std::lround(qreal(key.cols.size()) * l.cell.width() * dpr))),
              std::max(1, int(std::lround(qreal(key.rows.size()) * l.cell.height() * dpr))));
    key.numbers = cellNumbersShown();
    key.grid = l.cell.width() >= 10 && l.cell.height() >= 10;
    return key;
}

void MatrixView::ensureImage(const Layout& l) {
    const CacheKey key = wantedKey(l);
    if (key == m_cacheKey || m_matrix.isEmpty() || key.deviceSize.isEmpty())
        return;
    if (m_watcher->isRunning()) {
        if (!(m_pendingKey == key))
            m_renderAgain = true;  // start the latest request when this one ends
        return;
    }
    const MatrixData block = m_matrix.block(key.rows, key.cols);
    HeatmapStyle style =
        styleForBlock(m_style, key.rows.start, key.cols.start, key.rows.size(), key.cols.size());
    style.scale = effectiveScale();
    style.devicePixelRatio = key.devicePixelRatio;
    const Decoration decoration{key.grid, key.numbers, font()};
    const double work = double(block.rows()) * double(block.cols()) +
                        double(key.deviceSize.width()) * double(key.deviceSize.height());
    if (work <= kSyncRenderLimit) {
        m_cache = renderBlock(block, style, key.deviceSize, decoration);
        m_cacheKey = key;
        ++m_renderCount;
        return;
    }
    m_pendingKey = key;
    m_renderAgain = false;
    m_watcher->setFuture(QtConcurrent::run([block, style, key, decoration] {
        return Rendered{renderBlock(block, style, key.deviceSize, decoration), key};
    }));
}

void MatrixView::onRenderFinished() {
    Rendered rendered = m_watcher->result();
    ++m_renderCount;
    // A result for an older generation is still better than nothing while the new one renders.
    m_cache = std::move(rendered.image);
    m_cacheKey = rendered.key;
    m_pendingKey = {};
    viewport()->update();
}

void MatrixView::paintEvent(QPaintEvent*) {
    QPainter painter(viewport());
    const Layout l = layout();
    const QPalette& pal = palette();
    painter.fillRect(viewport()->rect(), pal.color(QPalette::Window));

    QFont titleFont = font();
    titleFont.setBold(true);
    if (!l.title.isEmpty()) {
        painter.setFont(titleFont);
        painter.setPen(pal.color(QPalette::WindowText));
        painter.drawText(
            l.title, Qt::AlignLeft | Qt::AlignVCenter,
            QFontMetricsF(titleFont).elidedText(m_title, Qt::ElideRight, l.title.width() - 60));
        if (std::abs(m_zoom - 1.0) > 1e-6) {
            painter.setFont(font());
            painter.setPen(pal.color(QPalette::PlaceholderText));
            painter.drawText(l.title, Qt::AlignRight | Qt::AlignVCenter,
                             QStringLiteral("%1%").arg(std::lround(m_zoom * 100)));
        }
    }
    if (m_matrix.isEmpty())
        return;

    ensureImage(l);
    const QRectF matrixRect(l.origin, l.content);
    const QRectF visibleMatrix = matrixRect.intersected(l.area);
    painter.save();
    painter.setClipRect(l.area);
    if (!m_cache.isNull()) {
        const qreal dpr = viewport()->devicePixelRatioF();
        QRectF target(l.origin.x() + qreal(m_cacheKey.cols.start) * l.cell.width(),
                      l.origin.y() + qreal(m_cacheKey.rows.start) * l.cell.height(),
                      qreal(m_cacheKey.cols.size()) * l.cell.width(),
                      qreal(m_cacheKey.rows.size()) * l.cell.height());
        if (m_cacheKey == wantedKey(l)) {
            // Exact: snap to device pixels and blit 1:1.
            target.moveTopLeft(QPointF(std::round(target.left() * dpr) / dpr,
                                       std::round(target.top() * dpr) / dpr));
            target.setSize(QSizeF(m_cache.size()) / dpr);
        } else {
            painter.setRenderHint(QPainter::SmoothPixmapTransform);
        }
        painter.drawImage(target, m_cache);
    }
    // Frame: zero is white, so the sheet needs an edge on a light background.
    painter.setPen(QPen(pal.color(QPalette::Mid), 0));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(matrixRect.adjusted(-0.5, -0.5, 0.5, 0.5));

    // Hovered cell.
    if (m_hovered.x() >= 0 && l.cell.width() >= 3 && l.cell.height() >= 3) {
        const QRectF cell = cellRect(m_hovered.x(), m_hovered.y());
        painter.setPen(QPen(QColor(0x10, 0x10, 0x10), 2));
        painter.drawRect(cell.adjusted(1, 1, -1, -1));
        painter.setPen(QPen(Qt::white, 1));
        painter.drawRect(cell.adjusted(2.5, 2.5, -2.5, -2.5));
    }
    painter.restore();

    // Group band: a strip in each group's colour, labelled with its range where the label fits.
    if (m_style.groups.empty())
        return;
    const bool byColumn = m_style.groupAxis == Qt::Horizontal;
    const QFontMetricsF metrics(font());
    const QColor background = pal.color(QPalette::Window);

    struct Visible {
        int id;
        IndexRange range;
        IndexRange shown;  ///< the range its label names
        QRectF strip;      ///< the coloured strip
        QRectF label;      ///< room for the label
    };
    std::vector<Visible> visible;
    for (std::size_t k = 0; k < m_style.groups.size(); ++k) {
        const IndexRange range = m_style.groups[k];
        if (range.size() <= 0)
            continue;
        const int id = k < m_style.groupIds.size() ? m_style.groupIds[k] : int(k);
        if (byColumn) {
            const qreal x0 =
                std::max(l.origin.x() + qreal(range.start) * l.cell.width(), visibleMatrix.left());
            const qreal x1 =
                std::min(l.origin.x() + qreal(range.stop) * l.cell.width(), visibleMatrix.right());
            if (x1 - x0 < 1)
                continue;
            visible.push_back(
                {id, range, shownRange(k),
                 QRectF(x0 + 1, l.band.bottom() - kStripThickness, x1 - x0 - 2, kStripThickness),
                 QRectF(x0 + 2, l.band.top(), x1 - x0 - 4, l.band.height() - kStripThickness - 1)});
        } else {
            const qreal y0 =
                std::max(l.origin.y() + qreal(range.start) * l.cell.height(), visibleMatrix.top());
            const qreal y1 = std::min(l.origin.y() + qreal(range.stop) * l.cell.height(),
                                      visibleMatrix.bottom());
            if (y1 - y0 < 1)
                continue;
            visible.push_back(
                {id, range, shownRange(k),
                 QRectF(l.band.right() - kStripThickness, y0 + 1, kStripThickness, y1 - y0 - 2),
                 QRectF(l.band.left(), y0, l.band.width() - kStripThickness - 4, y1 - y0)});
        }
    }

    // One label style for all groups when one fits them all (the richest that does); otherwise
    // each group gets the richest that fits it, or none.
    const auto labelText = [&](const Visible& g, int format) {
        switch (format) {
            case 0:
                return QStringLiteral("group %1 \u00b7 %2").arg(g.id).arg(rangeText(g.shown));
            case 1:
                return rangeText(g.shown);
            case 2:
                return QStringLiteral("g%1").arg(g.id);
            default:
                return QString::number(g.id);
        }
    };
    const auto fits = [&](const Visible& g, int format) {
        if (!byColumn && g.label.height() < metrics.height())
            return false;
        QFont bold = font();
        bold.setBold(true);
        return QFontMetricsF(bold).horizontalAdvance(labelText(g, format)) <= g.label.width();
    };
    const int firstFormat = byColumn ? 0 : 1;
    int common = -1;
    for (int format = firstFormat; format <= 3 && common < 0; ++format) {
        if (std::all_of(visible.begin(), visible.end(),
                        [&](const Visible& g) { return fits(g, format); }))
            common = format;
    }

    for (const Visible& g : visible) {
        const bool dimmed = m_style.highlightedGroup >= 0 && g.id != m_style.highlightedGroup;
        const bool highlighted = m_style.highlightedGroup >= 0 && g.id == m_style.highlightedGroup;
        QColor color = groupColor(g.id);
        if (dimmed)
            color = blend(color, background, 0.7);
        painter.fillRect(g.strip, color);
        if (groupHatched(g.id))
            painter.fillRect(g.strip, QBrush(Qt::white, Qt::BDiagPattern));

        int format = common;
        for (int f = firstFormat; f <= 3 && format < 0; ++f) {
            if (fits(g, f))
                format = f;
        }
        if (format < 0)
            continue;
        QFont labelFont = font();
        labelFont.setBold(highlighted);
        painter.setFont(labelFont);
        painter.setPen(dimmed ? pal.color(QPalette::PlaceholderText)
                              : pal.color(QPalette::WindowText));
        painter.drawText(
            g.label,
            byColumn ? (Qt::AlignHCenter | Qt::AlignBottom) : (Qt::AlignRight | Qt::AlignVCenter),
            labelText(g, format));
    }
}

void MatrixView::resizeEvent(QResizeEvent* event) {
    QAbstractScrollArea::resizeEvent(event);
    updateScrollBars();
}

void MatrixView::scrollContentsBy(int, int) {
    viewport()->update();
}

QPoint MatrixView::cellAt(QPointF pos) const {
    const Layout l = layout();
    if (m_matrix.isEmpty() || l.cell.isEmpty() || !l.area.contains(pos))
        return {-1, -1};
    const qreal u = (pos.x() - l.origin.x()) / l.cell.width();
    const qreal v = (pos.y() - l.origin.y()) / l.cell.height();
    if (u < 0 || v < 0 || u >= qreal(m_matrix.cols()) || v >= qreal(m_matrix.rows()))
        return {-1, -1};
    return {int(v), int(u)};
}

QRectF MatrixView::cellRect(Index row, Index col) const {
    const Layout l = layout();
    return QRectF(l.origin.x() + qreal(col) * l.cell.width(),
                  l.origin.y() + qreal(row) * l.cell.height(), l.cell.width(), l.cell.height());
}

void MatrixView::updateHover(QPointF pos, QPoint globalPos) {
    const QPoint cell = cellAt(pos);
    if (cell.x() < 0) {
        clearHover();
        return;
    }
    if (cell == m_hovered)
        return;
    m_hovered = cell;
    const int row = cell.x();
    const int col = cell.y();
    const float value = m_matrix(row, col);
    const int group = groupAt(m_style, row, col);
    const QString text = cellDescription(row, col);
    QToolTip::showText(globalPos, text, viewport(), cellRect(row, col).toAlignedRect());
    viewport()->update();
    emit cellHovered(row, col, value, group);
}

QString MatrixView::cellDescription(int row, int col) const {
    const float value = m_matrix(row, col);
    const int group = groupAt(m_style, row, col);

    const QString name =
        m_title.isEmpty() ? QStringLiteral("value") : m_title.section(QStringLiteral(" ("), 0, 0);
    QString text = QStringLiteral("%1[%2, %3] = %4")
                       .arg(name)
                       .arg(row)
                       .arg(col)
                       .arg(QString::fromStdString(formatFloat(value)));
    if (group >= 0) {
        const bool byColumn = m_style.groupAxis == Qt::Horizontal;
        IndexRange range;
        for (std::size_t k = 0; k < m_style.groups.size(); ++k) {
            const int id = k < m_style.groupIds.size() ? m_style.groupIds[k] : int(k);
            const Index position = byColumn ? col : row;
            if (id == group && position >= m_style.groups[k].start &&
                position < m_style.groups[k].stop)
                range = shownRange(k);
        }
        text += QStringLiteral("\ngroup %1 \u00b7 %2 %3")
                    .arg(group)
                    .arg(byColumn ? QStringLiteral("columns") : QStringLiteral("rows"))
                    .arg(rangeText(range));
    }
    return text;
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
