#pragma once

// Whether two float32 matrices hold the same bits: the comparison the spec's bit-exact promises
// are tested with (== would call -0 and +0 equal and NaN unequal to itself).

#include "layer/eigen_types.h"

#include <cstring>

namespace tp::test {

/// Same shape, and every element the same float32 bits.
inline bool sameBits(const MatrixCRef& a, const MatrixCRef& b) {
    if (a.rows() != b.rows() || a.cols() != b.cols())
        return false;
    for (Index r = 0; r < a.rows(); ++r)
        if (std::memcmp(a.row(r).data(), b.row(r).data(), std::size_t(a.cols()) * sizeof(float)) !=
            0)
            return false;
    return true;
}

}  // namespace tp::test
