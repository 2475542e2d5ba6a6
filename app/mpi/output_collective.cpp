#include "output_collective.h"

#include "devices/mesh_costs.h"
#include "steady_seconds.h"

#include <cassert>

namespace tp::mpi {

double allGatherColumns(Matrix& whole, Index width, Matrix& blocks, MPI_Comm comm) {
    int index = 0;
    MPI_Comm_rank(comm, &index);
    const Index rows = whole.rows();
    const Index parts = whole.cols() / width;
    if (blocks.rows() != rows * parts || blocks.cols() != width)
        blocks = Matrix::Zero(rows * parts, width);
    blocks.middleRows(index * rows, rows) = whole.middleCols(index * width, width);
    const double start = MPI_Wtime();
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, blocks.data(), int(rows * width), MPI_FLOAT,
                  comm);
    const double seconds = MPI_Wtime() - start;
    for (Index b = 0; b < parts; ++b)
        if (b != index)
            whole.middleCols(b * width, width) = blocks.middleRows(b * rows, rows);
    return seconds;
}

IndexRange heldColumns(const LayerConfig& config, const RankPlace& place) {
    if (config.outputLayout() == OutputLayout::Replicated)
        return {0, config.features};
    const std::int64_t width = config.features / config.tpSize;
    return {place.m * width, (place.m + 1) * width};
}

RankOutput runForward(const LayerConfig& config, const RankPlace& place, const RankShare& share,
                      MPI_Comm modelComm, bool keepPartial) {
    const Index rows = share.x.rows();
    const Index features = config.features;
    const Index width = features / config.tpSize;
    const CollectiveKind kind = collectiveFor(config.mode, config.outputLayout(), config.tpSize);
    const bool column = config.mode == ParallelMode::Column;
    RankOutput out;

    // Row mode, sharded: the partial sums packed by column block, for the reduce-scatter.
    const bool packs = !column && config.outputLayout() == OutputLayout::Sharded;
    Matrix packed;
    const Index offset = kind == CollectiveKind::AllGather ? place.m * width : 0;
    if (packs)
        packed.resize(rows * config.tpSize, width);
    else
        out.held.resize(rows, column && kind != CollectiveKind::AllGather ? width : features);
    out.computeSeconds = steadySeconds([&] {
        if (column)
            columnPartial(share, out.held.middleCols(offset, width));
        else if (packs)
            rowPartialPacked(share, config.tpSize, packed);
        else
            rowPartial(share, out.held);
    });
    if (keepPartial && column) {
        out.partial = out.held.middleCols(offset, width);
    } else if (keepPartial && packs) {
        out.partial.resize(rows, features);
        for (Index b = 0; b < config.tpSize; ++b)
            out.partial.middleCols(b * width, width) = packed.middleRows(b * rows, rows);
    } else if (keepPartial) {
        out.partial = out.held;
    }

    if (kind == CollectiveKind::ReduceScatter)
        out.held.resize(rows, width);
    // The collective on the rank's output buffer; its wall clock.
    Matrix blocks;  // an all-gather's blocks, one after another: the same buffer for every call
    const auto collective = [&] {
        const double began = MPI_Wtime();
        switch (kind) {
            case CollectiveKind::None:
                break;
            case CollectiveKind::AllGather:
                return allGatherColumns(out.held, width, blocks, modelComm);
            case CollectiveKind::AllReduce:
                MPI_Allreduce(MPI_IN_PLACE, out.held.data(), int(out.held.size()), MPI_FLOAT,
                              MPI_SUM, modelComm);
                break;
            case CollectiveKind::ReduceScatter:
                MPI_Reduce_scatter_block(packed.data(), out.held.data(), int(rows * width),
                                         MPI_FLOAT, MPI_SUM, modelComm);
                break;
        }
        return MPI_Wtime() - began;
    };
    // Untimed calls first, on the buffers the timed call uses: Open MPI sets up a communicator's
    // connections and the kernel maps a buffer's fresh pages on the first call, costs a training
    // step pays once, not every step; the cost model predicts a call in the steady state of a
    // run's steps, where a framework's allocator hands the collective the buffers of the step
    // before. A second call still took longer than later ones (a 1 MiB reduce-scatter on 2 ranks:
    // 300 to 440 µs, the fourth and later 180 to 290 µs), so the timed call is the fourth. A buffer
    // no call had used cost more still: the all-reduce of 1 MiB took 1.2 ms on 2 ranks of an AMD
    // EPYC when its untimed calls summed a copy, 0.2 ms on the buffer they had summed. A gather and
    // a reduce-scatter write the same values again; the all-reduce sums in place, so its values
    // are kept and written back after each untimed call, as the next step's product writes them.
    constexpr int kUntimedCalls = 3;
    const Matrix values = kind == CollectiveKind::AllReduce ? out.held : Matrix();
    for (int call = 0; call < kUntimedCalls; ++call) {
        collective();
        if (kind == CollectiveKind::AllReduce)
            out.held = values;
    }
    // Time the collective alone; the wait for the slowest partial is the barrier's.
    const double start = MPI_Wtime();
    MPI_Barrier(modelComm);
    out.waitSeconds = MPI_Wtime() - start;
    if (kind == CollectiveKind::None && packed.size() != 0)
        out.held = std::move(packed);  // row, sharded, tp 1: the one block is the whole sum
    out.communicationSeconds = collective();

    if (!column) {  // the bias belongs to the layer: added once, after the reduction
        const IndexRange cols = heldColumns(config, place);
        out.held.rowwise() += share.bias.segment(cols.start, cols.size());
    }
    assert(out.held.cols() == heldColumns(config, place).size());
    return out;
}

}  // namespace tp::mpi
