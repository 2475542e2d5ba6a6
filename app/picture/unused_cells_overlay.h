#pragma once

// Veils the cells of a MatrixView that a computation does not read, so that the blocks it reads
// stand out: slice-x reads only kernel[block of rows, group's columns] of each group.

#include "cells_overlay.h"
#include "layer/eigen_types.h"

#include <vector>

namespace tp {

/// A cell block: rows `rows` and columns `cols` of a matrix.
struct CellBlock {
    IndexRange rows;
    IndexRange cols;
};

/// A see-through sheet over the whole viewport of a MatrixView that washes out every cell outside
/// the used blocks; it follows the view's zoom, scroll and size. No blocks: it hides.
class UnusedCellsOverlay : public CellsOverlay {
    Q_OBJECT

public:
    explicit UnusedCellsOverlay(MatrixView* view);

    void setUsedBlocks(std::vector<CellBlock> blocks);
    const std::vector<CellBlock>& usedBlocks() const { return m_blocks; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    void follow() override;

    std::vector<CellBlock> m_blocks;
};

}  // namespace tp
