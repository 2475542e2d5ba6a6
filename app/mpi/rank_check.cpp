#include "rank_check.h"

#include "forward.h"
#include "nnx_init.h"

#include <array>
#include <cassert>

namespace tp::mpi {
namespace {

// Gathers `count` floats from every rank, in rank order, on rank 0.
std::vector<float> gatherFloats(const float* data, Index count, MPI_Comm world) {
    int rank = 0;
    int size = 1;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    std::vector<float> all(rank == 0 ? std::size_t(count) * std::size_t(size) : 0);
    MPI_Gather(data, int(count), MPI_FLOAT, all.data(), int(count), MPI_FLOAT, 0, world);
    return all;
}

using ConstBlockMap = Eigen::Map<const Matrix>;

}  // namespace

Verification checkOutput(const MatrixCRef& actual, const MatrixCRef& reference,
                         Tolerance tolerance) {
    return verify(actual, reference, tolerance);
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
                         const RankOutput& output, RankShare& share, Tolerance tolerance,
                         MPI_Comm world) {
    const Matrix block = contributedBlock(config, place, output);
    const IndexRange cols = contributedColumns(config, place);
    const IndexRange rows = share.ranges.batchRows;
    share.kernel = Matrix();  // the share's kernel is done with; the reference block takes its room
    const Matrix x = inputBlock(config, rows, {0, config.inDim});
    const Matrix kernel = kernelBlock(config, {0, config.inDim}, cols);
    const Matrix reference = forwardReference(x, kernel, biasSlice(config, cols));
    const Verification mine = checkOutput(block, reference, tolerance);

    // maxAbs, maxRel, worst row and column in the whole output, allclose.
    const std::array<double, 5> fields{
        mine.maxAbsError, mine.maxRelError, double(rows.start + mine.worstRow),
        double(cols.start + mine.worstCol), mine.allclose ? 1.0 : 0.0};
    int size = 1;
    MPI_Comm_size(world, &size);
    std::vector<double> all(place.rank == 0 ? 5 * std::size_t(size) : 0);
    MPI_Gather(fields.data(), 5, MPI_DOUBLE, all.data(), 5, MPI_DOUBLE, 0, world);

    Verification merged;
    merged.tolerance = tolerance;
    for (int r = 0; r < int(all.size() / 5); ++r) {
        const double* f = all.data() + 5 * r;
        if (r == 0 || f[0] > merged.maxAbsError) {
            merged.maxAbsError = f[0];
            merged.worstRow = Index(f[2]);
            merged.worstCol = Index(f[3]);
        }
        merged.maxRelError = std::max(merged.maxRelError, f[1]);
        merged.allclose = merged.allclose && f[4] != 0.0;
    }
    return merged;
}

}  // namespace tp::mpi
