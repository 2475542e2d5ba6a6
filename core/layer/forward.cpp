#include "layer/forward.h"

#include "layer/fresh_matrix.h"
#include "layer/group_sums.h"
#include "layer/group_tasks.h"

#include <omp.h>

#include <algorithm>
#include <cassert>
#include <memory>
#include <mutex>
#include <vector>

namespace tp {
namespace {

// How the column split runs its products. A run is `runLength` groups side by side, one product
// x @ kernel[:, the run's columns] + bias[those columns]: a column of a product reads only its own
// column of the kernel, so each group's columns are its x @ kernel[:, cols_i] + bias[cols_i], and
// the product packs x once for the run instead of once per group (one product per group took
// 1.13x the full product's time at tp 8 and 1.33x at tp 64 at (256, 1024, 4096) on an AMD EPYC
// with AVX-512, packing x 64 times). With tp a multiple of the threads, each thread runs one run;
// otherwise each group is a run, cut into one block of batch rows per thread so that no thread
// idles at the end (never blocks of fewer than 8 rows). `shared`: the threads share the runs, each
// product on one thread, or (tp 1, or one thread) run each product together.
struct ColumnTasks {
    Index runLength = 1;
    Index rowBlocks = 1;
    bool shared = false;

    static ColumnTasks of(const ShardingPlan& plan, Index batch) {
        const Index threads = omp_get_max_threads();
        ColumnTasks t;
        t.shared = plan.tpSize > 1 && threads > 1;
        if (!t.shared)
            return t;
        if (plan.tpSize % threads != 0) {
            t.rowBlocks = batch < threads * 8 ? 1 : threads;
            return t;
        }
        t.runLength = groupRunLength(plan);
        return t;
    }

    Index runs(const ShardingPlan& plan) const { return plan.tpSize / runLength; }

    // The kernel's columns run r reads and the output's columns it writes: its groups' own, side
    // by side.
    struct Columns {
        IndexRange kernel, output;
    };
    Columns columns(const ShardingPlan& plan, Index run) const {
        const ShardGroup span = plan.run(run * runLength, runLength);
        return {span.kernelCols, span.outputCols};
    }
};

// Runs work(run, rows) for `runs` runs and `rowBlocks` blocks of batch rows each: shared by the
// threads, or in turn.
template <typename Work>
void forEachRun(Index runs, Index rowBlocks, Index batch, bool shared, Work&& work);

IndexRange rowBlock(Index batch, Index rowBlocks, Index block) {
    return {batch * block / rowBlocks, batch * (block + 1) / rowBlocks};
}

// A run's piece of the column split over rows of the batch, x[rows] @ kernel[:, cols] +
// bias[cols], into `piece`: the same bits whatever memory `piece` is (the output's own columns,
// or a run's partials made again).
void columnPiece(Eigen::Ref<Matrix> piece, const MatrixCRef& x, const MatrixCRef& kernel,
                 const RowVectorCRef& bias, IndexRange cols, IndexRange rows) {
    multiply(piece, x.middleRows(rows.start, rows.size()),
             kernel.middleCols(cols.start, cols.size()));
    piece.rowwise() += bias.segment(cols.start, cols.size());
}

// The column split's partials made on first read: run r's product made again as the pass made it
// (the same blocks of rows, each on one thread or shared by the threads), cut into its groups'
// partials, each kept here until its group reads it. A run is made once however many of its
// groups are read; beside the partials, it holds at most one run's product while it cuts it.
class ColumnPartialMaker {
public:
    ColumnPartialMaker(const MatrixCRef& x, const MatrixCRef& kernel, const RowVectorCRef& bias,
                       const ShardingPlan& plan, const ColumnTasks& tasks)
        : m_x(x),
          m_kernel(kernel),
          m_bias(bias),
          m_plan(plan),
          m_tasks(tasks),
          m_runs(std::make_shared<std::vector<Run>>(std::size_t(tasks.runs(plan)))) {}

    Matrix operator()(Index group) const {
        const Index r = group / m_tasks.runLength;
        Run& run = (*m_runs)[std::size_t(r)];
        std::call_once(run.once, [&] { run.partials = make(r); });
        return std::move(run.partials[std::size_t(group - r * m_tasks.runLength)]);
    }

private:
    struct Run {
        std::once_flag once;
        std::vector<Matrix> partials;
    };

    std::vector<Matrix> make(Index r) const {
        const IndexRange cols = m_tasks.columns(m_plan, r).kernel;
        Matrix product = uninitializedMatrix(m_x.rows(), cols.size());
        forEachRun(1, m_tasks.rowBlocks, m_x.rows(), m_tasks.shared, [&](Index, IndexRange rows) {
            columnPiece(product.middleRows(rows.start, rows.size()), m_x, m_kernel, m_bias, cols,
                        rows);
        });
        std::vector<Matrix> partials;
        if (m_tasks.runLength == 1) {
            partials.push_back(std::move(product));
            return partials;
        }
        for (Index g = 0; g < m_tasks.runLength; ++g)
            partials.push_back(product.middleCols(g * m_plan.chunk, m_plan.chunk));
        return partials;
    }

    MatrixCRef m_x, m_kernel;
    RowVectorCRef m_bias;
    ShardingPlan m_plan;
    ColumnTasks m_tasks;
    // Shared by the copies std::function makes.
    std::shared_ptr<std::vector<Run>> m_runs;
};

// writeRow(r) for every row of `out`, a fresh matrix; when `parallel`, each thread one run of
// rows, whose pages it maps before it writes them.
template <typename WriteRow>
void forEachRowRun(Matrix& out, bool parallel, WriteRow&& writeRow) {
#pragma omp parallel if (parallel)
    {
        const IndexRange run = mapThreadRows(out);
        for (Index r = run.start; r < run.stop; ++r)
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
    const Index batch = x.rows();
    ForwardResult result;
    result.plan = plan;
    // The fresh output's pages are mapped before any product writes them.
    result.output = mappedMatrix(batch, plan.features);
    // Group i: x @ kernel[:, cols_i] + bias[cols_i], straight into its own columns of the output,
    // by runs of groups side by side: the pieces in group order (an all-gather), never summed.
    const ColumnTasks tasks = ColumnTasks::of(plan, batch);
    forEachRun(
        tasks.runs(plan), tasks.rowBlocks, batch, tasks.shared, [&](Index r, IndexRange rows) {
            if (isCancelled(progress))
                return;
            const ColumnTasks::Columns cols = tasks.columns(plan, r);
            columnPiece(
                result.output.block(rows.start, cols.output.start, rows.size(), cols.output.size()),
                x, kernel, bias, cols.kernel, rows);
            if (rows.stop == batch)
                advance(progress, tasks.runLength);
        });
    // A partial made on demand runs its run's product as the pass ran it (the split of a product
    // between threads, or between products, can change its last bits).
    result.partials = Partials(plan.tpSize, ColumnPartialMaker(x, kernel, bias, plan, tasks));
    return result;
}

ForwardResult forwardRowParallel(const MatrixCRef& x, const MatrixCRef& kernel,
                                 const RowVectorCRef& bias, const ShardingPlan& plan,
                                 Progress* progress) {
    assert(plan.mode == ParallelMode::Row);
    assert(x.cols() == plan.inDim && kernel.rows() == plan.inDim);
    assert(kernel.cols() == plan.features && bias.size() == plan.features);
    ForwardResult result;
    result.plan = plan;
    // Partial sums of the same outputs combine by addition (an all-reduce on real devices).
    result.partialsAdded = true;
    result.output = uninitializedMatrix(x.rows(), plan.features);
    // Group g reads kernel rows [bounds[g], bounds[g + 1]).
    const std::vector<Index> bounds = groupBounds(plan);
    // The bias belongs to the layer, not to a group: added once, to the combined sum, tile by tile.
    sumGroupsByTiles(result.output, x, kernel, bounds, progress, plan.tpSize,
                     [&](const OutputTile& tile, Eigen::Ref<Matrix> sum) {
                         sum.rowwise() += bias.segment(tile.cols.start, tile.cols.size());
                     });
    result.partials = groupSumPartials(x, kernel, bounds);
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
Matrix sumInGroupOrder(const Partials& partials, std::size_t count) {
    assert(count >= 1 && count <= partials.size());
    std::vector<const Matrix*> added;
    for (std::size_t k = 0; k < count; ++k)
        added.push_back(&partials[k]);
    const Index batch = added.front()->rows();
    const Index cols = added.front()->cols();
    Matrix sum = uninitializedMatrix(batch, cols);
    const Index elements = batch * cols * Index(count);
    forEachRowRun(sum, elements > (Index(1) << 16), [&](Index r) {
        sum.row(r) = added.front()->row(r);
        for (std::size_t k = 1; k < count; ++k)
            sum.row(r) += added[k]->row(r);
    });
    return sum;
}

Matrix runningSum(const ForwardResult& result, Index k) {
    assert(k >= 0 && k < Index(result.partials.size()));
    return sumInGroupOrder(result.partials, std::size_t(k) + 1);
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

// Shared: many small products side by side use two cores better than one small product split in
// two. In turn, each product threads as it would alone.
template <typename Work>
void forEachRun(Index runs, Index rowBlocks, Index batch, bool shared, Work&& work) {
    forEachTask(runs * rowBlocks, shared, [&](Index task) {
        work(task / rowBlocks, rowBlock(batch, rowBlocks, task % rowBlocks));
    });
}

}  // namespace
}  // namespace tp
