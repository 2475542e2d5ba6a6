#pragma once

// The first step of a heatmap's MaxAbs downsampling: down each column of a band of rows, the
// element a scan of the column row by row keeps, and its row. Plain loops built for the baseline
// CPU, AVX2 and AVX-512, chosen by the SIMD path; every path gives the same bits.

#include "layer/eigen_types.h"
#include "layer/simd_path.h"

#include <cstdint>
#include <vector>

namespace tp {

/// A band of rows of a row-major float matrix: row r (0 <= r < rows) is the `cols` floats at
/// data + r * stride.
struct FloatBand {
    const float* data = nullptr;
    Index rows = 0;
    Index cols = 0;
    Index stride = 0;
};

/// What maxAbsDownColumns finds for each column c of a band; each vector holds `cols` values.
struct ColumnWinners {
    std::vector<float> value;       ///< the column's winner
    std::vector<std::int32_t> row;  ///< its row in the band (0 when no element wins)
    std::vector<float>
        finiteMax;  ///< the column's largest finite |element| (when asked; else empty)
};

/// For each column c of `band`: value[c], the element a scan of the column from row 0 down keeps,
/// starting from +0 and taking an element v when |v| > |kept| or v is NaN (so the first element
/// with the largest |value| wins, a NaN replaces anything and is replaced only by a later NaN, and
/// a column of zeros gives +0); row[c], the row of that element; and, when trackFiniteMax,
/// finiteMax[c] = max(0, largest finite |element| of the column). The vectors are resized to
/// band.cols and reused, so a caller keeps one ColumnWinners per thread. Columns are read a tile
/// at a time, so that the tile's winners stay in the L1 cache while the band's rows pass.
void maxAbsDownColumns(const FloatBand& band, bool trackFiniteMax, ColumnWinners& winners,
                       SimdPath path = SimdPath::Best);

}  // namespace tp
