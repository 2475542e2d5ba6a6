#pragma once

// A kernel over the whole width with its bias strip under it, column under column: one Linear's
// kernel and bias, and each of the MLP block's two layers.

#include <QWidget>

#include <functional>

namespace tp {

class MatrixView;

/// The strip spans the kernel's viewport and lines its columns up with the kernel's
/// (MatrixView::setColumnLeader); this widget only decides how far down the strip sits (right
/// under the kernel's last row while the kernel fits its width, else at the bottom) and how tall
/// it is: kBiasHeight, less when the kernel would otherwise lose its numbers (down to what the
/// strip's own numbers need). It takes both views as its children.
class KernelWithBias : public QWidget {
public:
    static constexpr int kBiasHeight = 84;
    /// Between the kernel's last row and the bias strip under it.
    static constexpr int kStripGap = 2;

    KernelWithBias(MatrixView* kernel, MatrixView* bias);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

    /// The least height at which the kernel prints its numbers, the strip under it at its least;
    /// 0 when no height does.
    int heightForNumbers() const;

    /// Places the strip under the kernel (after the kernel's layout changed).
    void placeBias();

    std::function<void()> onResized;  ///< called after the kernel took its new size

protected:
    void resizeEvent(QResizeEvent*) override;
    /// A panel laid out while hidden (another page of a stack) places the strip once shown.
    void showEvent(QShowEvent*) override;

private:
    /// What the strip's own numbers need (its least height when they never print), at most
    /// kBiasHeight.
    int leastStripHeight() const;

    MatrixView* m_kernel;
    MatrixView* m_bias;
    int m_strip = kBiasHeight;  ///< the strip's height (before placeBias grows it)
};

}  // namespace tp
