#pragma once

// How large a MatrixView must be: the least height it needs at all, and the least height and width
// at which it prints its numbers. A small window gives its room by these figures (the kernel's
// numbers first).

#include "matrix_layout.h"

#include <QFont>
#include <QString>

namespace tp {

/// What decides whether a view prints its numbers at a size: its layout at the current zoom (and
/// leader), its font and widest cell text, and its frame (MatrixView::numbersLayout()).
struct NumbersLayout {
    MatrixLayoutInput layout;  ///< its viewport is replaced by each size tried
    QFont font;
    QString widestText;
    int frame = 0;               ///< the widget's frame on each side, around the viewport
    bool numbersHidden = false;  ///< CellNumbers::Hidden: no size prints them
};

/// The least height of a MatrixView (MatrixView::minimumSizeHint): its bold title row, a group
/// band above the cells, the margins and gaps (MatrixLayout's) and a sliver of cells
/// (2 * MatrixLayout::kMinSquareCell). No more, so that a short window can give the height to the
/// matrix that needs it.
int leastViewHeight(const QFont& font);

/// The least height of a view laid out as `view`, as a widget `width` px wide, at which it prints
/// its cell numbers: the smallest h with numberPixelSize(font, cell at h, widest text) > 0. 0 when
/// no height up to kMaxReadableExtent does (too many columns for the width, or numbers hidden).
int heightForNumbers(const NumbersLayout& view, int width);

/// The least width of a view laid out as `view` at which it prints its cell numbers when its
/// height is no limit (kMaxReadableExtent); 0 when no width up to kMaxReadableExtent does.
int widthForNumbers(const NumbersLayout& view);

/// The largest extent the searches try: larger than any screen the window opens on.
inline constexpr int kMaxReadableExtent = 4096;

}  // namespace tp
