#include "scene/fused_forward.h"

#include "layer/finite_max_abs.h"
#include "layer/products.h"
#include "layer/simd_path.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cstdint>
#include <vector>

namespace tp {
namespace {

// The column split and the reference from one read of the kernel, for an x of at most kFewRows
// rows: forwardColumnParallel's partials, forwardReference's output and finiteMaxAbs(kernel),
// equal to theirs bit for bit. Task (g, b) takes block b of the g-th chunk of the kernel's columns:
// the split adds each kernel row of that block through group g's view (kernelSlice) into the
// partial's sums, and the reference adds the same columns of the full kernel, found from the
// kernel's width alone (never from the plan's groups), into sums of its own, each through the
// core's product of few rows (addInOrder): a multiply, then an add, in the order k = 0, 1, ...,
// K - 1. They take the block in runs of kDepthRun kernel rows, so with the plan's groups in place
// the reference reads each run while the split's read left it in cache; the reference never reads
// a partial. Progress: one unit per group.
ForwardAndReference columnSplitAndReferenceOfFewRows(const MatrixCRef& x, const MatrixCRef& kernel,
                                                     const RowVectorCRef& bias,
                                                     const ShardingPlan& plan, Progress* progress) {
    const Index rows = x.rows();
    const Index depth = x.cols();
    const Index chunk = plan.chunk;
    assert(rows <= kFewRows && plan.mode == ParallelMode::Column);
    assert(plan.tpSize * chunk == kernel.cols());
    ForwardAndReference both;
    both.split.plan = plan;
    std::vector<Matrix> partials(std::size_t(plan.tpSize), Matrix(rows, chunk));
    both.reference.resize(rows, kernel.cols());

    // Enough blocks for every thread, as in the core's product of few rows.
    const Index threads = omp_get_max_threads();
    const Index blocksPerGroup =
        std::max((chunk + kColumnBlock - 1) / kColumnBlock,
                 std::min((threads + plan.tpSize - 1) / plan.tpSize, (chunk + 63) / 64));
    const Index tasks = plan.tpSize * blocksPerGroup;
    std::vector<std::atomic<Index>> blocksLeft(std::size_t(plan.tpSize));
    for (std::atomic<Index>& left : blocksLeft)
        left.store(blocksPerGroup, std::memory_order_relaxed);
    const SimdPath path = resolveSimdPath(SimdPath::Best);
    const bool parallel = tasks > 1 && rows * depth * kernel.cols() > (Index(1) << 20);
    std::int32_t largestBits = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(max : largestBits) if (parallel)
    for (Index task = 0; task < tasks; ++task) {
        if (isCancelled(progress))
            continue;
        const Index g = task / blocksPerGroup;
        const Index block = task % blocksPerGroup;
        // Columns [c0, c0 + width) of group g's view and columns [referenceC0, referenceC0 +
        // width) of the kernel.
        const Index c0 = chunk * block / blocksPerGroup;
        const Index width = chunk * (block + 1) / blocksPerGroup - c0;
        const Index referenceC0 = g * chunk + c0;
        const ShardGroup& group = plan.groups[std::size_t(g)];
        const auto groupView = kernelSlice(kernel, group);
        // Rows 16 floats longer than the block, so that a tile's rows in the two sums and in the
        // kernel do not all fall in the same sets of the L1 cache (see kDepthRun).
        Matrix sums = Matrix::Zero(2 * rows, width + 16);
        auto splitSums = sums.topRows(rows).leftCols(width);
        auto referenceSums = sums.bottomRows(rows).leftCols(width);
        for (Index k = 0; k < depth; k += kDepthRun) {
            const Index terms = std::min(kDepthRun, depth - k);
            const auto xRun = x.middleCols(k, terms);
            const auto referenceRun = kernel.block(k, referenceC0, terms, width);
            addInOrder(splitSums, xRun, groupView.block(k, c0, terms, width), path);
            addInOrder(referenceSums, xRun, referenceRun, path);
            for (Index row = 0; row < terms; ++row)
                largestBits = maxAbsBits(referenceRun.row(row).data(), width, largestBits);
        }
        partials[std::size_t(g)].middleCols(c0, width) = splitSums;
        both.reference.middleCols(referenceC0, width) = referenceSums;
        if (blocksLeft[std::size_t(g)].fetch_sub(1, std::memory_order_relaxed) == 1)
            advance(progress);
    }
    if (isCancelled(progress))
        return both;
    for (std::size_t g = 0; g < plan.groups.size(); ++g) {
        const IndexRange cols = plan.groups[g].kernelCols;
        partials[g].rowwise() += bias.segment(cols.start, cols.size());
    }
    both.split.partials = std::move(partials);
    concatenateInGroupOrder(both.split);
    both.reference.rowwise() += bias;
    both.kernelMaxAbs = finiteMaxAbsFromBits(largestBits);
    return both;
}

}  // namespace

ForwardAndReference forwardWithReference(const MatrixCRef& x, const MatrixCRef& kernel,
                                         const RowVectorCRef& bias, const ShardingPlan& plan,
                                         Progress* progress) {
    if (plan.mode == ParallelMode::Column && x.rows() <= kFewRows)
        return columnSplitAndReferenceOfFewRows(x, kernel, bias, plan, progress);
    ForwardAndReference both;
    both.split = forwardParallel(x, kernel, bias, plan, progress);
    if (isCancelled(progress))
        return both;
    both.reference = forwardReference(x, kernel, bias);
    both.kernelMaxAbs = finiteMaxAbs(kernel);
    return both;
}

}  // namespace tp
