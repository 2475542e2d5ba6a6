// How MatrixView paints: the title row with the view's scale, the cached image of the visible
// cells (rendered again only when the image they need changes), the group band and the marks.

#include "matrix_view.h"

#include "cell_image_cache.h"
#include "cell_text.h"
#include "cell_vector.h"
#include "group_band.h"
#include "title_row.h"

#include <QPaintEngine>
#include <QPainter>

#include <cmath>

namespace tp {

namespace {

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
    if (!m_style.groups.empty())
        paintGroupBand(painter, m_style, m_labelRanges, l, font(), palette());
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

// The cached image (1:1 when it is the wanted one, scaled while a newer one renders) and the
// marks over it, clipped to the area.
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
    paintCellMarks(painter, l, m_marks, palette().color(QPalette::Mid));
    painter.restore();
}

}  // namespace tp
