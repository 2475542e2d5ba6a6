#pragma once

// Where a MatrixView draws its title, group band and cells: pure geometry, no widget.

#include "layer/eigen_types.h"

#include <QPoint>
#include <QRectF>
#include <QSize>

#include <optional>

namespace tp {

/// A cell of a matrix by its row and column; (-1, -1) names no cell.
struct CellIndex {
    Index row = -1;
    Index col = -1;

    bool isValid() const { return row >= 0 && col >= 0; }
    bool operator==(const CellIndex&) const = default;
};

/// Where the group band sits: none, above the cells (column groups) or left of them (row groups).
enum class BandSide { None, Above, Left };

/// The columns of a leading view, in the follower's viewport coordinates: every column is
/// `cellWidth` wide and column 0 starts at `originX`.
struct LeaderColumns {
    qreal cellWidth = 0;
    qreal originX = 0;
};

/// What the geometry depends on. Sizes are logical pixels.
struct MatrixLayoutInput {
    QSizeF viewport = {};  ///< the viewport's size
    /// The viewport without scroll bars, which the cells are fitted to (empty: `viewport`). Fitting
    /// to it, not to `viewport`, keeps the cells' size from depending on whether a scroll bar is
    /// shown: otherwise a bar that shrinks the cells can remove the need for itself, and the view
    /// shows and hides it without end.
    QSizeF fitViewport = {};
    Index rows = 0;  ///< the matrix's shape; 0 x 0 is an empty view
    Index cols = 0;
    qreal titleHeight = 0;  ///< height of the title row; 0 means no title
    BandSide band = BandSide::None;
    qreal bandExtent = 0;  ///< the band's height (Above) or width (Left)
    double zoom = 1.0;     ///< 1: the matrix fits the area
    QPoint scroll = {};    ///< scroll bar values (pixels scrolled right and down)
    std::optional<LeaderColumns> leader = {};  ///< follow these columns instead of fitting
    /// Where a matrix narrower than the area sits: Qt::AlignHCenter, AlignLeft or AlignRight
    /// (towards a neighbouring panel, so that no empty band separates two matrices).
    Qt::Alignment horizontalAlign = Qt::AlignHCenter;
    /// The largest fitted cell side (kMaxFitCell by default): x follows the kernel's cell size.
    qreal maxFitCell = 80;
};

/// The geometry of one MatrixView. At zoom 1 the cells fit the area: when cells of at least
/// kMinSquareCell fit, each side is the area's share min(fit, the smaller fit * kMaxWideAspect for
/// the width, kMaxAspect for the height), else stretched to fill it; never larger than maxFitCell.
/// Zooming in grows the smaller side of a stretched cell first (cells turn square before they
/// grow), zooming out shrinks both. A matrix smaller than the area is centred in it vertically and
/// placed by horizontalAlign, a larger one is scrolled. Following a leader, the cells are the
/// leader's width (and as tall, when the area allows) and column j lies under the leader's column
/// j; the area (the clip) and the title span the leader's columns inside the viewport.
struct MatrixLayout {
    // The gaps, top to bottom: margin, title, kTitleGap, band, kBandGap, cells, margin (a band on
    // the left: margin, band, kBandGap, cells, margin). Every size computed from the layout reads
    // these.
    static constexpr qreal kMargin = 6;         ///< around everything, in the viewport
    static constexpr qreal kTitleGap = 4;       ///< between the title row and what lies under it
    static constexpr qreal kBandGap = 2;        ///< between the group band and the cells
    static constexpr qreal kMaxFitCell = 80;    ///< a 2 x 4 matrix should not fill a monitor
    static constexpr qreal kMinSquareCell = 4;  ///< below this, fitting stretches cells
    /// A fitted cell may be this much taller than the smaller fit allows.
    static constexpr qreal kMaxAspect = 1.6;
    /// A fitted cell may be this much wider than the smaller fit allows, so that a matrix short
    /// of height (the kernel on a 1366x768 screen) still fills its width with cells wide enough
    /// for its numbers.
    static constexpr qreal kMaxWideAspect = 2.4;
    static constexpr qreal kMaxCell = 400;  ///< the largest zoomed cell side
    static constexpr double kMinZoom = 0.25;

    MatrixLayout() = default;
    explicit MatrixLayout(const MatrixLayoutInput& input);

    QRectF title;    ///< the title row (empty without a title)
    QRectF band;     ///< group labels: above the cells (Above) or left of them (Left)
    QRectF area;     ///< where cells may be drawn (clip)
    QRectF fitArea;  ///< `area` in the viewport without scroll bars (what the cells are fitted to)
    QSizeF base;     ///< cell size at zoom 1
    QSizeF cell;     ///< cell size at the current zoom
    QSizeF content;  ///< the whole matrix at the current zoom
    QPointF origin;  ///< viewport position of the matrix's top-left corner
    Index rows = 0;
    Index cols = 0;

    /// The cell under `pos` (viewport coordinates), or no cell (-1, -1) outside the cells or the
    /// area.
    CellIndex cellAt(QPointF pos) const;
    /// Where cell (row, col) is drawn: origin + (col * cell.width, row * cell.height), one cell
    /// in size; may lie outside the area.
    QRectF cellRect(Index row, Index col) const;
    /// The rows and columns with at least one pixel inside the area (at least one of each when the
    /// matrix is not empty).
    IndexRange visibleRows() const;
    IndexRange visibleCols() const;
    /// The size in device pixels of the visible cells: round(count * cell * dpr), at least 1.
    QSize visibleDeviceSize(qreal devicePixelRatio) const;
    /// How far the content can scroll: ceil(max(0, content - area)) on each axis, or nothing on
    /// both axes when the content fits `fitArea` (the scroll bars, only then, are not needed).
    QSize scrollRange() const;
    /// `zoom` limited to [kMinZoom, the zoom where the smaller base side reaches kMaxCell].
    double clampZoom(double zoom) const;
};

}  // namespace tp
