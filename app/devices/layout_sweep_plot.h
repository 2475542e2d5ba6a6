#pragma once

// The three layouts against tp_size or D (layoutSweep): the bytes each device keeps at rest
// (solid, left axis) and the bytes it sends in a pass, forward plus backward when the scene has
// one (dashed, right axis), one colour per layout, the scene's value marked.

#include "devices/layout_costs.h"

#include <QWidget>

#include <cstdint>
#include <vector>

namespace tp {

/// A layout's colour on the plot: tensor, fsdp, sequence.
QColor layoutColour(ShardingLayout layout);

/// Bytes one layout sends per device at one point: forward, plus backward with `backward`.
std::int64_t sweepBytesSent(const LayoutSummary& summary, bool backward);

class LayoutSweepPlot : public QWidget {
    Q_OBJECT

public:
    explicit LayoutSweepPlot(MeshSize size, QWidget* parent = nullptr);

    /// The sweep to draw, whether its bytes sent count the backward, and the scene's value.
    void setSweep(std::vector<LayoutSweepPoint> points, bool backward, std::int64_t current);
    const std::vector<LayoutSweepPoint>& points() const { return m_points; }
    /// The x position (widget coordinates) of point `index`.
    qreal xOf(std::size_t index) const;
    /// The y position of `bytes` on the left axis (at rest) or the right one (sent).
    qreal yOf(std::int64_t bytes, bool sent) const;

    QSize sizeHint() const override { return {320, 170}; }
    QSize minimumSizeHint() const override { return {220, 130}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QRectF plotRect() const;
    std::int64_t largest(bool sent) const;

    MeshSize m_size;
    std::vector<LayoutSweepPoint> m_points;
    bool m_backward = false;
    std::int64_t m_current = -1;
};

}  // namespace tp
