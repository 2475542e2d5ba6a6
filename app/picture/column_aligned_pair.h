#pragma once

// A matrix view with a strip view under it whose columns line up with the matrix's columns
// (the bias under the kernel).

#include <QWidget>

namespace tp {

class MatrixView;

/// Lays out `top` over the whole width and `strip` under it, placed and sized so that strip column
/// j sits exactly under top column j while the top view fits its matrix (zoom 1). When the top view
/// is zoomed in past its width, the strip spans the top view's viewport and follows its columns
/// (MatrixView::setColumnLeader).
class ColumnAlignedPair : public QWidget {
    Q_OBJECT

public:
    ColumnAlignedPair(MatrixView* top, MatrixView* strip, int stripHeight,
                      QWidget* parent = nullptr);

    /// Re-aligns now (after the matrices change).
    void align();

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    MatrixView* m_top;
    MatrixView* m_strip;
    int m_stripHeight;
};

}  // namespace tp
