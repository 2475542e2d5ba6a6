#pragma once

// A small widget showing what the heatmap colours mean.

#include "heatmap_image.h"

#include <QImage>
#include <QWidget>

#include <vector>

namespace tp {

/// Draws renderLegend(): ramps from -scale to +scale for the listed groups (or the neutral map),
/// ticks at -scale, 0 and +scale, and a caption, wrapped in a narrow legend rather than cut.
/// Caches the image per size and inputs.
class HeatmapLegend : public QWidget {
    Q_OBJECT

public:
    explicit HeatmapLegend(QWidget* parent = nullptr);

    /// The value at the ends of the ramps (MatrixView::effectiveScale()).
    void setScale(float scale);
    float scale() const { return m_scale; }
    /// Group numbers whose ramps are shown (the first 4 are drawn); empty shows the neutral map.
    void setGroups(std::vector<int> groups);
    const std::vector<int>& groups() const { return m_groups; }
    /// The non-finite values the matrices hold: each gets a swatch labelled NaN, +inf or -inf.
    void setNonFinite(NonFiniteKinds kinds);
    NonFiniteKinds nonFinite() const { return m_nonFinite; }
    /// Whether the caption line under the ticks is shown (renderLegend draws it when the legend
    /// is tall enough): hiding it makes the legend one text line shorter.
    void setCaptionShown(bool shown);
    bool captionShown() const { return m_caption; }

    /// The caption's lines at `width` logical pixels (legendCaptionLines): never elided.
    QStringList captionLines(int width) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    /// Tall enough for the ticks and every line of the caption at `width` (when shown).
    int heightForWidth(int width) const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    LegendStyle style() const;

    float m_scale = 1.0f;
    std::vector<int> m_groups;
    NonFiniteKinds m_nonFinite;
    bool m_caption = true;
    QImage m_cache;
};

}  // namespace tp
