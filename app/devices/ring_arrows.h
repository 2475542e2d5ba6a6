#pragma once

// The arrows of one ring step, drawn over the device cards: each from the card that sends a chunk
// to the card that receives it, in the chunk's colour with its number in a badge.

#include <QWidget>

#include <vector>

namespace tp {

class DeviceCard;
struct DeviceArrow;

/// A transparent overlay on the card grid (it takes no mouse events). Along "model", neighbours in
/// a row are joined straight across the gap between them, at the height of the array the chunk
/// moves into, and the ring's wrap from the last column back to the first runs under the row.
/// Along "data", neighbours in a column are joined straight down the gap between the rows, and
/// the wrap from the last row back to the first runs up the right side of the column.
class RingArrows : public QWidget {
    Q_OBJECT

public:
    explicit RingArrows(QWidget* parent);

    /// `cards` row by row, `columns` per row; arrows between them.
    void setArrows(std::vector<DeviceArrow> arrows, std::vector<DeviceCard*> cards, int columns);
    const std::vector<DeviceArrow>& arrows() const { return m_arrows; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::vector<DeviceArrow> m_arrows;
    std::vector<DeviceCard*> m_cards;
    int m_columns = 0;
};

}  // namespace tp
