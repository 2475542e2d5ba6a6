#pragma once

// The band beside a matrix that names its tensor-parallel groups: a strip in each group's colour
// and, where it fits, a label with the group's number and range.

#include "heatmap_image.h"
#include "matrix_layout.h"

#include <QFont>
#include <QPalette>
#include <QString>

#include <vector>

class QPainter;

namespace tp {

/// The thickness of the coloured strip along the cells, in logical pixels.
inline constexpr qreal kGroupStripThickness = 5;

/// A range in the brief's notation: "[start:stop)".
QString rangeText(IndexRange range);

/// How much room the band needs across the group axis: for column groups (Horizontal) its height,
/// a line of `font` + the strip + 4; for row groups (Vertical) its width, the widest of `labels`
/// in bold (capped at 120) + the strip + 8.
qreal groupBandExtent(const QFont& font, Qt::Orientation axis, const std::vector<QString>& labels);

/// The label forms, richest first: "group 2 · [8:12)", "[8:12)", "g2", "2".
enum class GroupLabelForm { NumberAndRange, Range, ShortNumber, Number };

/// Group `id`'s label in `form`, naming the range `shown`.
QString groupLabel(int id, IndexRange shown, GroupLabelForm form);

/// What hoverText's group span says of cell (row, col) of a matrix drawn with `style`: the range
/// of the group it lies in, as its label names it (`shown[k]`, or the group's own range where
/// `shown` has no entry k), after what the range counts: `what`, or "columns" / "rows" by the
/// group axis when `what` is empty. E.g. "columns [4:8)", "kernel rows [2:4)"; empty when the
/// cell lies in no group.
QString groupSpanText(const HeatmapStyle& style, const std::vector<IndexRange>& shown,
                      const QString& what, Index row, Index col);

/// Paints the band of `style`'s groups into `layout.band`: per group with a visible part, a strip
/// in groupColor (hatched when groupHatched; blended 70 % towards the window colour when another
/// group is highlighted) along its visible cells, and a label naming `shown[k]` (or the group's own
/// range where `shown` has no entry k). All groups get the richest form that fits every one of
/// them (row groups start at the Range form); failing that, each the richest that fits it, or
/// none. The highlighted group's label is bold, dimmed groups' are in the placeholder colour.
void paintGroupBand(QPainter& painter, const HeatmapStyle& style,
                    const std::vector<IndexRange>& shown, const MatrixLayout& layout,
                    const QFont& font, const QPalette& palette);

}  // namespace tp
