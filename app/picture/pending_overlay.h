#pragma once

// Covers the not-yet-computed part of a MatrixView, so a result visibly fills step by step.

#include "cells_overlay.h"
#include "layer/eigen_types.h"

namespace tp {

/// A see-through sheet over the columns [fromColumn, end) of a MatrixView, or over its rows
/// [fromRow, end) (setPendingRows: a block filling row group by row group), with a caption. It
/// follows the view's zoom, scroll and size. fromColumn -1 hides it; 0 covers the whole matrix.
class PendingOverlay : public CellsOverlay {
    Q_OBJECT

public:
    explicit PendingOverlay(MatrixView* view);

    void setPending(Index fromColumn, const QString& caption);
    /// Covers rows [fromRow, end) over every column; -1 hides the sheet.
    void setPendingRows(Index fromRow, const QString& caption);
    Index fromColumn() const { return m_fromColumn; }
    Index fromRow() const { return m_fromRow; }
    QString caption() const { return m_caption; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    void follow() override;

    Index m_fromColumn = -1;
    Index m_fromRow = 0;
    QString m_caption;
};

}  // namespace tp
