#include "kernel_with_bias.h"

#include "matrix_view.h"
#include "readable_height.h"

#include <QScrollBar>
#include <QTimer>

#include <algorithm>
#include <cmath>

namespace tp {

KernelWithBias::KernelWithBias(MatrixView* kernel, MatrixView* bias)
    : m_kernel(kernel), m_bias(bias) {
    kernel->setParent(this);
    bias->setParent(this);
    bias->setColumnLeader(kernel);
    // Queued: the kernel computes its new layout in its own resize and zoom handlers first.
    auto later = [this] { QTimer::singleShot(0, this, [this] { placeBias(); }); };
    connect(kernel, &MatrixView::zoomChanged, this, later);
    connect(kernel->horizontalScrollBar(), &QScrollBar::rangeChanged, this, later);
    connect(kernel->horizontalScrollBar(), &QScrollBar::valueChanged, this, later);
}

QSize KernelWithBias::sizeHint() const {
    const QSize kernel = m_kernel->sizeHint();
    return {kernel.width(), kernel.height() + kBiasHeight};
}

QSize KernelWithBias::minimumSizeHint() const {
    const QSize kernel = m_kernel->minimumSizeHint();
    return {kernel.width(), kernel.height() + m_bias->minimumSizeHint().height()};
}

int KernelWithBias::heightForNumbers() const {
    const int kernel = tp::heightForNumbers(m_kernel->numbersLayout(), width());
    return kernel > 0 ? kernel + leastStripHeight() : 0;
}

void KernelWithBias::placeBias() {
    const QWidget* viewport = m_kernel->viewport();
    const QPoint origin = viewport->mapTo(this, QPoint(0, 0));
    const auto place = [&](int top, int height) {
        m_bias->setGeometry(origin.x(), std::max(0, top), viewport->width(), height);
    };
    const MatrixData& m = m_kernel->matrix();
    const QRectF first = m.isEmpty() ? QRectF() : m_kernel->cellRect(0, 0);
    const QRectF last = m.isEmpty() ? QRectF() : m_kernel->cellRect(m.rows() - 1, m.cols() - 1);
    const bool fits = !m.isEmpty() && first.left() >= 0 && last.right() <= viewport->width() + 1;
    if (!fits) {
        place(height() - m_strip, m_strip);
        return;
    }
    const int stripTop = int(std::ceil(origin.y() + last.bottom())) + kStripGap;
    const auto under = [&](int stripHeight) {
        place(std::min(stripTop, height() - stripHeight), stripHeight);
    };
    under(m_strip);
    // A strip too short for cells as tall as the kernel's: grow it by what they lack, as far
    // as the room under the kernel's last row allows (it never covers a kernel row).
    if (m_bias->matrix().isEmpty() || !m_bias->isVisible())
        return;
    const qreal lacking = m_bias->heightForSquareCells();
    const int room = height() - stripTop - m_strip;
    const int grow = std::min(int(std::ceil(lacking)), room);
    if (grow > 0)
        under(m_strip + grow);
}

void KernelWithBias::resizeEvent(QResizeEvent*) {
    // The kernel's numbers first: a short panel takes the strip down towards its least
    // height before the kernel loses them.
    const int kernel = tp::heightForNumbers(m_kernel->numbersLayout(), width());
    m_strip =
        kernel > 0 ? std::clamp(height() - kernel, leastStripHeight(), kBiasHeight) : kBiasHeight;
    m_kernel->setGeometry(0, 0, width(), std::max(0, height() - m_strip));
    placeBias();
    if (onResized)
        onResized();
}

void KernelWithBias::showEvent(QShowEvent*) {
    QTimer::singleShot(0, this, [this] { placeBias(); });
}

int KernelWithBias::leastStripHeight() const {
    const int numbers = tp::heightForNumbers(m_bias->numbersLayout(), width());
    return std::min(std::max(numbers, m_bias->minimumSizeHint().height()), kBiasHeight);
}

}  // namespace tp
