#include "layer/max_abs_columns.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tp {

namespace {

// Columns read down at a time: their winners (8 bytes a column, 12 with finiteMax) fit the L1
// cache.
constexpr Index kColumnTile = 2048;

// Row `band` of a tile, columns [0, count): each column's winner and its row, by the scan's rule,
// and the largest finite |element| when kTrackMax. The first row (kFirst) starts from +0 at row 0
// instead of reading what is kept, so the winners need no filling first. No branch, so each
// path's compiler vectorises it; only compares and selects, so every lane gives the scalar bits.
template <bool kTrackMax, bool kFirst>
[[gnu::always_inline]] inline void takeRow(const float* __restrict row, Index count,
                                           std::int32_t band, float* __restrict value,
                                           std::int32_t* __restrict winnerRow,
                                           float* __restrict largest) {
    for (Index c = 0; c < count; ++c) {
        const float v = row[c];
        const float a = std::fabs(v);
        const float kept = kFirst ? 0.0f : value[c];
        const std::int32_t keptRow = kFirst ? 0 : winnerRow[c];
        const bool take = (a > std::fabs(kept)) | std::isnan(v);
        value[c] = take ? v : kept;
        winnerRow[c] = take ? band : keptRow;
        if constexpr (kTrackMax) {
            const float most = kFirst ? 0.0f : largest[c];
            largest[c] = a <= std::numeric_limits<float>::max() && a > most ? a : most;
        }
    }
}

template <bool kTrackMax>
[[gnu::always_inline]] inline void downColumns(const FloatBand& b, float* value,
                                               std::int32_t* winnerRow, float* largest) {
    for (Index tile = 0; tile < b.cols; tile += kColumnTile) {
        const Index count = std::min(b.cols - tile, kColumnTile);
        float* const tileLargest = kTrackMax ? largest + tile : nullptr;
        takeRow<kTrackMax, true>(b.data + tile, count, 0, value + tile, winnerRow + tile,
                                 tileLargest);
        for (Index r = 1; r < b.rows; ++r)
            takeRow<kTrackMax, false>(b.data + r * b.stride + tile, count, std::int32_t(r),
                                      value + tile, winnerRow + tile, tileLargest);
    }
}

// downColumns for the baseline CPU, AVX2 (eight lanes) and AVX-512 (sixteen lanes).
template <bool kTrackMax>
void downColumnsBaseline(const FloatBand& b, float* value, std::int32_t* row, float* largest) {
    downColumns<kTrackMax>(b, value, row, largest);
}
template <bool kTrackMax>
[[gnu::target("avx2")]] void downColumnsAvx2(const FloatBand& b, float* value, std::int32_t* row,
                                             float* largest) {
    downColumns<kTrackMax>(b, value, row, largest);
}
template <bool kTrackMax>
[[gnu::target("avx512f,avx512vl,avx512bw,avx512dq")]] void downColumnsAvx512(const FloatBand& b,
                                                                             float* value,
                                                                             std::int32_t* row,
                                                                             float* largest) {
    downColumns<kTrackMax>(b, value, row, largest);
}

template <bool kTrackMax>
void downColumnsOn(SimdPath path, const FloatBand& b, float* value, std::int32_t* row,
                   float* largest) {
    switch (resolveSimdPath(path)) {
        case SimdPath::Avx512:
            downColumnsAvx512<kTrackMax>(b, value, row, largest);
            break;
        case SimdPath::Avx2:
            downColumnsAvx2<kTrackMax>(b, value, row, largest);
            break;
        default:
            downColumnsBaseline<kTrackMax>(b, value, row, largest);
            break;
    }
}

}  // namespace

void maxAbsDownColumns(const FloatBand& band, bool trackFiniteMax, ColumnWinners& winners,
                       SimdPath path) {
    const auto cols = std::size_t(band.cols);
    if (band.rows == 0) {
        winners.value.assign(cols, 0.0f);
        winners.row.assign(cols, 0);
        winners.finiteMax.assign(trackFiniteMax ? cols : 0, 0.0f);
        return;
    }
    // The first row writes every column: the winners need no filling.
    winners.value.resize(cols);
    winners.row.resize(cols);
    winners.finiteMax.resize(trackFiniteMax ? cols : 0);
    if (trackFiniteMax)
        downColumnsOn<true>(path, band, winners.value.data(), winners.row.data(),
                            winners.finiteMax.data());
    else
        downColumnsOn<false>(path, band, winners.value.data(), winners.row.data(), nullptr);
}

}  // namespace tp
