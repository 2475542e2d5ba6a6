#pragma once

// One device of the mesh drawn as a card: its arrays as heatmaps with their PartitionSpecs, its
// bytes and FLOPs.

#include "device_holdings.h"

#include <QImage>
#include <QWidget>

namespace tp {

/// Paints a DeviceHoldingsView: a header in the device's group colour, then each held array as a
/// label ("kernel[:, 4:8]  P(None, 'model')") over its heatmap (renderHeatmap, re-rendered only
/// when the view or the size changes), then the bytes and FLOPs lines. A device about to send or
/// receive a chunk says which in its header.
class DeviceCard : public QWidget {
    Q_OBJECT

public:
    explicit DeviceCard(QWidget* parent = nullptr);

    void setHoldings(DeviceHoldingsView holdings);
    const DeviceHoldingsView& holdings() const { return m_holdings; }

    /// Where array `index`'s heatmap is drawn, in card coordinates (empty before a layout).
    QRect arrayRect(int index) const;
    /// The image drawn for array `index` (null when the device does not hold it yet).
    QImage arrayImage(int index) const;

    QSize sizeHint() const override { return {220, 260}; }
    QSize minimumSizeHint() const override { return {140, 170}; }

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void layoutArrays();
    QFont smallFont() const;
    QString footerText() const;

    DeviceHoldingsView m_holdings;
    std::vector<HeldArray> m_previous;  ///< the arrays m_images were rendered from
    std::vector<QRect> m_rects;
    std::vector<QRect> m_labelRects;
    std::vector<QImage> m_images;
    QRect m_footer;
};

}  // namespace tp
