#pragma once

// Veils the cells of a MatrixView that a computation does not read, so that the blocks it reads
// stand out: slice-x reads only kernel[block of rows, group's columns] of each group.

#include "layer/eigen_types.h"

#include <QWidget>

#include <vector>

namespace tp {

class MatrixView;

/// A cell block: rows `rows` and columns `cols` of a matrix.
struct CellBlock {
    IndexRange rows;
    IndexRange cols;
};

/// A see-through sheet over the whole viewport of a MatrixView that washes out every cell outside
/// the used blocks; it follows the view's zoom, scroll and size. No blocks: it hides.
class UnusedCellsOverlay : public QWidget {
    Q_OBJECT

public:
    explicit UnusedCellsOverlay(MatrixView* view);

    void setUsedBlocks(std::vector<CellBlock> blocks);
    const std::vector<CellBlock>& usedBlocks() const { return m_blocks; }

protected:
    void paintEvent(QPaintEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void follow();

    MatrixView* m_view;
    std::vector<CellBlock> m_blocks;
};

}  // namespace tp
