#pragma once

// The reductions of renderHeatmap's first pass: the one value each pixel of a band of rows shows
// when the image is smaller than the matrix, by Downsample::Mean or Downsample::MaxAbs.

#include "layer/eigen_types.h"
#include "layer/max_abs_columns.h"
#include "matrix_data.h"

#include <cmath>
#include <limits>
#include <vector>

namespace tp {

// max(largest, |v|) for a finite v; NaN and +-inf leave `largest` as it is.
inline float finiteMax(float largest, float v) {
    const float a = std::fabs(v);
    return a <= std::numeric_limits<float>::max() && a > largest ? a : largest;
}

// The Mean of the elements under each pixel of a band of rows into out[0..width), summed row by
// row in order; returns the largest finite |element| of the band when kTrackMax.
template <bool kTrackMax>
float reduceMean(const MatrixData& m, IndexRange rows, const std::vector<IndexRange>& colsOfPixel,
                 float* out);

// The MaxAbs of the elements under each pixel of a band of rows into out[0..width): the element
// a scan of the pixel's elements row by row would keep, the first with the largest |value|
// (a NaN replaces anything and is replaced only by a later NaN; all zeros give +0). Found in
// two steps over one read of the band. Down each column, row after row: the column's winner and
// its row, by the same rule (maxAbsDownColumns, vectorised for the SIMD path in use). Then along
// each pixel's columns: the winner with the largest |value|, a tie going to the earlier row (the
// scan meets it first), then to the earlier column. Returns the band's largest finite |element|
// when kTrackMax.
template <bool kTrackMax>
float reduceMaxAbs(const MatrixData& m, IndexRange rows, const std::vector<IndexRange>& colsOfPixel,
                   float* out, ColumnWinners& winners);

}  // namespace tp
