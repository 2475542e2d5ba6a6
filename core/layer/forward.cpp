#include "layer/forward.h"

#include "layer/fresh_matrix.h"

#include <omp.h>

#include <algorithm>
#include <cassert>
#include <vector>

namespace tp {
namespace {

// The partials of a split forward pass: one (batch, partialCols) matrix per group, each filled by
// computePiece(group, rows, piece) for blocks of batch rows, with progress and cancellation.
template <typename ComputePiece>
ForwardResult computePartials(Index batch, const ShardingPlan& plan, Index partialCols,
                              Progress* progress, ComputePiece&& computePiece);

// writeRow(r) for every row of `out`, a fresh matrix; when `parallel`, each thread one run of
// rows, whose pages it maps (mapRows) before it writes them.
template <typename WriteRow>
void forEachRowRun(Matrix& out, bool parallel, WriteRow&& writeRow) {
#pragma omp parallel if (parallel)
    {
        const Index threads = omp_get_num_threads();
        const Index thread = omp_get_thread_num();
        const Index first = out.rows() * thread / threads;
        const Index last = out.rows() * (thread + 1) / threads;
        mapRows(out, first, last - first);
        for (Index r = first; r < last; ++r)
            writeRow(r);
    }
}

}  // namespace

ForwardResult forwardColumnParallel(const MatrixCRef& x, const MatrixCRef& kernel,
                                    const RowVectorCRef& bias, const ShardingPlan& plan,
                                    Progress* progress) {
    assert(plan.mode == ParallelMode::Column);
    assert(x.cols() == plan.inDim && kernel.rows() == plan.inDim);
    assert(kernel.cols() == plan.features && bias.size() == plan.features);
    // Group i: x @ kernel[:, cols_i] + bias[cols_i], its own columns of the output.
    ForwardResult result = computePartials(
        x.rows(), plan, plan.chunk, progress,
        [&](const ShardGroup& group, IndexRange rows, auto piece) {
            const IndexRange cols = group.kernelCols;
            multiply(piece, x.middleRows(rows.start, rows.size()), kernelSlice(kernel, group));
            piece.rowwise() += bias.segment(cols.start, cols.size());
        });
    // Different columns are never summed: the pieces are put side by side (an all-gather).
    concatenateInGroupOrder(result);
    return result;
}

ForwardResult forwardRowParallel(const MatrixCRef& x, const MatrixCRef& kernel,
                                 const RowVectorCRef& bias, const ShardingPlan& plan,
                                 Progress* progress) {
    assert(plan.mode == ParallelMode::Row);
    assert(x.cols() == plan.inDim && kernel.rows() == plan.inDim);
    assert(kernel.cols() == plan.features && bias.size() == plan.features);
    // Group i: x[:, rows_i] @ kernel[rows_i, :], a partial sum of every output, without the bias.
    ForwardResult result = computePartials(
        x.rows(), plan, plan.features, progress,
        [&](const ShardGroup& group, IndexRange rows, auto piece) {
            multiply(piece, inputSlice(x, group).middleRows(rows.start, rows.size()),
                     kernelSlice(kernel, group));
        });

    // Partial sums of the same outputs combine by addition (an all-reduce on real devices).
    result.partialsAdded = true;
    if (isCancelled(progress))
        return result;
    result.output = sumInGroupOrder(result.partials);
    // The bias belongs to the layer, not to a group: added once, to the combined sum.
    result.output.rowwise() += bias;
    return result;
}

ForwardResult forwardParallel(const MatrixCRef& x, const MatrixCRef& kernel,
                              const RowVectorCRef& bias, const ShardingPlan& plan,
                              Progress* progress) {
    return plan.mode == ParallelMode::Column
               ? forwardColumnParallel(x, kernel, bias, plan, progress)
               : forwardRowParallel(x, kernel, bias, plan, progress);
}

Matrix forwardReference(const MatrixCRef& x, const MatrixCRef& kernel, const RowVectorCRef& bias) {
    assert(x.cols() == kernel.rows() && kernel.cols() == bias.size());
    Matrix output(x.rows(), kernel.cols());
    multiply(output, x, kernel);
    output.rowwise() += bias;
    return output;
}

// The copy is memory-bound, so both threads share it, by rows of the output.
void concatenateInGroupOrder(ForwardResult& result) {
    const ShardingPlan& plan = result.plan;
    const Index batch = result.partials.front().rows();
    result.output = uninitializedMatrix(batch, plan.features);
    forEachRowRun(result.output, batch * plan.features > (Index(1) << 16), [&](Index r) {
        for (const ShardGroup& group : plan.groups)
            result.output.row(r).segment(group.outputCols.start, group.outputCols.size()) =
                result.partials[std::size_t(group.index)].row(r);
    });
}

// Memory-bound as well (tp partials read, one output written): both threads share it by rows,
// each row summed through the groups while it is in cache. Nothing else is kept: storing the tp
// running sums made the split many times slower than the full product at tp 64, first touching
// their fresh memory.
Matrix sumInGroupOrder(std::span<const Matrix> partials) {
    const Index batch = partials.front().rows();
    const Index cols = partials.front().cols();
    Matrix sum = uninitializedMatrix(batch, cols);
    const Index elements = batch * cols * Index(partials.size());
    forEachRowRun(sum, elements > (Index(1) << 16), [&](Index r) {
        sum.row(r) = partials.front().row(r);
        for (std::size_t k = 1; k < partials.size(); ++k)
            sum.row(r) += partials[k].row(r);
    });
    return sum;
}

Matrix runningSum(const ForwardResult& result, Index k) {
    assert(k >= 0 && k < Index(result.partials.size()));
    return sumInGroupOrder(std::span(result.partials).first(std::size_t(k) + 1));
}

Matrix nextRunningSum(const ForwardResult& result, const MatrixCRef& previous, Index k) {
    assert(k >= 0 && k < Index(result.partials.size()));
    if (k == 0)
        return result.partials.front();
    const Matrix& partial = result.partials[std::size_t(k)];
    assert(previous.rows() == partial.rows() && previous.cols() == partial.cols());
    return previous + partial;
}

namespace {

// Runs work(group, rowBlock) for every group and every block of batch rows.
// On one thread, or for tp = 1, the groups run in turn and Eigen threads inside each product.
// Otherwise the threads share the groups: many small products side by side use two cores better
// than one small product split in two. When tp is not a multiple of the thread count, each group
// is also split by batch rows so that no thread idles at the end.
template <typename Work>
void forEachGroup(Index tpSize, Index batch, Work&& work) {
    const int threads = omp_get_max_threads();
    if (tpSize == 1 || threads == 1) {
        for (Index i = 0; i < tpSize; ++i)
            work(i, IndexRange{0, batch});
        return;
    }
    Index rowBlocks = tpSize % threads == 0 ? 1 : threads;
    if (batch < rowBlocks * 8)
        rowBlocks = 1;
    const Index tasks = tpSize * rowBlocks;
#pragma omp parallel for schedule(dynamic, 1)
    for (Index task = 0; task < tasks; ++task) {
        const Index group = task / rowBlocks;
        const Index block = task % rowBlocks;
        work(group, IndexRange{batch * block / rowBlocks, batch * (block + 1) / rowBlocks});
    }
}

template <typename ComputePiece>
ForwardResult computePartials(Index batch, const ShardingPlan& plan, Index partialCols,
                              Progress* progress, ComputePiece&& computePiece) {
    ForwardResult result;
    result.plan = plan;
    result.partials.resize(std::size_t(plan.tpSize));
    for (Matrix& partial : result.partials)
        partial = uninitializedMatrix(batch, partialCols);

    forEachGroup(plan.tpSize, batch, [&](Index i, IndexRange rows) {
        if (isCancelled(progress))
            return;
        // The thread that writes the piece maps its pages first, in one call.
        mapRows(result.partials[std::size_t(i)], rows.start, rows.size());
        computePiece(plan.groups[std::size_t(i)], rows,
                     result.partials[std::size_t(i)].middleRows(rows.start, rows.size()));
        if (rows.stop == batch)
            advance(progress);
    });
    return result;
}

}  // namespace
}  // namespace tp
