#pragma once

// How large a MatrixView must be: the least height it needs at all, and the least height and width
// at which it prints its numbers. A small window gives its room by these figures (the kernel's
// numbers first).

#include <QFont>

namespace tp {

class MatrixView;

/// The least height of a MatrixView (MatrixView::minimumSizeHint): its bold title row, a group
/// band above the cells, the margins and a sliver of cells (2 * MatrixLayout::kMinSquareCell).
/// No more, so that a short window can give the height to the matrix that needs it.
int leastViewHeight(const QFont& font);

/// The least height of `view`, as a widget `width` px wide at its current zoom (and leader), at
/// which it prints its cell numbers: the smallest h with numberPixelSize(font, cell at h, widest
/// text) > 0. 0 when no height up to kMaxReadableExtent does (too many columns for the width,
/// or numbers hidden).
int heightForNumbers(const MatrixView& view, int width);

/// The least width of `view` at which it prints its cell numbers when its height is no limit
/// (kMaxReadableExtent); 0 when no width up to kMaxReadableExtent does.
int widthForNumbers(const MatrixView& view);

/// The largest extent the searches try: larger than any screen the window opens on.
inline constexpr int kMaxReadableExtent = 4096;

}  // namespace tp
