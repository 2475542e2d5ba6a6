#include "heatmap_image.h"

#include "cell_text.h"
#include "heatmap_downsample.h"
#include "layer/max_abs_columns.h"
#include "palette.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <utility>

namespace tp {

namespace {

// Quantisation of t = value / scale in [-1, 1]: 255 steps on each side of zero.
constexpr int kSteps = 255;
constexpr QRgb kNanColor = 0xFFFF00FF;
constexpr QRgb kPlusInfColor = 0xFFFFE600;
constexpr QRgb kMinusInfColor = 0xFF000000;
constexpr QRgb kDimTarget = 0xFFEEEEEE;
constexpr float kDimAmount = 0.75f;
constexpr std::size_t kLegendMaxRamps = 4;
constexpr qreal kLegendMaxWidth = 420;

using Ramp = std::array<QRgb, 2 * kSteps + 1>;

QRgb mix(QRgb a, QRgb b, float amountOfB) {
    const auto channel = [&](int ca, int cb) {
        return int(std::lround(float(ca) + (float(cb) - float(ca)) * amountOfB));
    };
    return qRgb(channel(qRed(a), qRed(b)), channel(qGreen(a), qGreen(b)),
                channel(qBlue(a), qBlue(b)));
}

int stepOf(float t) {
    return int(std::lround(std::clamp(t, -1.0f, 1.0f) * float(kSteps)));
}

// The colour of quantised step s in [-kSteps, kSteps] of a group's diverging ramp.
QRgb rampColor(int group, int step, bool dimmed) {
    QRgb color = groupRampColor(group, float(step) / float(kSteps)).rgb();
    if (dimmed)
        color = mix(color, kDimTarget, kDimAmount);
    return color;
}

// A group's ramp, computed once per palette colour: each of its 511 colours is an OKLab mix with a
// gamut search, which made building the ramps cost more than drawing a small matrix. A ramp
// depends on the group's colour alone (groupColorIndex), so the cache holds at most
// 2 * (kGroupPaletteSize + 1) ramps at any tp, and the palette is fixed, so they never go stale:
// none is ever removed, and a reference to one stays valid.
const Ramp& makeRamp(int group, bool dimmed) {
    static std::mutex mutex;
    static std::map<std::pair<int, bool>, Ramp> cache;
    const int colour = groupColorIndex(group);
    const std::lock_guard lock(mutex);
    if (const auto found = cache.find({colour, dimmed}); found != cache.end())
        return found->second;
    Ramp& ramp = cache[{colour, dimmed}];
    for (int s = -kSteps; s <= kSteps; ++s)
        ramp[std::size_t(s + kSteps)] = rampColor(colour, s, dimmed);
    return ramp;
}

int groupIdOf(const HeatmapStyle& style, std::size_t k) {
    return k < style.groupIds.size() ? style.groupIds[k] : int(k);
}

// For each of `pixels` pixels along an axis of `count` elements: the index into style.groups of
// the group owning the pixel's first element, or -1.
std::vector<int> groupsAlong(const HeatmapStyle& style, Index pixels, Index count) {
    std::vector<int> result(std::size_t(pixels), -1);
    for (Index p = 0; p < pixels; ++p) {
        const Index element = elementsOfPixel(p, pixels, count).start;
        for (std::size_t k = 0; k < style.groups.size(); ++k) {
            if (element >= style.groups[k].start && element < style.groups[k].stop) {
                result[std::size_t(p)] = int(k);
                break;
            }
        }
    }
    return result;
}

bool onHatch(int style, int x, int y, int spacing, int width) {
    const bool rising = ((x + y) % spacing) < width;
    const bool falling = ((x - y) % spacing + spacing) % spacing < width;
    switch (style) {
        case 1:
            return rising;
        case 2:
            return falling;
        case 3:
            return rising || falling;
        default:
            return false;
    }
}

}  // namespace

IndexRange elementsOfPixel(Index pixel, Index pixels, Index count) {
    const Index start = pixel * count / pixels;
    const Index stop = std::max(start + 1, (pixel + 1) * count / pixels);
    return {start, std::min(stop, count)};
}

QRgb nonFiniteColor(float value) {
    if (std::isnan(value))
        return kNanColor;
    return value > 0 ? kPlusInfColor : kMinusInfColor;
}

NonFiniteKinds nonFiniteKinds(const MatrixData& m) {
    bool nan = false, plusInf = false, minusInf = false;
    const Index rows = m.rows();
    const Index cols = m.cols();
#pragma omp parallel for schedule(static) \
    reduction(||                          \
              : nan, plusInf, minusInf) if (rows * cols > (1 << 16))
    for (Index r = 0; r < rows; ++r) {
        const float* row = m.rowData(r);
        for (Index c = 0; c < cols; ++c) {
            const float v = row[c];
            if (std::isfinite(v))
                continue;
            nan = nan || std::isnan(v);
            plusInf = plusInf || v > 0;
            minusInf = minusInf || v < 0;
        }
    }
    return {nan, plusInf, minusInf};
}

QRgb heatmapColor(float value, float scale, int group, bool dimmed) {
    if (!std::isfinite(value))
        return nonFiniteColor(value);
    const float t = scale > 0.0f ? value / scale : 0.0f;
    return makeRamp(group, dimmed)[std::size_t(stepOf(t) + kSteps)];
}

float maxAbs(const MatrixData& m) {
    float result = 0.0f;
    const Index rows = m.rows();
    const Index cols = m.cols();
#pragma omp parallel for schedule(static) reduction(max : result) if (rows * cols > (1 << 16))
    for (Index r = 0; r < rows; ++r) {
        const float* row = m.rowData(r);
        float rowMax = 0.0f;
        for (Index c = 0; c < cols; ++c)
            rowMax = finiteMax(rowMax, row[c]);
        result = std::max(result, rowMax);
    }
    return result;
}

int groupAt(const HeatmapStyle& style, Index row, Index col) {
    const Index position = style.groupAxis == Qt::Horizontal ? col : row;
    for (std::size_t k = 0; k < style.groups.size(); ++k) {
        if (position >= style.groups[k].start && position < style.groups[k].stop)
            return groupIdOf(style, k);
    }
    return -1;
}

QImage renderHeatmap(const MatrixData& m, const HeatmapStyle& style, QSize size,
                     const std::atomic_bool* stop) {
    const auto stopped = [stop] { return stop && stop->load(std::memory_order_relaxed); };
    if (m.isEmpty() || size.isEmpty() || stopped())
        return {};
    const int width = size.width();
    const int height = size.height();

    std::vector<IndexRange> colsOfPixel(static_cast<std::size_t>(width));
    for (int x = 0; x < width; ++x)
        colsOfPixel[std::size_t(x)] = elementsOfPixel(x, width, m.cols());

    // Pass 1: one value per pixel (and the largest |element| when the scale is automatic). A band
    // of rows that several pixel rows show (an image taller than the matrix) is reduced once, for
    // the first of them, and copied to the others afterwards.
    std::vector<float> reduced(static_cast<std::size_t>(width) * static_cast<std::size_t>(height));
    const bool mean = style.downsample == Downsample::Mean;
    const bool trackMax = !(style.scale > 0.0f);
    const auto sameBandAsAbove = [&](int y) {
        if (y == 0)
            return false;
        const IndexRange above = elementsOfPixel(y - 1, height, m.rows());
        const IndexRange here = elementsOfPixel(y, height, m.rows());
        return here.start == above.start && here.stop == above.stop;
    };
    const bool parallel = double(m.rows()) * double(m.cols()) + double(width) * height > 1e5;
    float largest = 0.0f;
#pragma omp parallel reduction(max : largest) if (parallel)
    {
        ColumnWinners winners;  // reused by this thread's bands
#pragma omp for schedule(dynamic, 4)
        for (int y = 0; y < height; ++y) {
            if (stopped() || sameBandAsAbove(y))
                continue;
            const IndexRange rows = elementsOfPixel(y, height, m.rows());
            float* out = reduced.data() + std::size_t(y) * std::size_t(width);
            float rowMax;
            if (mean)
                rowMax = trackMax ? reduceMean<true>(m, rows, colsOfPixel, out)
                                  : reduceMean<false>(m, rows, colsOfPixel, out);
            else
                rowMax = trackMax ? reduceMaxAbs<true>(m, rows, colsOfPixel, out, winners)
                                  : reduceMaxAbs<false>(m, rows, colsOfPixel, out, winners);
            // A pixel showing one element shows it exactly, NaN included.
            if (rows.size() == 1) {
                const float* row = m.rowData(rows.start);
                for (int x = 0; x < width; ++x) {
                    if (colsOfPixel[std::size_t(x)].size() == 1)
                        out[x] = row[colsOfPixel[std::size_t(x)].start];
                }
            }
            largest = std::max(largest, rowMax);
        }
    }
    for (int y = 1; y < height; ++y) {
        if (sameBandAsAbove(y))
            std::copy_n(reduced.data() + std::size_t(y - 1) * std::size_t(width), width,
                        reduced.data() + std::size_t(y) * std::size_t(width));
    }
    if (stopped())
        return {};
    float scale = trackMax ? largest : style.scale;
    if (!(scale > 0.0f) || !std::isfinite(scale))
        scale = 1.0f;

    // Colour ramps: one per listed group (dimmed unless highlighted) and the neutral one.
    std::vector<const Ramp*> ramps;
    ramps.reserve(style.groups.size() + 1);
    for (std::size_t k = 0; k < style.groups.size(); ++k) {
        const int id = groupIdOf(style, k);
        const bool dimmed = style.highlightedGroup >= 0 && id != style.highlightedGroup;
        ramps.push_back(&makeRamp(id, dimmed));
    }
    ramps.push_back(&makeRamp(-1, false));
    const int neutralRamp = int(style.groups.size());

    const bool byColumn = style.groupAxis == Qt::Horizontal;
    const std::vector<int> groupOfPixel =
        byColumn ? groupsAlong(style, width, m.cols()) : groupsAlong(style, height, m.rows());

    std::vector<int> hatchOfRamp(ramps.size(), 0);
    for (std::size_t k = 0; k < style.groups.size(); ++k)
        hatchOfRamp[k] = groupHatchStyle(groupIdOf(style, k));
    const bool anyHatch =
        std::any_of(hatchOfRamp.begin(), hatchOfRamp.end(), [](int h) { return h != 0; });
    const qreal dpr = style.devicePixelRatio > 0 ? style.devicePixelRatio : 1.0;
    const int hatchSpacing = std::max(3, int(std::lround(6.0 * dpr)));
    const int hatchWidth = std::max(1, int(std::lround(1.5 * dpr)));

    // Pass 2: colour.
    QImage image(size, QImage::Format_RGB32);
    const float stepsPerUnit = float(kSteps) / scale;
#pragma omp parallel for schedule(static) if (double(width) * height > 1e5)
    for (int y = 0; y < height; ++y) {
        if (stopped())
            continue;
        auto* line = reinterpret_cast<QRgb*>(image.scanLine(y));
        const float* values = reduced.data() + std::size_t(y) * std::size_t(width);
        for (int x = 0; x < width; ++x) {
            int k = byColumn ? groupOfPixel[std::size_t(x)] : groupOfPixel[std::size_t(y)];
            if (k < 0)
                k = neutralRamp;
            const float v = values[x];
            if (!std::isfinite(v)) {
                line[x] =
                    std::isnan(v) && style.absentColour ? *style.absentColour : nonFiniteColor(v);
                continue;
            }
            const float s = std::clamp(v * stepsPerUnit, -float(kSteps), float(kSteps));
            QRgb color = (*ramps[std::size_t(k)])[std::size_t(std::lround(s) + kSteps)];
            if (anyHatch && hatchOfRamp[std::size_t(k)] != 0 &&
                onHatch(hatchOfRamp[std::size_t(k)], x, y, hatchSpacing, hatchWidth)) {
                // Light lines on dark cells, tinted lines on light ones: visible at any value.
                color = qGray(color) < 150 ? mix(color, qRgb(255, 255, 255), 0.5f)
                                           : mix(color, ramps[std::size_t(k)]->back(), 0.45f);
            }
            line[x] = color;
        }
    }
    if (stopped())
        return {};
    image.setDevicePixelRatio(dpr);
    return image;
}

std::vector<std::pair<QString, float>> nonFiniteLegendEntries(NonFiniteKinds kinds) {
    constexpr float kInf = std::numeric_limits<float>::infinity();
    std::vector<std::pair<QString, float>> entries;
    if (kinds.nan)
        entries.emplace_back(QStringLiteral("NaN"), std::numeric_limits<float>::quiet_NaN());
    if (kinds.plusInf)
        entries.emplace_back(QStringLiteral("+inf"), kInf);
    if (kinds.minusInf)
        entries.emplace_back(QStringLiteral("-inf"), -kInf);
    return entries;
}

namespace {

const QString kCaptionSeparator = QStringLiteral(" \u00b7 ");

// The width of the non-finite entries drawn before the caption: each a swatch, 3 px, its label
// and 8 px.
qreal entriesWidthOf(const std::vector<std::pair<QString, float>>& entries,
                     const QFontMetricsF& metrics) {
    const qreal swatch = std::max<qreal>(4, std::round(metrics.height() * 0.7));
    qreal width = 0;
    for (const auto& entry : entries)
        width += swatch + 3 + metrics.horizontalAdvance(entry.first) + 8;
    return width;
}

}  // namespace

// The caption's parts, in the order read: how the sign of a value reads on this map.
QStringList legendCaptionParts(const LegendStyle& style) {
    if (style.groups.empty())
        return {QStringLiteral("negative = dark slate"), QStringLiteral("zero = white"),
                QStringLiteral("positive = slate blue")};
    return {QStringLiteral("negative = dark"), QStringLiteral("zero = white"),
            QStringLiteral("positive = vivid")};
}

QString legendCaption(const LegendStyle& style) {
    return legendCaptionParts(style).join(kCaptionSeparator);
}

QStringList legendCaptionLines(const LegendStyle& style, qreal width) {
    const QFontMetricsF metrics(style.font);
    const qreal room = width - entriesWidthOf(nonFiniteLegendEntries(style.nonFinite), metrics);
    QStringList lines;
    for (const QString& part : legendCaptionParts(style)) {
        const QString longer =
            lines.isEmpty() ? QString() : lines.back() + kCaptionSeparator + part;
        if (!lines.isEmpty() && metrics.horizontalAdvance(longer) <= room)
            lines.back() = longer;
        else
            lines.push_back(part);
    }
    return lines;
}

QImage renderLegend(const LegendStyle& style, QSize size) {
    if (size.isEmpty())
        return {};
    const qreal dpr = style.devicePixelRatio > 0 ? style.devicePixelRatio : 1.0;
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    image.setDevicePixelRatio(dpr);

    const QSizeF logical(size.width() / dpr, size.height() / dpr);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::TextAntialiasing);
    painter.setFont(style.font);
    const QFontMetricsF metrics(style.font);

    const float scale = style.scale > 0.0f ? style.scale : 1.0f;
    // The ends in cellText, as the titles' "±0.78": the same value reads the same everywhere.
    const QString low = cellText(-scale);
    const QString high = QLatin1Char('+') + cellText(scale);
    const qreal side =
        std::max(metrics.horizontalAdvance(low), metrics.horizontalAdvance(high)) / 2 + 1;
    const qreal textHeight = metrics.height();

    std::vector<int> groups = style.groups;
    const bool neutral = groups.empty();
    if (neutral)
        groups.push_back(-1);
    const std::size_t shown = std::min<std::size_t>(groups.size(), kLegendMaxRamps);
    const QStringList lines = legendCaptionLines(style, logical.width());
    const qreal captionHeight = textHeight * qreal(lines.size());
    const bool caption = logical.height() >= textHeight + captionHeight + 12;
    const qreal rampHeight = shown == 1 ? 10.0 : std::max(4.0, 16.0 / qreal(shown));
    const qreal barHeight =
        std::min(rampHeight * qreal(shown),
                 logical.height() - textHeight - (caption ? captionHeight : 0) - 4);
    const qreal barWidth = std::clamp<qreal>(logical.width() - 2 * side, 8, kLegendMaxWidth);
    const QRectF bar((logical.width() - barWidth) / 2, 2, barWidth, std::max<qreal>(2, barHeight));

    // Each ramp is an image one device pixel per column, stretched vertically.
    const int rampWidth = std::max(2, int(std::lround(bar.width() * dpr)));
    for (std::size_t i = 0; i < shown; ++i) {
        QImage ramp(rampWidth, 1, QImage::Format_RGB32);
        auto* line = reinterpret_cast<QRgb*>(ramp.scanLine(0));
        const Ramp& colours = makeRamp(groups[i], false);
        for (int x = 0; x < rampWidth; ++x) {
            const float t = -1.0f + 2.0f * float(x) / float(rampWidth - 1);
            line[x] = colours[std::size_t(stepOf(t * scale / scale) + kSteps)];  // heatmapColor
        }
        const qreal h = bar.height() / qreal(shown);
        painter.drawImage(QRectF(bar.left(), bar.top() + h * qreal(i), bar.width(), h), ramp);
    }
    painter.setPen(QPen(QColor(0, 0, 0, 60), 0));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(bar);

    painter.setPen(style.textColor);
    const qreal tickY = bar.bottom() + 2;
    painter.drawLine(QPointF(bar.center().x(), bar.bottom()), QPointF(bar.center().x(), tickY));
    const QRectF tickRow(bar.left() - side, tickY, bar.width() + 2 * side, textHeight);
    painter.drawText(tickRow, Qt::AlignLeft | Qt::AlignTop, low);
    painter.drawText(tickRow, Qt::AlignRight | Qt::AlignTop, high);

    // The non-finite values: a swatch of each colour and its label, before the caption, or in
    // place of the 0 tick without a caption.
    const auto entries = nonFiniteLegendEntries(style.nonFinite);
    const qreal swatch = std::max<qreal>(4, std::round(textHeight * 0.7));
    const qreal entriesWidth = entriesWidthOf(entries, metrics);
    const auto drawEntries = [&](qreal x, qreal y) {
        for (const auto& [label, value] : entries) {
            const QRectF box(x, y + (textHeight - swatch) / 2, swatch, swatch);
            painter.fillRect(box, QColor(nonFiniteColor(value)));
            x += swatch + 3;
            painter.drawText(QRectF(x, y, metrics.horizontalAdvance(label) + 1, textHeight),
                             Qt::AlignLeft | Qt::AlignTop, label);
            x += metrics.horizontalAdvance(label) + 8;
        }
    };
    if (caption || entries.empty())
        painter.drawText(tickRow, Qt::AlignHCenter | Qt::AlignTop, QStringLiteral("0"));
    else
        drawEntries((logical.width() - entriesWidth) / 2, tickY);
    if (caption) {
        // Each line centred, the entries before the first.
        for (qsizetype i = 0; i < lines.size(); ++i) {
            const qreal before = i == 0 ? entriesWidth : 0;
            const qreal left = std::max<qreal>(
                0, (logical.width() - before - metrics.horizontalAdvance(lines[i])) / 2);
            const qreal y = tickY + textHeight * qreal(i + 1);
            if (i == 0)
                drawEntries(left, y);
            painter.drawText(QRectF(left + before, y, logical.width() - before, textHeight),
                             Qt::AlignLeft | Qt::AlignTop, lines[i]);
        }
    }
    return image;
}

}  // namespace tp
