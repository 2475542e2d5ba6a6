#pragma once

// The core's words in the picture's titles: a std::string as a QString, a shape as "(2, 12)".

#include "layer/range_text.h"

#include <QString>

#include <string>

namespace tp {

/// `text` (UTF-8) as a QString.
inline QString qs(const std::string& text) {
    return QString::fromStdString(text);
}

/// "(rows, cols)", as shapeTuple (range_text.h) writes it.
inline QString shape(Index rows, Index cols) {
    return qs(shapeTuple(rows, cols));
}

}  // namespace tp
