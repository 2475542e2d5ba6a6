#pragma once

// Rendering a matrix as a heatmap image: a pure function of (matrix, style, size), tested by
// reading pixels. Widgets only cache and draw what it returns.

#include "layer/eigen_types.h"
#include "matrix_data.h"

#include <QFont>
#include <QImage>
#include <QSize>
#include <QString>

#include <atomic>

#include <optional>
#include <utility>
#include <vector>

namespace tp {

/// How a pixel summarises the elements it covers when the image is smaller than the matrix.
enum class Downsample {
    MaxAbs,  ///< the element with the largest |value| (keeps outliers and colour bands visible)
    Mean,    ///< the average (smooth, but random weights average out towards white)
};

/// Everything but the matrix and the size that decides a heatmap's pixels.
struct HeatmapStyle {
    /// Group g owns the column range groups[g] (groupAxis Horizontal: kernel[:,
    /// i*chunk:(i+1)*chunk] in column mode) or the row range groups[g] (Vertical:
    /// kernel[i*chunk:(i+1)*chunk, :] in row mode). Elements in no range use the neutral map.
    std::vector<IndexRange> groups;
    /// The palette index (group number) of each range; empty means 0, 1, 2, ... Lets a view show
    /// only group 2's partial output in group 2's colour.
    std::vector<int> groupIds;
    Qt::Orientation groupAxis = Qt::Horizontal;
    /// |value| that maps to full intensity; 0 means the largest |value| of the matrix.
    float scale = 0.0f;
    /// Group number shown at full colour while every other group is dimmed; -1 dims nothing.
    int highlightedGroup = -1;
    Downsample downsample = Downsample::MaxAbs;
    /// Device pixels per logical pixel: the image is `size` device pixels and carries this ratio;
    /// hatches are spaced in logical pixels.
    qreal devicePixelRatio = 1.0;
    /// When set, NaN is drawn in this colour instead of nonFiniteColor(): for a matrix where NaN
    /// marks an element not there yet (a device's collective buffer before the chunk arrives).
    std::optional<QRgb> absentColour;

    bool operator==(const HeatmapStyle&) const = default;
};

/// Which non-finite values a matrix holds (loaded arrays may hold any float32).
struct NonFiniteKinds {
    bool nan = false;
    bool plusInf = false;
    bool minusInf = false;

    bool any() const { return nan || plusInf || minusInf; }
    NonFiniteKinds& operator|=(const NonFiniteKinds& other) {
        nan |= other.nan;
        plusInf |= other.plusInf;
        minusInf |= other.minusInf;
        return *this;
    }
    bool operator==(const NonFiniteKinds&) const = default;
};

/// The kinds of non-finite elements in `m`. One parallel pass.
NonFiniteKinds nonFiniteKinds(const MatrixData& m);

/// The fixed colour of a non-finite value, the same in every group and never dimmed or hatched:
/// NaN magenta (0xFF00FF), +inf yellow (0xFFE600), -inf black. No ramp colour, dimmed or not,
/// comes close to them (tested), so they read as "not a number on the scale".
QRgb nonFiniteColor(float value);

/// Renders `m` stretched to `size` device pixels (RGB32). Each element takes its group's hue from
/// groupColor(); inside the hue the value is diverging: 0 is white, +scale the group colour itself
/// (vivid), -scale a dark shade of it (negativeShade), mixed in OKLab in between (groupRampColor);
/// elements outside every group use the neutral map, the same ramp in slate blue. NaN and +-inf
/// take their nonFiniteColor(); the automatic scale is the largest finite |element|.
/// Groups other than a highlighted one are faded towards light grey. When the image is smaller than
/// the matrix each pixel shows the MaxAbs (a NaN wins) or Mean of the elements it covers (one
/// parallel pass over the matrix, no copy: 4096 x 16384 to 1600 x 800 in tens of milliseconds).
/// Returns a null image for an empty matrix or size, or when `stop` becomes true while it renders
/// (the remaining rows are skipped).
QImage renderHeatmap(const MatrixData& m, const HeatmapStyle& style, QSize size,
                     const std::atomic_bool* stop = nullptr);

/// The colour of `value` in group `group` (-1: neutral) for a given scale, exactly as
/// renderHeatmap draws it (without hatching).
QRgb heatmapColor(float value, float scale, int group, bool dimmed = false);

/// The largest finite |element| of `m` (0 for an empty matrix or one with no finite element; NaN
/// and +-inf are ignored, so they cannot wash the finite values out). One parallel pass.
float maxAbs(const MatrixData& m);

/// The group number (palette index) that element (row, col) belongs to under `style`, or -1.
int groupAt(const HeatmapStyle& style, Index row, Index col);

/// Which elements a pixel covers: element range [start, stop) of pixel `pixel` when `count`
/// elements are drawn across `pixels` pixels (at least one element per pixel).
IndexRange elementsOfPixel(Index pixel, Index pixels, Index count);

/// The legend's contents.
struct LegendStyle {
    float scale = 1.0f;        ///< the value at either end of the ramps
    std::vector<int> groups;   ///< a ramp per group number (first 4 drawn); empty: the neutral map
    NonFiniteKinds nonFinite;  ///< the non-finite values shown, each given a swatch and a label
    QFont font;
    QColor textColor = QColor(0x33, 0x33, 0x33);
    qreal devicePixelRatio = 1.0;
};

/// A value-scale legend `size` device pixels large (ARGB32 premultiplied, transparent background):
/// stacked ramps (at most 4, at most 420 logical pixels wide) from -scale to +scale in each listed
/// group's colour, ticks at -scale, 0 and +scale, and a caption saying how sign reads
/// (legendCaption, in its legendCaptionLines). For each kind in `nonFinite`, a swatch of its
/// nonFiniteColor labelled "NaN", "+inf" or "-inf", before the caption (in place of the 0 tick
/// when there is no room for a caption).
QImage renderLegend(const LegendStyle& style, QSize size);

/// The legend's caption: "negative = dark · zero = white · positive = vivid", or for the neutral
/// map (no groups) "negative = dark slate · zero = white · positive = slate blue".
QString legendCaption(const LegendStyle& style);
/// The caption in as few lines as fit a legend `width` logical pixels wide (less the non-finite
/// entries drawn before its first line): whole parts between its " · ", as many to a line as
/// fit; a part wider than the legend has a line of its own. Never elided: renderLegend draws
/// them all when the legend is (1 + lines) text lines + 12 px tall, else no caption.
QStringList legendCaptionLines(const LegendStyle& style, qreal width);

/// The legend's non-finite entries, in the order drawn: "NaN", "+inf", "-inf", each only when
/// present in `kinds`, with the value whose nonFiniteColor its swatch shows.
std::vector<std::pair<QString, float>> nonFiniteLegendEntries(NonFiniteKinds kinds);

}  // namespace tp
