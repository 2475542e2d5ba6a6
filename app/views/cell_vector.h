#pragma once

// A block of cells painted for a vector picture (SVG): the heatmap as an image, the numbers as
// text.

#include "cell_renderer.h"

#include <QRectF>

class QPainter;

namespace tp {

/// Paints `block` into `target` as renderBlock(block, style, deviceSize, decoration) shows it, for
/// a painter whose file keeps text (an SVG): the heatmap, grid and group gaps as one image without
/// numbers, then, when decoration.numbers, each value's cellText as text centred in its cell (the
/// cells firstPixelOf lays out over the image, scaled to `target`), at decoration.numberPixelSize
/// logical pixels, in black or white as numberColourOn picks for the cell's centre colour.
void paintBlockForVector(QPainter& painter, const QRectF& target, const MatrixData& block,
                         const HeatmapStyle& style, QSize deviceSize,
                         const CellDecoration& decoration);

}  // namespace tp
