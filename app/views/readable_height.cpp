#include "readable_height.h"

#include "cell_text.h"
#include "group_band.h"

#include <QFontMetricsF>

#include <cmath>

namespace tp {

int leastViewHeight(const QFont& font) {
    QFont bold = font;
    bold.setBold(true);
    // As MatrixLayout stacks them: margin, title, gap, band, gap, cells, margin.
    const qreal chrome = 2 * MatrixLayout::kMargin + QFontMetricsF(bold).height() +
                         MatrixLayout::kTitleGap + groupBandExtent(font, Qt::Horizontal, {}) +
                         MatrixLayout::kBandGap;
    return int(std::ceil(chrome + 2 * MatrixLayout::kMinSquareCell));
}

namespace {

// The least extent of `view` along `axis`, the other side `other` px, at which it prints its
// numbers: the cells grow with either side (never shrink), so it is found by halving.
int leastForNumbers(const NumbersLayout& view, Qt::Orientation axis, int other) {
    MatrixLayoutInput in = view.layout;
    if (in.rows <= 0 || in.cols <= 0 || view.numbersHidden)
        return 0;
    // The viewport is the widget less its frame (a MatrixView has no scroll bars at zoom 1 when
    // its cells fit).
    const int frame = 2 * view.frame;
    const auto prints = [&](int extent) {
        const int width = axis == Qt::Horizontal ? extent : other;
        const int height = axis == Qt::Vertical ? extent : other;
        in.viewport = QSizeF(width - frame, height - frame);
        in.fitViewport = in.viewport;
        return numberPixelSize(view.font, MatrixLayout(in).cell, view.widestText) > 0;
    };
    if (!prints(kMaxReadableExtent))
        return 0;
    int low = frame;  // prints(low) is false: no room for any cell
    int high = kMaxReadableExtent;
    while (high - low > 1) {
        const int middle = (low + high) / 2;
        (prints(middle) ? high : low) = middle;
    }
    return high;
}

}  // namespace

int heightForNumbers(const NumbersLayout& view, int width) {
    return leastForNumbers(view, Qt::Vertical, width);
}

int widthForNumbers(const NumbersLayout& view) {
    return leastForNumbers(view, Qt::Horizontal, kMaxReadableExtent);
}

}  // namespace tp
