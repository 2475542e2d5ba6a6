#pragma once

// The image of a block of cells as MatrixView shows it: the heatmap with the cell grid, the gaps
// between groups and the values printed in cells. A pure function of its inputs, safe on a worker
// thread, tested by reading pixels.

#include "heatmap_image.h"
#include "matrix_data.h"

#include <QFont>
#include <QImage>

#include <atomic>

namespace tp {

/// What is drawn over the heatmap of a block.
struct CellDecoration {
    bool grid = false;     ///< a light line between neighbouring cells
    bool numbers = false;  ///< each value printed in its cell (cellText)
    QFont font;            ///< the family of the numbers
    /// The numbers' pixel size in logical pixels, one for the whole matrix so that every panel
    /// of the same shape reads alike; 0 picks numberPixelSize() for the block's widest text.
    int numberPixelSize = 0;
};

/// The first device pixel of element `e` when `count` elements span `pixels` pixels:
/// ceil(e * pixels / count), the inverse of elementsOfPixel(), so grid lines and numbers land
/// exactly on the heatmap's cells.
int firstPixelOf(Index e, Index count, Index pixels);

/// `style` for the sub-block whose top-left element is (rowOffset, colOffset) and whose shape is
/// (rows, cols): every group range shifted by the offset along the group axis and clipped to
/// [0, extent); groupIds filled in (0, 1, 2, ... where `style` left them empty).
HeatmapStyle styleForBlock(const HeatmapStyle& style, Index rowOffset, Index colOffset, Index rows,
                           Index cols);

/// renderHeatmap(block, style, deviceSize) and over it: when `decoration.grid`, a
/// max(1, round(dpr)) device pixel line (white, alpha 150) at the start of every cell but the
/// first; a white gap of max(2, round(2 dpr)) device pixels centred on every group boundary inside
/// the block; when `decoration.numbers`, each value's cellText() centred in its cell at one pixel
/// size, in black or white, whichever contrasts more with the cell (numberColourOn); no number at
/// all when the pixel size is 0 (the widest text does not fit). The image carries
/// style.devicePixelRatio. Returns a null image for an empty block or size, or when `stop` becomes
/// true while it renders (a stale request told to stop).
QImage renderBlock(const MatrixData& block, const HeatmapStyle& style, QSize deviceSize,
                   const CellDecoration& decoration, const std::atomic_bool* stop = nullptr);

}  // namespace tp
