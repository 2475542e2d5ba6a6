#include "max_abs_columns.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tp {

namespace {

// Columns read down at a time: their winners (8 bytes a column, 12 with finiteMax) fit the L1
// cache.
constexpr Index kColumnTile = 2048;

// Row `band` of a tile, columns [0, count): each column's winner and its row, by the scan's rule,
// and the largest finite |element| when kTrackMax. No branch, so each path's compiler vectorises
// it; only compares and selects, so every lane gives the scalar bits.
template <bool kTrackMax>
[[gnu::always_inline]] inline void takeRow(const float* __restrict row, Index count,
                                           std::int32_t band, float* __restrict value,
                                           std::int32_t* __restrict winnerRow,
                                           float* __restrict largest) {
    for (Index c = 0; c < count; ++c) {
        const float v = row[c];
        const float a = std::fabs(v);
        const bool take = (a > std::fabs(value[c])) | std::isnan(v);
        value[c] = take ? v : value[c];
        winnerRow[c] = take ? band : winnerRow[c];
        if constexpr (kTrackMax)
            largest[c] = a <= std::numeric_limits<float>::max() && a > largest[c] ? a : largest[c];
    }
}

template <bool kTrackMax>
[[gnu::always_inline]] inline void downColumns(const FloatBand& b, float* value,
                                               std::int32_t* winnerRow, float* largest) {
    for (Index tile = 0; tile < b.cols; tile += kColumnTile) {
        const Index count = std::min(b.cols - tile, kColumnTile);
        for (Index r = 0; r < b.rows; ++r)
            takeRow<kTrackMax>(b.data + r * b.stride + tile, count, std::int32_t(r), value + tile,
                               winnerRow + tile, kTrackMax ? largest + tile : nullptr);
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
    winners.value.assign(cols, 0.0f);
    winners.row.assign(cols, 0);
    if (trackFiniteMax) {
        winners.finiteMax.assign(cols, 0.0f);
        downColumnsOn<true>(path, band, winners.value.data(), winners.row.data(),
                            winners.finiteMax.data());
    } else {
        winners.finiteMax.clear();
        downColumnsOn<false>(path, band, winners.value.data(), winners.row.data(), nullptr);
    }
}

}  // namespace tp
