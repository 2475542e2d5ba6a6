#include "rank_backward.h"

#include "devices/backward_collectives.h"
#include "nnx/nnx_init.h"
#include "output_collective.h"
#include "steady_seconds.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <utility>

namespace tp::mpi {
namespace {

// The columns of dy a rank draws: in column mode its own, whatever the output's layout (of a
// replicated dy it takes its columns and needs no other); in row mode those the output's layout
// gives it (all of dy, or block m before the all-gather).
IndexRange drawnDyColumns(const LayerConfig& config, const RankPlace& place,
                          const RankShare& share) {
    return config.mode == ParallelMode::Column ? share.ranges.kernelCols
                                               : heldColumns(config, place);
}

}  // namespace

Matrix rankCotangent(const LayerConfig& config, const RankPlace& place, const RankShare& share) {
    const IndexRange rows = share.ranges.batchRows;
    const IndexRange cols = drawnDyColumns(config, place, share);
    Matrix block = cotangentBlock(config, rows, cols);
    if (config.mode == ParallelMode::Column || cols.size() == config.features)
        return block;
    Matrix dy = Matrix::Zero(rows.size(), config.features);
    dy.middleCols(cols.start, cols.size()) = block;
    return dy;
}

namespace {

// The buffer an all-reduce sums in place: the rank's dx, dkernel or dbias.
std::pair<float*, Index> reducedBuffer(Gradients& g, const std::string& of) {
    if (of == "dx")
        return {g.dx.data(), g.dx.size()};
    if (of == "dkernel")
        return {g.dkernel.data(), g.dkernel.size()};
    assert(of == "dbias");
    return {g.dbias.data(), g.dbias.size()};
}

// Runs one of the backward's collectives on the rank's buffers; its wall clock in the steady state
// (steadyCollective: after every rank of its axis is ready, not the wait for the slowest product,
// and after untimed calls).
double runCollective(const LayerConfig& config, const BackwardCollective& collective,
                     RankGradients& out, MPI_Comm modelComm, MPI_Comm dataComm) {
    const MPI_Comm comm = collective.axis == MeshAxis::Model ? modelComm : dataComm;
    if (collective.cost.kind == CollectiveKind::AllGather) {
        assert(collective.of == "dy");
        Matrix blocks;
        return steadyCollective(comm, std::span(out.dy.data(), std::size_t(out.dy.size())),
                                [&] {
                                    return allGatherColumns(out.dy, config.features / config.tpSize,
                                                            blocks, comm);
                                })
            .call;
    }
    assert(collective.cost.kind == CollectiveKind::AllReduce);
    const auto [data, count] = reducedBuffer(out.gradients, collective.of);
    return steadyCollective(
               comm, std::span(data, std::size_t(count)),
               [&] { MPI_Allreduce(MPI_IN_PLACE, data, int(count), MPI_FLOAT, MPI_SUM, comm); })
        .call;
}

}  // namespace

void collectOnRankZero(const LayerConfig& config, const RankPlace& place, const float* block,
                       Index rows, Index cols, const std::function<bool(const RankPlace&)>& wanted,
                       const std::function<void(const RankPlace&, const MatrixCRef&)>& put, int tag,
                       MPI_Comm world) {
    const int count = int(rows * cols);
    if (place.rank != 0) {
        if (wanted(place))
            MPI_Send(block, count, MPI_FLOAT, 0, tag, world);
        return;
    }
    Matrix received(rows, cols);
    for (int r = 0; r < int(config.dataSize * config.tpSize); ++r) {
        const RankPlace from = rankPlace(config, r);
        if (!wanted(from))
            continue;
        if (r == 0) {
            put(from, Eigen::Map<const Matrix>(block, rows, cols));
            continue;
        }
        MPI_Recv(received.data(), count, MPI_FLOAT, r, tag, world, MPI_STATUS_IGNORE);
        put(from, received);
    }
}

std::int64_t rankBackwardBytesNeeded(const LayerConfig& c) {
    const std::int64_t p = c.tpSize;
    const std::int64_t rows = c.batch / c.dataSize;
    const bool column = c.mode == ParallelMode::Column;
    const bool gathered = !column && c.outputLayout() == OutputLayout::Sharded && p > 1;
    const std::int64_t dy = rows * (column ? c.features / p : c.features);
    const std::int64_t ownBlock = gathered ? rows * c.features / p : 0;
    const std::int64_t dkernel = c.inDim * c.features / p;
    const std::int64_t dbias = column ? c.features / p : c.features;
    const std::int64_t dx = column ? 2 * rows * c.inDim : rows * c.inDim / p;
    return (dy + ownBlock + dkernel + dbias + dx) * std::int64_t(sizeof(float));
}

std::int64_t largestBackwardMessage(const LayerConfig& c) {
    const std::int64_t rows = c.batch / c.dataSize;
    return std::max({rows * c.features, rows * c.inDim, c.inDim * c.features / c.tpSize});
}

RankGradients runBackward(const LayerConfig& config, const RankPlace& place, const RankShare& share,
                          MPI_Comm modelComm, MPI_Comm dataComm, bool keepPartial,
                          const std::string& skipped) {
    const std::vector<BackwardCollective> collectives = backwardCollectives(config);
    RankGradients out;
    out.collectiveSeconds.assign(collectives.size(), 0.0);
    const auto run = [&](std::size_t i) {
        if (collectives[i].of != skipped)
            out.collectiveSeconds[i] =
                runCollective(config, collectives[i], out, modelComm, dataComm);
    };

    double start = MPI_Wtime();
    out.dy = rankCotangent(config, place, share);
    out.generateSeconds = MPI_Wtime() - start;
    // dy's all-gather (row + sharded) comes first: the products need all of the rank's dy rows.
    std::size_t next = 0;
    for (; next < collectives.size() && collectives[next].of == "dy"; ++next)
        run(next);

    // The rank's shards are one group of a split of their own shape: the core's split pass on it
    // computes exactly the rank's products.
    const ShardingPlan one =
        ShardingPlan::make(config.mode, share.kernel.rows(), share.kernel.cols(), 1);
    BackwardResult own;
    out.computeSeconds = steadySeconds([&] {
        own = {};
        own = backwardParallel(share.x, share.kernel, out.dy, one);
    });
    // One group's dx is its partial, bit for bit (backward.h): kept before the all-reduce.
    if (keepPartial && !own.dxPartials.empty())
        out.dxPartial = own.gradients.dx;
    out.gradients = std::move(own.gradients);
    own = BackwardResult();

    for (; next < collectives.size(); ++next)
        run(next);
    return out;
}

BackwardResult gatherGradients(const LayerConfig& config, const RankPlace& place,
                               const RankGradients& mine, MPI_Comm world) {
    const bool column = config.mode == ParallelMode::Column;
    const bool zero = place.rank == 0;
    BackwardResult result;
    Gradients& whole = result.gradients;
    if (zero) {
        result.plan = ShardingPlan::make(config);
        whole.dx.resize(config.batch, config.inDim);
        whole.dkernel.resize(config.inDim, config.features);
        whole.dbias.resize(config.features);
    }
    // After the all-reduce over "data", every data row holds the same dkernel and dbias: the
    // first data row's are taken; in row mode every model index holds all of dbias, so the first
    // rank's is.
    const auto firstDataRow = [](const RankPlace& from) { return from.d == 0; };
    const auto dbiasHolder = [&](const RankPlace& from) {
        return from.d == 0 && (column || from.m == 0);
    };
    // Column mode: after the all-reduce over "model", every model index holds all of dx's rows.
    const auto dxHolder = [&](const RankPlace& from) { return !column || from.m == 0; };

    const Gradients& g = mine.gradients;
    collectOnRankZero(
        config, place, g.dkernel.data(), g.dkernel.rows(), g.dkernel.cols(), firstDataRow,
        [&](const RankPlace& from, const MatrixCRef& block) {
            const ShareRanges r = shareRanges(config, from);
            whole.dkernel.block(r.kernelRows.start, r.kernelCols.start, block.rows(),
                                block.cols()) = block;
        },
        1, world);
    collectOnRankZero(
        config, place, g.dbias.data(), 1, g.dbias.size(), dbiasHolder,
        [&](const RankPlace& from, const MatrixCRef& block) {
            whole.dbias.segment(shareRanges(config, from).biasCols.start, block.cols()) =
                block.row(0);
        },
        2, world);
    collectOnRankZero(
        config, place, g.dx.data(), g.dx.rows(), g.dx.cols(), dxHolder,
        [&](const RankPlace& from, const MatrixCRef& block) {
            const ShareRanges r = shareRanges(config, from);
            whole.dx.block(r.batchRows.start, r.xCols.start, block.rows(), block.cols()) = block;
        },
        3, world);
    if (column && mine.dxPartial.size() != 0) {
        std::vector<Matrix> partials;
        if (zero)
            partials.assign(std::size_t(config.tpSize), Matrix(config.batch, config.inDim));
        collectOnRankZero(
            config, place, mine.dxPartial.data(), mine.dxPartial.rows(), mine.dxPartial.cols(),
            [](const RankPlace&) { return true; },
            [&](const RankPlace& from, const MatrixCRef& block) {
                partials[std::size_t(from.m)].middleRows(shareRanges(config, from).batchRows.start,
                                                         block.rows()) = block;
            },
            4, world);
        result.dxPartials = std::move(partials);
    }
    return result;
}

}  // namespace tp::mpi
