#include "cell_vector.h"

#include "cell_text.h"

#include <QPainter>

#include <algorithm>

namespace tp {

void paintBlockForVector(QPainter& painter, const QRectF& target, const MatrixData& block,
                         const HeatmapStyle& style, QSize deviceSize,
                         const CellDecoration& decoration) {
    CellDecoration withoutNumbers = decoration;
    withoutNumbers.numbers = false;
    const QImage image = renderBlock(block, style, deviceSize, withoutNumbers);
    if (image.isNull())
        return;
    painter.drawImage(target, image);
    if (!decoration.numbers || decoration.numberPixelSize <= 0)
        return;
    const Index rows = block.rows();
    const Index cols = block.cols();
    const int width = image.width();
    const int height = image.height();
    const qreal sx = target.width() / qreal(width);
    const qreal sy = target.height() / qreal(height);
    QFont font = decoration.font;
    font.setPixelSize(decoration.numberPixelSize);
    painter.save();
    painter.setFont(font);
    for (Index r = 0; r < rows; ++r) {
        const int y0 = firstPixelOf(r, rows, height);
        const int y1 = firstPixelOf(r + 1, rows, height);
        for (Index c = 0; c < cols; ++c) {
            const int x0 = firstPixelOf(c, cols, width);
            const int x1 = firstPixelOf(c + 1, cols, width);
            const QRgb centre = image.pixel(std::min((x0 + x1) / 2, width - 1),
                                            std::min((y0 + y1) / 2, height - 1));
            painter.setPen(QColor(numberColourOn(centre)));
            painter.drawText(QRectF(target.left() + x0 * sx, target.top() + y0 * sy, (x1 - x0) * sx,
                                    (y1 - y0) * sy),
                             Qt::AlignCenter, cellText(block(r, c)));
        }
    }
    painter.restore();
}

}  // namespace tp
