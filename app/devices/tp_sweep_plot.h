#pragma once

// How memory per device and bytes on the wire change with tp_size: the valid tp sizes of a
// scene, and a small plot of them with the current one marked.

#include "layer/layer_config.h"
#include "layer/mistakes.h"

#include <QString>
#include <QWidget>

#include <cstdint>
#include <vector>

namespace tp {

/// One tp size of the sweep: meshCosts of the config with tpSize = tp (the MLP block's
/// mlpCosts, its forward collectives' bytes summed).
struct TpPoint {
    std::int64_t tp = 1;
    std::int64_t memoryBytes = 0;  ///< totalBytes of one device's holdings
    std::int64_t wireBytes = 0;    ///< bytes each device sends in the collective
};

/// Every tp size that makes `config` valid with `mistake` (the divisors of the split dimension,
/// minus those the output layout or the mistake refuses), in increasing order, with its costs.
/// Other fields stay as in `config`.
std::vector<TpPoint> tpSweep(const LayerConfig& config, Mistake mistake = Mistake::None);

/// What one of the plot's two vertical axes says, in its curve's colour.
struct TpAxisText {
    QString title;    ///< "bytes of memory per device (solid)", "bytes sent per device (dashed)"
    QString top;      ///< the sweep's largest value with its unit, "1.5 KiB"; empty when nothing
    QString foot;     ///< the value at the foot of the axis, "0"
    QString nothing;  ///< "nothing is sent at any tp" when every value is 0, else empty
};

/// The left axis (memory per device, `sent` false) or the right one (bytes each device sends)
/// of a sweep.
TpAxisText tpAxisText(const std::vector<TpPoint>& points, bool sent);

/// Plots a sweep against tp: memory per device (solid, its axis on the left) and bytes each
/// device sends (dashed, its axis on the right), each axis from 0 to its own largest value with
/// its unit, in the curve's colour; the current tp marked by a vertical line and dots.
class TpSweepPlot : public QWidget {
    Q_OBJECT

public:
    explicit TpSweepPlot(QWidget* parent = nullptr);

    void setSweep(std::vector<TpPoint> points, std::int64_t currentTp);
    const std::vector<TpPoint>& points() const { return m_points; }
    /// The tp marked as current, or -1 when it is not in the sweep.
    std::int64_t markedTp() const;
    /// The x position (widget coordinates) of point `index`.
    qreal xOf(std::size_t index) const;

    QSize sizeHint() const override { return {320, 160}; }
    QSize minimumSizeHint() const override { return {220, 120}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QRectF plotRect() const;

    std::vector<TpPoint> m_points;
    std::int64_t m_current = -1;
};

}  // namespace tp
