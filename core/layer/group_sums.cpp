#include "layer/group_sums.h"

#include "layer/fresh_matrix.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cassert>

namespace tp {
namespace {

// The tiles' rows at most.
constexpr Index kTileRows = 256;

// The tiles' columns at most: 10 strips of kGroupStrip, or for a batch of at most kFewRows rows
// 1024, whose products, summed in order, read the kernel's rows in longer runs (480 columns took
// 1.48x to 1.83x the full product at (8, 4096, 16384), 1024 columns 1.13x to 1.24x).
Index tileColumns(Index batch) {
    return batch <= kFewRows ? 1024 : 10 * kGroupStrip;
}

// The block of `m` (a matrix, or a Ref to one) that `tile` covers.
template <typename M>
auto tileOf(M& m, const OutputTile& tile) {
    return m.block(tile.rows.start, tile.cols.start, tile.rows.size(), tile.cols.size());
}

// The floats of scratch sumTileGroups takes for a batch of `batch` rows and `depth` terms in all
// (every group's).
Index tileScratchFloats(Index batch, Index depth) {
    return batch <= kFewRows ? batch * tileColumns(batch)
                             : groupScratchFloats(std::min(batch, kTileRows), depth);
}

// One scratch buffer per thread, allocated before a parallel region (an exception cannot leave
// one).
std::vector<std::vector<float>> scratchPerThread(Index floats) {
    return std::vector<std::vector<float>>(std::size_t(omp_get_max_threads()),
                                           std::vector<float>(std::size_t(floats)));
}

std::vector<float>& threadScratch(std::vector<std::vector<float>>& scratch) {
    return scratch[std::size_t(omp_get_thread_num())];
}

// The tiles of a `batch` x `features` output: at most kTileRows rows (each block of a strip of b
// that sumGroupProducts copies serves them all) by tileColumns columns (10 strips: about 480 KiB
// of sums), and at least four where the columns allow (narrower ones then), so that both threads
// work.
std::vector<OutputTile> groupSumTiles(Index batch, Index features) {
    const Index rows = kTileRows;
    Index cols = std::min<Index>(features, tileColumns(batch));
    const auto count = [&](Index c) {
        return (batch + rows - 1) / rows * ((features + c - 1) / c);
    };
    while (count(cols) < 4 && cols > kGroupStrip)
        cols =
            std::max<Index>(kGroupStrip, (cols / 2 + kGroupStrip - 1) / kGroupStrip * kGroupStrip);
    std::vector<OutputTile> tiles;
    for (Index r = 0; r < batch; r += rows)
        for (Index c = 0; c < features; c += cols)
            tiles.push_back({{r, std::min(batch, r + rows)}, {c, std::min(features, c + cols)}});
    return tiles;
}

// sum = the sum over the groups, in order, of a[tile rows, group g's terms] @ b[those terms, tile
// cols]: by sumGroupProducts, or for a batch of at most kFewRows rows by products of few rows
// added through `scratch`. Such products are bound by reading b, and sumGroupProducts' copies of
// its strips took 1.75x the full product's time at (8, 4096, 16384).
void sumTileGroups(Eigen::Ref<Matrix> sum, const MatrixCRef& a, const ProductFactor& b,
                   const std::vector<Index>& bounds, const OutputTile& tile,
                   std::vector<float>& scratch) {
    assert(Index(scratch.size()) >= tileScratchFloats(a.rows(), a.cols()));
    const auto rows = a.middleRows(tile.rows.start, tile.rows.size());
    const ProductFactor cols = b.middleCols(tile.cols.start, tile.cols.size());
    if (a.rows() > kFewRows) {
        sumGroupProducts(sum, rows, cols, bounds, scratch.data());
        return;
    }
    Eigen::Map<Matrix> product(scratch.data(), sum.rows(), sum.cols());
    for (std::size_t g = 0; g + 1 < bounds.size(); ++g) {
        const Index start = bounds[g], terms = bounds[g + 1] - bounds[g];
        if (g == 0) {
            multiply(sum, rows.middleCols(start, terms), cols.middleRows(start, terms));
        } else {
            multiply(product, rows.middleCols(start, terms), cols.middleRows(start, terms));
            sum += product;
        }
    }
}

}  // namespace

void sumGroupsByTiles(Matrix& out, const MatrixCRef& a, const ProductFactor& b,
                      const std::vector<Index>& bounds, Progress* progress, Index units,
                      const TileDone& done) {
    assert(a.cols() == b.rows() && out.rows() == a.rows() && out.cols() == b.cols());
    assert(bounds.size() >= 2 && bounds.front() == 0 && bounds.back() == a.cols());
    const std::vector<OutputTile> tiles = groupSumTiles(a.rows(), b.cols());
    std::atomic<Index> tilesDone{0};
    std::vector<std::vector<float>> scratch =
        scratchPerThread(tileScratchFloats(a.rows(), a.cols()));
#pragma omp parallel
    {
        // The fresh output's pages are mapped before any tile is written.
        mapThreadRows(out);
#pragma omp barrier
#pragma omp for schedule(dynamic, 1)
        for (std::size_t t = 0; t < tiles.size(); ++t) {
            if (isCancelled(progress))
                continue;
            const OutputTile& tile = tiles[t];
            auto sum = tileOf(out, tile);
            sumTileGroups(sum, a, b, bounds, tile, threadScratch(scratch));
            if (done)
                done(tile, sum);
            const Index finished = ++tilesDone;
            const Index count = Index(tiles.size());
            advance(progress, finished * units / count - (finished - 1) * units / count);
        }
    }
}

void groupProduct(const MatrixCRef& a, const ProductFactor& b, Eigen::Ref<Matrix> out) {
    assert(a.cols() == b.rows() && out.rows() == a.rows() && out.cols() == b.cols());
    const std::vector<OutputTile> tiles = groupSumTiles(a.rows(), b.cols());
    std::vector<std::vector<float>> scratch =
        scratchPerThread(tileScratchFloats(a.rows(), a.cols()));
    const std::vector<Index> alone{0, a.cols()};
#pragma omp parallel for schedule(dynamic, 1)
    for (std::size_t t = 0; t < tiles.size(); ++t)
        sumTileGroups(tileOf(out, tiles[t]), a, b, alone, tiles[t], threadScratch(scratch));
}

Matrix groupProduct(const MatrixCRef& a, const ProductFactor& b) {
    Matrix product = mappedMatrix(a.rows(), b.cols());
    groupProduct(a, b, product);
    return product;
}

std::vector<Index> groupBounds(const ShardingPlan& plan) {
    std::vector<Index> bounds{0};
    for (const ShardGroup& g : plan.groups)
        bounds.push_back(plan.mode == ParallelMode::Row ? g.kernelRows.stop : g.kernelCols.stop);
    return bounds;
}

Partials groupSumPartials(const MatrixCRef& a, const ProductFactor& b, std::vector<Index> bounds) {
    const Index groups = Index(bounds.size()) - 1;
    return Partials(groups, [a, b, bounds = std::move(bounds)](Index g) {
        const Index start = bounds[std::size_t(g)];
        const Index terms = bounds[std::size_t(g) + 1] - start;
        return groupProduct(a.middleCols(start, terms), b.middleRows(start, terms));
    });
}

}  // namespace tp
