#pragma once

// What a MatrixView draws over its cells' image: the frame, a traced row and column, and the
// hovered cell's outline.

#include "matrix_layout.h"

#include <QColor>

class QPainter;

namespace tp {

/// The marks over a view's cells.
struct CellMarks {
    /// The cells an output value traced elsewhere is made of (row i of x, column j of the
    /// kernel), outlined in `traceColour`; -1: none.
    int traceRow = -1;
    int traceCol = -1;
    QColor traceColour;
    CellIndex hovered;  ///< outlined in dark and white; no cell: none
};

/// Paints, clipped by the caller to `l.area`: a frame of `frame` around the cells (zero is white,
/// so a sheet on a light background needs an edge); the traced row and column as bands in their
/// colour, white-edged so that they show on every map; and the hovered cell, when cells are at
/// least 3 px on each side.
void paintCellMarks(QPainter& painter, const MatrixLayout& l, const CellMarks& marks,
                    const QColor& frame);

}  // namespace tp
