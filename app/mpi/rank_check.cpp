#include "rank_check.h"

#include "layer/forward.h"
#include "nnx/nnx_init.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <cstdint>

namespace tp::mpi {

std::vector<float> gatherFloats(const float* data, Index count, MPI_Comm world) {
    int rank = 0;
    int size = 1;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    std::vector<float> all(rank == 0 ? std::size_t(count) * std::size_t(size) : 0);
    MPI_Gather(data, int(count), MPI_FLOAT, all.data(), int(count), MPI_FLOAT, 0, world);
    return all;
}

namespace {

using ConstBlockMap = Eigen::Map<const Matrix>;

// Verdicts in order of how little they conclude, so that ranks merge to the largest.
std::uint64_t verdictRank(Verdict verdict) {
    return verdict == Verdict::Passed ? 0 : verdict == Verdict::Inconclusive ? 1 : 2;
}

}  // namespace

Verification checkOutput(const MatrixCRef& actual, const MatrixCRef& reference, const MatrixCRef& x,
                         const MatrixCRef& kernel, const RowVectorCRef& bias,
                         const CheckSettings& settings) {
    return verify(actual, reference, x, kernel, bias, settings);
}

IndexRange contributedColumns(const LayerConfig& config, const RankPlace& place) {
    const std::int64_t width = config.features / config.tpSize;
    const std::int64_t block =
        config.outputLayout() == OutputLayout::Replicated ? (place.m + 1) % config.tpSize : place.m;
    return {block * width, (block + 1) * width};
}

namespace {

Matrix contributedBlock(const LayerConfig& config, const RankPlace& place,
                        const RankOutput& output) {
    const IndexRange cols = contributedColumns(config, place);
    const Index offset = cols.start - heldColumns(config, place).start;
    return output.held.middleCols(offset, cols.size());
}

}  // namespace

Matrix gatherOutput(const LayerConfig& config, const RankPlace& place, const RankOutput& output,
                    MPI_Comm world) {
    const Matrix block = contributedBlock(config, place, output);
    const std::vector<float> all = gatherFloats(block.data(), block.size(), world);
    if (place.rank != 0)
        return {};
    Matrix assembled(config.batch, config.features);
    const Index rows = block.rows();
    const Index width = block.cols();
    for (int r = 0; r < int(config.dataSize * config.tpSize); ++r) {
        const RankPlace from = rankPlace(config, r);
        const IndexRange cols = contributedColumns(config, from);
        assembled.block(from.d * rows, cols.start, rows, width) =
            ConstBlockMap(all.data() + std::size_t(r) * std::size_t(rows * width), rows, width);
    }
    return assembled;
}

std::vector<Matrix> gatherPartials(const LayerConfig& config, const RankPlace& place,
                                   const RankOutput& output, MPI_Comm world) {
    assert(output.partial.size() != 0);
    const std::vector<float> all =
        gatherFloats(output.partial.data(), output.partial.size(), world);
    if (place.rank != 0)
        return {};
    const Index rows = output.partial.rows();
    const Index cols = output.partial.cols();
    std::vector<Matrix> partials(std::size_t(config.tpSize), Matrix(config.batch, cols));
    for (int r = 0; r < int(config.dataSize * config.tpSize); ++r) {
        const RankPlace from = rankPlace(config, r);
        partials[std::size_t(from.m)].middleRows(from.d * rows, rows) =
            ConstBlockMap(all.data() + std::size_t(r) * std::size_t(rows * cols), rows, cols);
    }
    return partials;
}

Verification checkBlocks(const LayerConfig& config, const RankPlace& place,
                         const RankOutput& output, RankShare& share, const CheckSettings& settings,
                         MPI_Comm world) {
    const Matrix block = contributedBlock(config, place, output);
    const IndexRange cols = contributedColumns(config, place);
    const IndexRange rows = share.ranges.batchRows;
    share.kernel = Matrix();  // the share's kernel is done with; the reference block takes its room
    const Matrix x = inputBlock(config, rows, {0, config.inDim});
    const Matrix kernel = kernelBlock(config, {0, config.inDim}, cols);
    const RowVector bias = biasSlice(config, cols);
    const Matrix reference = forwardReference(x, kernel, bias);
    const Verification mine = checkOutput(block, reference, x, kernel, bias, settings);

    // The counts and places, then the errors; places in the whole output.
    constexpr int kCounts = 12;
    constexpr int kErrors = 6;
    const std::array<std::uint64_t, kCounts> counts{verdictRank(mine.verdict),
                                                    mine.allclose ? 1u : 0u,
                                                    std::uint64_t(mine.elements),
                                                    std::uint64_t(mine.bitIdentical),
                                                    std::uint64_t(mine.nanElements),
                                                    mine.maxUlp,
                                                    std::uint64_t(rows.start + mine.worstRow),
                                                    std::uint64_t(cols.start + mine.worstCol),
                                                    std::uint64_t(mine.overBound),
                                                    std::uint64_t(rows.start + mine.worstBoundRow),
                                                    std::uint64_t(cols.start + mine.worstBoundCol),
                                                    std::uint64_t(mine.overWorstCase)};
    const std::array<double, kErrors> errors{
        mine.maxAbsError,           mine.maxRelError, mine.maxErrorOverBound,
        mine.maxErrorOverWorstCase, mine.resolution,  mine.valueScale * mine.valueScale};
    int size = 1;
    MPI_Comm_size(world, &size);
    const std::size_t ranks = place.rank == 0 ? std::size_t(size) : 0;
    std::vector<std::uint64_t> allCounts(kCounts * ranks);
    std::vector<double> allErrors(kErrors * ranks);
    MPI_Gather(counts.data(), kCounts, MPI_UINT64_T, allCounts.data(), kCounts, MPI_UINT64_T, 0,
               world);
    MPI_Gather(errors.data(), kErrors, MPI_DOUBLE, allErrors.data(), kErrors, MPI_DOUBLE, 0, world);

    // A NaN error (a NaN element) wins the maximum, as it does within one block.
    const auto larger = [](double candidate, double current) {
        return std::isnan(candidate) ? !std::isnan(current) : candidate > current;
    };
    Verification merged;
    double squares = 0.0;  // the values' mean square times the elements, over the ranks
    merged.rule = settings.rule;
    merged.tolerance = settings.tolerance;
    merged.inDim = mine.inDim;
    for (std::size_t r = 0; r < ranks; ++r) {
        const std::uint64_t* c = allCounts.data() + kCounts * r;
        const double* e = allErrors.data() + kErrors * r;
        // The ranks' verdicts merge to the least conclusive: failed, then inconclusive.
        if (r == 0 || c[0] > verdictRank(merged.verdict))
            merged.verdict = c[0] == 0   ? Verdict::Passed
                             : c[0] == 1 ? Verdict::Inconclusive
                                         : Verdict::Failed;
        merged.allclose = merged.allclose && c[1] != 0;
        merged.elements += Index(c[2]);
        merged.bitIdentical += Index(c[3]);
        merged.nanElements += Index(c[4]);
        merged.maxUlp = std::max(merged.maxUlp, c[5]);
        if (r == 0 || larger(e[0], merged.maxAbsError)) {
            merged.maxAbsError = e[0];
            merged.worstRow = Index(c[6]);
            merged.worstCol = Index(c[7]);
        }
        merged.overBound += Index(c[8]);
        merged.overWorstCase += Index(c[11]);
        if (r == 0 || larger(e[2], merged.maxErrorOverBound)) {
            merged.maxErrorOverBound = e[2];
            merged.worstBoundRow = Index(c[9]);
            merged.worstBoundCol = Index(c[10]);
        }
        if (r == 0 || larger(e[1], merged.maxRelError))
            merged.maxRelError = e[1];
        if (r == 0 || larger(e[3], merged.maxErrorOverWorstCase))
            merged.maxErrorOverWorstCase = e[3];
        // A rank whose resolution was not needed (NaN) leaves the others' largest.
        if (!std::isnan(e[4]) && (std::isnan(merged.resolution) || e[4] > merged.resolution))
            merged.resolution = e[4];
        else if (r == 0)
            merged.resolution = e[4];
        squares += e[5] * double(c[2]);
    }
    merged.valueScale = merged.elements > 0 ? std::sqrt(squares / double(merged.elements)) : 0.0;
    return merged;
}

}  // namespace tp::mpi
