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
    if (kind == CollectiveKind::None && packed.size() != 0)
        out.held = std::move(packed);  // row, sharded, tp 1: the one block is the whole sum
    // The untimed calls write the sums back into out.held, as the next step's product would.
    const CollectiveSeconds seconds = steadyCollective(
        modelComm, std::span(out.held.data(), std::size_t(out.held.size())), collective);
    out.waitSeconds = seconds.wait;
    out.communicationSeconds = seconds.call;

    if (!column) {  // the bias belongs to the layer: added once, after the reduction
        const IndexRange cols = heldColumns(config, place);
        out.held.rowwise() += share.bias.segment(cols.start, cols.size());
    }
    assert(out.held.cols() == heldColumns(config, place).size());
    return out;
}

}  // namespace tp::mpi
