#include "heatmap_downsample.h"

#include "layer/finite_max_abs.h"

#include <algorithm>
#include <bit>
#include <cstdint>

namespace tp {

namespace {

// The bits of |v|, which order as |v| does for numbers and infinities, and above them all for NaN.
std::uint32_t absBits(float v) {
    return std::bit_cast<std::uint32_t>(v) & 0x7FFFFFFFu;
}

}  // namespace

template <bool kTrackMax>
float reduceMean(const MatrixData& m, IndexRange rows, const std::vector<IndexRange>& colsOfPixel,
                 float* out) {
    const std::size_t width = colsOfPixel.size();
    float rowMax = 0.0f;
    std::fill(out, out + width, 0.0f);
    for (Index r = rows.start; r < rows.stop; ++r) {
        const float* row = m.rowData(r);
        for (std::size_t x = 0; x < width; ++x) {
            const IndexRange cols = colsOfPixel[x];
            float acc = out[x];
            for (Index c = cols.start; c < cols.stop; ++c) {
                acc += row[c];
                if constexpr (kTrackMax)
                    rowMax = finiteMax(rowMax, row[c]);
            }
            out[x] = acc;
        }
    }
    for (std::size_t x = 0; x < width; ++x)
        out[x] /= float(rows.size() * colsOfPixel[x].size());
    return rowMax;
}

template <bool kTrackMax>
float reduceMaxAbs(const MatrixData& m, IndexRange rows, const std::vector<IndexRange>& colsOfPixel,
                   float* out, ColumnWinners& winners) {
    const Index cols = m.cols();
    maxAbsDownColumns({m.rowData(rows.start), rows.size(), cols, m.stride()}, kTrackMax, winners);
    const float* const value = winners.value.data();
    const std::int32_t* const winnerRow = winners.row.data();
    const std::size_t width = colsOfPixel.size();
    for (std::size_t x = 0; x < width; ++x) {
        const IndexRange pixelCols = colsOfPixel[x];
        // Without a branch per column, whose outcome no predictor guesses: the largest |value|
        // first, then the first column among those reaching it with the earliest row.
        std::uint32_t top = 0;
        for (Index c = pixelCols.start; c < pixelCols.stop; ++c)
            top = std::max(top, absBits(value[c]));
        if (top > std::uint32_t(kInfinityBits)) {
            // A NaN replaces anything: the last column's NaN, which the scan meets last.
            Index c = pixelCols.stop - 1;
            while (!std::isnan(value[c]))
                --c;
            out[x] = value[c];
            continue;
        }
        Index best = pixelCols.start;
        std::int32_t bestRow = std::numeric_limits<std::int32_t>::max();
        for (Index c = pixelCols.start; c < pixelCols.stop; ++c) {
            const bool better = (absBits(value[c]) == top) & (winnerRow[c] < bestRow);
            bestRow = better ? winnerRow[c] : bestRow;
            best = better ? c : best;
        }
        out[x] = value[best];
    }
    float bandMax = 0.0f;
    if constexpr (kTrackMax) {
        for (Index c = 0; c < cols; ++c)
            bandMax = std::max(bandMax, winners.finiteMax[std::size_t(c)]);
    }
    return bandMax;
}

// Both of each, as renderHeatmap asks for the band's largest |element| or not.
template float reduceMean<true>(const MatrixData&, IndexRange, const std::vector<IndexRange>&,
                                float*);
template float reduceMean<false>(const MatrixData&, IndexRange, const std::vector<IndexRange>&,
                                 float*);
template float reduceMaxAbs<true>(const MatrixData&, IndexRange, const std::vector<IndexRange>&,
                                  float*, ColumnWinners&);
template float reduceMaxAbs<false>(const MatrixData&, IndexRange, const std::vector<IndexRange>&,
                                   float*, ColumnWinners&);

}  // namespace tp
