#include "cell_renderer.h"

#include "cell_text.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <vector>

namespace tp {

namespace {

bool stopped(const std::atomic_bool* stop) {
    return stop && stop->load(std::memory_order_relaxed);
}

}  // namespace

int firstPixelOf(Index e, Index count, Index pixels) {
    return int((e * pixels + count - 1) / count);
}

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

QImage renderBlock(const MatrixData& block, const HeatmapStyle& style, QSize deviceSize,
                   const CellDecoration& decoration, const std::atomic_bool* stop) {
    QImage image = renderHeatmap(block, style, deviceSize, stop);
    if (image.isNull() || stopped(stop))
        return {};
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
        int pixelSize = decoration.numberPixelSize;
        if (pixelSize <= 0)
            pixelSize = numberPixelSize(decoration.font, QSizeF(cellW / dpr, cellH / dpr),
                                        widestCellText(rows * cols, [&](long long i) {
                                            return block(i / cols, i % cols);
                                        }));
        QFont font = decoration.font;
        font.setPixelSize(std::max(1, int(std::lround(pixelSize * dpr))));
        painter.setFont(font);
        painter.setRenderHint(QPainter::TextAntialiasing);
        for (Index r = 0; r < rows && pixelSize > 0 && !stopped(stop); ++r) {
            const int y0 = firstPixelOf(r, rows, height);
            const int y1 = firstPixelOf(r + 1, rows, height);
            for (Index c = 0; c < cols; ++c) {
                const int x0 = firstPixelOf(c, cols, width);
                const int x1 = firstPixelOf(c + 1, cols, width);
                painter.setPen(QColor(numberColourOn(centre[std::size_t(r * cols + c)])));
                painter.drawText(QRectF(x0, y0, x1 - x0, y1 - y0), Qt::AlignCenter,
                                 cellText(block(r, c)));
            }
        }
    }
    painter.end();
    if (stopped(stop))
        return {};
    image.setDevicePixelRatio(dpr);
    return image;
}

}  // namespace tp
