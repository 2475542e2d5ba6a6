#pragma once

// The frame the sweep plots share (tp_sweep_plot.h, layout_sweep_plot.h): the plot's rectangle,
// its values evenly spaced along x, and one tick label per value under the plot, thinned so that
// labels do not overlap, the scene's value bold with a dotted line up through the plot.

#include <QRectF>

#include <cstdint>
#include <functional>
#include <vector>

class QPainter;
class QWidget;

namespace tp {

/// The plot inside `widget`: `left` and `right` pixels for the two axes' labels, two lines above
/// for the titles and two below for the ticks and the axis' name.
QRectF sweepPlotRect(const QWidget& widget, int left, int right);

/// The x of value `index` of `count`, evenly spaced across `plot` (one value in the middle).
qreal sweepX(const QRectF& plot, std::size_t index, std::size_t count);

/// Antialiasing on, the widget's background, and the plot's grey frame.
void drawSweepFrame(QPainter& painter, const QWidget& widget, const QRectF& plot);

/// Draws the ticks of `values` under `plot` in `widget`'s font and text colour, value i at
/// x = xOf(i); `current` (when among them) is always labelled. Call it before the curves, so
/// that they and their dots lie over the dotted line.
void drawSweepTicks(QPainter& painter, const QWidget& widget, const QRectF& plot,
                    const std::vector<std::int64_t>& values, std::int64_t current,
                    const std::function<qreal(std::size_t)>& xOf);

}  // namespace tp
