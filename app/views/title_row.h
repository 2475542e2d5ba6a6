#pragma once

// The title row of a MatrixView: the caption, this view's colour map and scale, and the zoom.

#include "matrix_layout.h"

#include <QFont>
#include <QPalette>
#include <QRectF>
#include <QString>

class QPainter;

namespace tp {

/// What the title row shows.
struct TitleRow {
    QString title;       ///< the caption, elided in the middle when too long
    QString scaleText;   ///< e.g. "±0.62"; empty draws no ramp
    float scale = 1.0f;  ///< the value at the ramp's ends
    int group = -1;      ///< the group whose colours the ramp shows (-1: the neutral map)
    double zoom = 1.0;   ///< shown as "125%" at the right when not 1
};

/// Where the ramp from -scale to +scale sits in `l.title`: right-aligned before `scaleText` (and
/// the zoom), at most 56 px wide; empty when the title row is narrower than three times ramp and
/// text, or there is no title.
QRectF titleScaleRamp(const MatrixLayout& l, const QFont& font, const QString& scaleText,
                      double zoom);

/// The least view width at which `title` (bold) shows whole beside the widest ramp (56 px) and
/// `scaleText`, at zoom 1: the margins, the caption, the 8 px before the ramp, the ramp and the
/// text. Enough for paintTitleRow not to elide it.
qreal wholeTitleWidth(const QFont& font, const QString& title, const QString& scaleText);

/// Paints the title row into `l.title`: the bold caption on the left, then the ramp of `row.group`
/// (heatmapColor from -scale to +scale) and the scale text, then the zoom.
void paintTitleRow(QPainter& painter, const MatrixLayout& l, const TitleRow& row, const QFont& font,
                   const QPalette& palette);

}  // namespace tp
