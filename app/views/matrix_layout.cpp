#include "matrix_layout.h"

#include <algorithm>
#include <cmath>

namespace tp {

namespace {

// The elements with a pixel inside [areaStart, areaEnd) when element 0 starts at `origin`.
IndexRange visibleRange(qreal areaStart, qreal areaEnd, qreal origin, qreal cell, Index count) {
    const qreal from = std::max<qreal>(0, areaStart - origin);
    const qreal to = std::min<qreal>(qreal(count) * cell, areaEnd - origin);
    const Index first = std::clamp<Index>(Index(std::floor(from / cell)), 0, count - 1);
    const Index last = std::clamp<Index>(Index(std::ceil(to / cell)), first + 1, count);
    return {first, last};
}

}  // namespace

MatrixLayout::MatrixLayout(const MatrixLayoutInput& in) : rows(in.rows), cols(in.cols) {
    const qreal width = in.viewport.width();
    const qreal height = in.viewport.height();
    qreal top = kMargin;
    qreal left = kMargin;
    if (in.titleHeight > 0) {
        title = QRectF(kMargin, top, width - 2 * kMargin, in.titleHeight);
        top += title.height() + kTitleGap;
    }
    if (in.band == BandSide::Above) {
        band = QRectF(kMargin, top, width - 2 * kMargin, in.bandExtent);
        top += in.bandExtent + kBandGap;
    } else if (in.band == BandSide::Left) {
        band = QRectF(left, top, in.bandExtent, 0);
        left += in.bandExtent + kBandGap;
    }
    const auto areaIn = [&](qreal w, qreal h) {
        return QRectF(left, top, std::max<qreal>(1, w - left - kMargin),
                      std::max<qreal>(1, h - top - kMargin));
    };
    area = areaIn(width, height);
    fitArea =
        in.fitViewport.isEmpty() ? area : areaIn(in.fitViewport.width(), in.fitViewport.height());
    if (in.band == BandSide::Left)
        band.setHeight(area.height());
    if (rows <= 0 || cols <= 0)
        return;

    const qreal fitW = fitArea.width() / qreal(cols);
    const qreal fitH = fitArea.height() / qreal(rows);
    const qreal square = std::min(fitW, fitH);
    const qreal cap = in.maxFitCell > 0 ? in.maxFitCell : kMaxFitCell;
    if (square >= kMinSquareCell)
        base = QSizeF(std::min({fitW, kMaxWideAspect * square, cap}),
                      std::min({fitH, kMaxAspect * square, cap}));
    else
        base = QSizeF(std::min(fitW, cap), std::min(fitH, cap));
    const qreal baseMin = std::min(base.width(), base.height());
    const auto zoomed = [&](qreal side) {
        return in.zoom <= 1.0 ? side * in.zoom : std::max(side, baseMin * in.zoom);
    };
    cell = QSizeF(zoomed(base.width()), zoomed(base.height()));
    if (in.leader)
        cell = QSizeF(in.leader->cellWidth, std::min(in.leader->cellWidth, fitH));
    content = QSizeF(qreal(cols) * cell.width(), qreal(rows) * cell.height());

    const qreal spare = area.width() - content.width();
    const qreal shift = in.horizontalAlign & Qt::AlignLeft    ? 0
                        : in.horizontalAlign & Qt::AlignRight ? std::floor(spare)
                                                              : std::floor(spare / 2);
    qreal x = spare >= 0 ? area.left() + shift : area.left() - in.scroll.x();
    if (in.leader)
        x = in.leader->originX;
    const qreal y = content.height() <= area.height()
                        ? area.top() + std::floor((area.height() - content.height()) / 2)
                        : area.top() - in.scroll.y();
    origin = QPointF(x, y);
    // The band hugs the cells when they are centred.
    if (in.band == BandSide::Above)
        band.moveTop(std::max(band.top(), y - in.bandExtent - 2));
    else if (in.band == BandSide::Left)
        band.moveLeft(std::max(band.left(), x - in.bandExtent - 2));
    // A follower shows the leader's columns: its area and title span them, not the whole viewport.
    if (in.leader) {
        const qreal from = std::max(area.left(), std::round(origin.x()));
        const qreal to = std::max(from, std::min(area.right(), std::round(x + content.width())));
        area.setLeft(from);
        area.setRight(to);
        if (!title.isEmpty()) {
            title.setLeft(from);
            title.setRight(to);
        }
    }
}

CellIndex MatrixLayout::cellAt(QPointF pos) const {
    if (rows <= 0 || cols <= 0 || cell.isEmpty() || !area.contains(pos))
        return {};
    const qreal u = (pos.x() - origin.x()) / cell.width();
    const qreal v = (pos.y() - origin.y()) / cell.height();
    if (u < 0 || v < 0 || u >= qreal(cols) || v >= qreal(rows))
        return {};
    return {Index(v), Index(u)};
}

QRectF MatrixLayout::cellRect(Index row, Index col) const {
    return QRectF(origin.x() + qreal(col) * cell.width(), origin.y() + qreal(row) * cell.height(),
                  cell.width(), cell.height());
}

IndexRange MatrixLayout::visibleRows() const {
    if (rows <= 0 || cell.isEmpty())
        return {};
    return visibleRange(area.top(), area.bottom(), origin.y(), cell.height(), rows);
}

IndexRange MatrixLayout::visibleCols() const {
    if (cols <= 0 || cell.isEmpty())
        return {};
    return visibleRange(area.left(), area.right(), origin.x(), cell.width(), cols);
}

QSize MatrixLayout::visibleDeviceSize(qreal dpr) const {
    return QSize(std::max(1, int(std::lround(qreal(visibleCols().size()) * cell.width() * dpr))),
                 std::max(1, int(std::lround(qreal(visibleRows().size()) * cell.height() * dpr))));
}

QSize MatrixLayout::scrollRange() const {
    // Scroll bars shrink `area`, never `content`: a bar needed without bars stays needed with
    // them, so whether the bars are shown follows from the content alone.
    if (content.width() <= fitArea.width() && content.height() <= fitArea.height())
        return {0, 0};
    return QSize(int(std::ceil(std::max<qreal>(0, content.width() - area.width()))),
                 int(std::ceil(std::max<qreal>(0, content.height() - area.height()))));
}

double MatrixLayout::clampZoom(double zoom) const {
    const qreal baseMin = std::min(base.width(), base.height());
    const double maxZoom = baseMin > 0 ? std::max(1.0, kMaxCell / baseMin) : 1.0;
    return std::clamp(zoom, kMinZoom, maxZoom);
}

}  // namespace tp
