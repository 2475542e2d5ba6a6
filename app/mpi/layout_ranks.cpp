#include "layout_ranks.h"

#include "devices/layout_costs.h"
#include "nnx/nnx_init.h"
#include "steady_seconds.h"

#include <algorithm>
#include <cassert>

namespace tp::mpi {
namespace {

constexpr std::int64_t kF32 = sizeof(float);

// Chunk `index` of `parts` equal chunks of `whole`.
IndexRange chunkOf(IndexRange whole, std::int64_t index, std::int64_t parts) {
    const std::int64_t size = whole.size() / parts;
    return {whole.start + index * size, whole.start + (index + 1) * size};
}

std::int64_t bytesOf(Index floats) {
    return floats * kF32;
}

// The rank's arrays at rest: the tensor layout's blocks, cut again as the header says.
struct RestRanges {
    ShareRanges share;  // the blocks the products use
    IndexRange kernelRows, biasCols, xRows;
};

RestRanges restRanges(const LayerConfig& c, const RankPlace& place) {
    const bool fsdp = c.layout == ShardingLayout::Fsdp;
    const bool xSplit = c.layout == ShardingLayout::Sequence && c.mode == ParallelMode::Column;
    RestRanges r;
    r.share = shareRanges(c, place);
    r.kernelRows = fsdp ? chunkOf(r.share.kernelRows, place.d, c.dataSize) : r.share.kernelRows;
    r.biasCols = fsdp ? chunkOf(r.share.biasCols, place.d, c.dataSize) : r.share.biasCols;
    r.xRows = xSplit ? chunkOf(r.share.batchRows, place.m, c.tpSize) : r.share.batchRows;
    return r;
}

// The rank's chunk `index` of `parts` of a block's rows (values, for a row vector): what it keeps.
template <typename Block>
Block chunkKept(const Block& whole, std::int64_t index, std::int64_t parts) {
    if constexpr (Block::RowsAtCompileTime == 1) {
        const Index size = whole.size() / parts;
        return whole.segment(index * size, size);
    } else {
        const Index rows = whole.rows() / parts;
        return whole.middleRows(index * rows, rows);
    }
}

// One step of a layout's program on this rank: the communicator of its axis and the rank's
// place on it.
class LayoutStep {
public:
    LayoutStep(const LayerConfig& c, const RankPlace& place, MPI_Comm modelComm, MPI_Comm dataComm,
               const LayoutCollective& step, double& wait)
        : m_wait(wait),
          m_comm(step.axis == MeshAxis::Model ? modelComm : dataComm),
          m_index(step.axis == MeshAxis::Model ? place.m : place.d),
          m_parts(step.axis == MeshAxis::Model ? c.tpSize : c.dataSize) {}

    // The whole block from the rank's chunk of its rows (values), gathered in place: chunk i from
    // the axis's rank i. `seconds`: the gather, after a barrier.
    template <typename Block>
    Block gathered(const Block& chunk, double& seconds) const {
        Block whole;
        if constexpr (Block::RowsAtCompileTime == 1) {
            whole.resize(chunk.size() * m_parts);
            whole.segment(m_index * chunk.size(), chunk.size()) = chunk;
        } else {
            whole.resize(chunk.rows() * m_parts, chunk.cols());
            whole.middleRows(m_index * chunk.rows(), chunk.rows()) = chunk;
        }
        seconds = timed(span(whole), [&] {
            MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, whole.data(), int(chunk.size()),
                          MPI_FLOAT, m_comm);
        });
        return whole;
    }

    // The rank's chunk of the sum over the axis of `whole`, cut along its rows (values).
    template <typename Block>
    Block reduceScattered(const Block& whole, double& seconds) const {
        Block chunk = chunkKept(whole, m_index, m_parts);
        seconds = timed({}, [&] {
            MPI_Reduce_scatter_block(whole.data(), chunk.data(), int(chunk.size()), MPI_FLOAT,
                                     MPI_SUM, m_comm);
        });
        return chunk;
    }

    // The tensor layout's gather of dy's (Nd, width) column blocks into the rank's (Nd, F) dy,
    // in place.
    double gatheredColumns(Matrix& whole, Index width) const {
        Matrix blocks;
        return timed(span(whole), [&] { return allGatherColumns(whole, width, blocks, m_comm); });
    }

    // The sum over the axis, in place.
    double allReduce(float* data, Index count) const {
        return timed(std::span(data, std::size_t(count)), [&] {
            MPI_Allreduce(MPI_IN_PLACE, data, int(count), MPI_FLOAT, MPI_SUM, m_comm);
        });
    }

    std::int64_t index() const { return m_index; }
    std::int64_t parts() const { return m_parts; }

private:
    // The call's seconds in the steady state (steadyCollective, with `kept` written back after
    // each untimed call); the wait for the axis's slowest rank is added to m_wait.
    template <typename Call>
    double timed(std::span<float> kept, Call&& call) const {
        const CollectiveSeconds seconds = steadyCollective(m_comm, kept, call);
        m_wait += seconds.wait;
        return seconds.call;
    }

    template <typename Block>
    static std::span<float> span(Block& block) {
        return {block.data(), std::size_t(block.size())};
    }

    double& m_wait;
    MPI_Comm m_comm;
    std::int64_t m_index;
    std::int64_t m_parts;
};

}  // namespace

LayoutHeld layoutHeld(const LayerConfig& c, const RankPlace& place) {
    const bool fsdp = c.layout == ShardingLayout::Fsdp;
    const bool column = c.mode == ParallelMode::Column;
    const RestRanges rest = restRanges(c, place);
    const ShareRanges& r = rest.share;
    const IndexRange ownRows = chunkOf(r.batchRows, place.m, c.tpSize);
    LayoutHeld held;
    held.output = {r.batchRows, heldColumns(c, place)};
    if (!fsdp && !column)
        held.output = {ownRows, {0, c.features}};
    held.dx = {r.batchRows, r.xCols};
    if (column)
        held.dx = {fsdp ? r.batchRows : ownRows, {0, c.inDim}};
    held.dkernel = {rest.kernelRows, r.kernelCols};
    held.dbias = {{0, 1}, rest.biasCols};
    return held;
}

LayoutRankRun runLayoutRanks(const LayerConfig& c, const RankPlace& place, MPI_Comm modelComm,
                             MPI_Comm dataComm, bool backward, bool keepPartial) {
    assert(c.layout != ShardingLayout::Tensor && c.block == Block::Linear);
    const bool column = c.mode == ParallelMode::Column;
    const bool rowsOut = c.layout == ShardingLayout::Sequence && !column;
    const std::vector<LayoutCollective> program = layoutCollectives(c, backward);
    double forwardWait = 0;  // the barriers' waits before the forward's collectives
    double backwardWait = 0;
    const auto stepAt = [&](std::size_t i) {
        return LayoutStep(c, place, modelComm, dataComm, program[i],
                          program[i].phase == PassPhase::Forward ? forwardWait : backwardWait);
    };
    LayoutRankRun run;
    run.collectiveSeconds.assign(program.size(), 0.0);

    const RestRanges rest = restRanges(c, place);
    double start = MPI_Wtime();
    RankShare share{rest.share, kernelBlock(c, rest.kernelRows, rest.share.kernelCols),
                    biasSlice(c, rest.biasCols), inputBlock(c, rest.xRows, rest.share.xCols)};
    run.generateSeconds = MPI_Wtime() - start;
    run.kernelBytesAtRest = bytesOf(share.kernel.size());
    run.biasBytesAtRest = bytesOf(share.bias.size());
    run.xBytesAtRest = bytesOf(share.x.size());
    const std::int64_t atRest = run.kernelBytesAtRest + run.biasBytesAtRest + run.xBytesAtRest;

    // The gathers before a pass's products replace the share's arrays by their whole blocks;
    // after the products the rank keeps its chunks again.
    std::vector<std::size_t> gathers;
    Matrix dy;
    const auto gather = [&](std::size_t i) {
        const LayoutStep step = stepAt(i);
        double& seconds = run.collectiveSeconds[i];
        const std::string& of = program[i].of;
        if (of == "kernel")
            share.kernel = step.gathered(share.kernel, seconds);
        else if (of == "bias")
            share.bias = step.gathered(share.bias, seconds);
        else if (of == "x")
            share.x = step.gathered(share.x, seconds);
        else if (!rowsOut)  // fsdp, row + sharded: the tensor layout's gather of column blocks
            seconds = step.gatheredColumns(dy, c.features / c.tpSize);
        else
            dy = step.gathered(dy, seconds);
        gathers.push_back(i);
    };
    const auto keepChunks = [&] {
        for (const std::size_t i : gathers) {
            const LayoutStep step = stepAt(i);
            if (program[i].of == "kernel")
                share.kernel = chunkKept(share.kernel, step.index(), step.parts());
            else if (program[i].of == "bias")
                share.bias = chunkKept(share.bias, step.index(), step.parts());
            else if (program[i].of == "x")
                share.x = chunkKept(share.x, step.index(), step.parts());
        }
        gathers.clear();
    };

    // The forward: the gathers, the product and the output collective.
    std::size_t next = 0;
    for (; next < program.size() && program[next].phase == PassPhase::Forward &&
           program[next].of != "output";
         ++next)
        gather(next);
    const bool outputStep = next < program.size() && program[next].of == "output";
    const Index rows = share.x.rows();
    std::int64_t productBuffer = 0;
    if (rowsOut) {
        Matrix partial(rows, c.features);
        run.output.computeSeconds = steadySeconds([&] { rowPartial(share, partial); });
        if (keepPartial)
            run.output.partial = partial;
        productBuffer = bytesOf(partial.size());
        Matrix& held = run.output.held;
        held = outputStep ? stepAt(next).reduceScattered(partial, run.collectiveSeconds[next])
                          : std::move(partial);
        held.rowwise() += share.bias;
    } else {
        run.output = runForward(c, place, share, modelComm, keepPartial);
        if (outputStep)
            run.collectiveSeconds[next] = run.output.communicationSeconds;
        // runForward's product buffer: column mode its output, row mode the partial sums.
        productBuffer = bytesOf(column ? run.output.held.size() : rows * c.features);
    }
    if (outputStep)
        ++next;
    const std::int64_t product =
        bytesOf(share.kernel.size() + share.bias.size() + share.x.size()) + productBuffer;
    run.bytesPeak =
        std::max(product, atRest + std::max(productBuffer, bytesOf(run.output.held.size())));
    keepChunks();
    run.output.waitSeconds += forwardWait;
    run.output.communicationSeconds = 0;
    for (std::size_t i = 0; i < next; ++i)
        run.output.communicationSeconds += run.collectiveSeconds[i];
    if (!backward)
        return run;

    // The backward: dy, the gathers, the products, then the gradients' collectives.
    RankGradients& out = run.backward;
    start = MPI_Wtime();
    dy = rowsOut
             ? cotangentBlock(c, chunkOf(rest.share.batchRows, place.m, c.tpSize), {0, c.features})
             : rankCotangent(c, place, share);
    out.generateSeconds = MPI_Wtime() - start;
    for (; next < program.size() && program[next].cost.kind == CollectiveKind::AllGather; ++next)
        gather(next);
    const ShardingPlan one =
        ShardingPlan::make(c.mode, share.kernel.rows(), share.kernel.cols(), 1);
    BackwardResult own;
    out.computeSeconds = steadySeconds([&] {
        own = {};
        own = backwardParallel(share.x, share.kernel, dy, one);
    });
    Gradients& g = own.gradients;
    run.bytesPeak =
        std::max(run.bytesPeak, bytesOf(share.kernel.size() + share.x.size() + dy.size() +
                                        g.dx.size() + g.dkernel.size() + g.dbias.size()) +
                                    run.biasBytesAtRest);
    // One group's dx is its partial, bit for bit (backward.h): kept before the all-reduce.
    if (keepPartial && !own.dxPartials.empty())
        out.dxPartial = g.dx;
    keepChunks();

    for (; next < program.size(); ++next) {
        const LayoutStep step = stepAt(next);
        double& seconds = run.collectiveSeconds[next];
        const std::string& of = program[next].of;
        if (program[next].cost.kind == CollectiveKind::AllReduce) {
            Matrix& m = of == "dx" ? g.dx : g.dkernel;
            seconds = of == "dbias" ? step.allReduce(g.dbias.data(), g.dbias.size())
                                    : step.allReduce(m.data(), m.size());
            continue;
        }
        assert(program[next].cost.kind == CollectiveKind::ReduceScatter);
        if (of == "dx")
            g.dx = step.reduceScattered(g.dx, seconds);
        else if (of == "dkernel")
            g.dkernel = step.reduceScattered(g.dkernel, seconds);
        else
            g.dbias = step.reduceScattered(g.dbias, seconds);
    }
    out.dy = std::move(dy);
    out.gradients = std::move(g);
    return run;
}

Matrix gatherLayoutOutput(const LayerConfig& c, const RankPlace& place, const Matrix& held,
                          MPI_Comm world) {
    Matrix whole;
    if (place.rank == 0)
        whole.resize(c.batch, c.features);
    collectOnRankZero(
        c, place, held.data(), held.rows(), held.cols(), [](const RankPlace&) { return true; },
        [&](const RankPlace& from, const MatrixCRef& block) {
            const HeldBlock at = layoutHeld(c, from).output;
            whole.block(at.rows.start, at.cols.start, block.rows(), block.cols()) = block;
        },
        5, world);
    return whole;
}

BackwardResult gatherLayoutGradients(const LayerConfig& c, const RankPlace& place,
                                     const RankGradients& mine, MPI_Comm world) {
    BackwardResult result;
    Gradients& whole = result.gradients;
    if (place.rank == 0) {
        result.plan = ShardingPlan::make(c);
        whole.dx.resize(c.batch, c.inDim);
        whole.dkernel.resize(c.inDim, c.features);
        whole.dbias.resize(c.features);
    }
    const auto every = [](const RankPlace&) { return true; };
    const auto into = [](Eigen::Ref<Matrix> target, HeldBlock at, const MatrixCRef& block) {
        target.block(at.rows.start, at.cols.start, block.rows(), block.cols()) = block;
    };
    const Gradients& g = mine.gradients;
    collectOnRankZero(
        c, place, g.dx.data(), g.dx.rows(), g.dx.cols(), every,
        [&](const RankPlace& from, const MatrixCRef& b) {
            into(whole.dx, layoutHeld(c, from).dx, b);
        },
        6, world);
    collectOnRankZero(
        c, place, g.dkernel.data(), g.dkernel.rows(), g.dkernel.cols(), every,
        [&](const RankPlace& from, const MatrixCRef& b) {
            into(whole.dkernel, layoutHeld(c, from).dkernel, b);
        },
        7, world);
    collectOnRankZero(
        c, place, g.dbias.data(), 1, g.dbias.size(), every,
        [&](const RankPlace& from, const MatrixCRef& b) {
            whole.dbias.segment(layoutHeld(c, from).dbias.cols.start, b.cols()) = b.row(0);
        },
        8, world);
    if (c.mode == ParallelMode::Column && mine.dxPartial.size() != 0) {
        std::vector<Matrix> partials;
        if (place.rank == 0)
            partials.assign(std::size_t(c.tpSize), Matrix(c.batch, c.inDim));
        collectOnRankZero(
            c, place, mine.dxPartial.data(), mine.dxPartial.rows(), mine.dxPartial.cols(), every,
            [&](const RankPlace& from, const MatrixCRef& b) {
                partials[std::size_t(from.m)].middleRows(shareRanges(c, from).batchRows.start,
                                                         b.rows()) = b;
            },
            9, world);
        result.dxPartials = std::move(partials);
    }
    return result;
}

}  // namespace tp::mpi
