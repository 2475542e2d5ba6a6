#include "scene/fused_forward.h"

#include "layer/finite_max_abs.h"
#include "layer/simd_path.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cstdint>
#include <vector>

namespace tp {
namespace {

// One column block of the fused pass: for k = 0, 1, ..., depth - 1 in order, kernel row k of the
// split's block and of the reference's block (the same memory, reached through each one's own
// view) added into each one's sums, (rows, width) row-major: sums(r, c) += x(r, k) * row[c], a
// multiply, then an add. Returns maxAbsBits of the reference's block, from largestBits.
struct BlockOfFewRows {
    const float* x;  ///< x(r, k) = x[r * xStride + k]
    Index xStride;
    Index rows;
    Index depth;
    Index width;
    Index kernelStride;  ///< floats between kernel rows
    const float* splitBlock;
    const float* referenceBlock;
    float* splitSums;
    float* referenceSums;
};

// sums(r, c) += x(r, k) * kernelRow[c] for every row r of the block's sums (rows, width).
[[gnu::always_inline]] inline void addKernelRow(const BlockOfFewRows& b, Index k,
                                                const float* __restrict kernelRow,
                                                float* __restrict sums) {
    for (Index r = 0; r < b.rows; ++r) {
        const float xk = b.x[r * b.xStride + k];
        float* __restrict rowSums = sums + r * b.width;
        for (Index c = 0; c < b.width; ++c)
            rowSums[c] += xk * kernelRow[c];
    }
}

[[gnu::always_inline]] inline std::int32_t sumBlock(const BlockOfFewRows& b,
                                                    std::int32_t largestBits) {
    for (Index k = 0; k < b.depth; ++k) {
        addKernelRow(b, k, b.splitBlock + k * b.kernelStride, b.splitSums);
        const float* referenceRow = b.referenceBlock + k * b.kernelStride;
        addKernelRow(b, k, referenceRow, b.referenceSums);
        largestBits = maxAbsBits(referenceRow, b.width, largestBits);
    }
    return largestBits;
}

// sumBlock for the baseline CPU, for AVX2 (eight lanes) and for AVX-512 (sixteen lanes; each lane
// rounds as the baseline's do, the multiply and the add never fused), chosen by the SIMD path in
// use.
std::int32_t sumBlockBaseline(const BlockOfFewRows& b, std::int32_t largestBits) {
    return sumBlock(b, largestBits);
}
[[gnu::target("avx2,fma")]] std::int32_t sumBlockAvx2(const BlockOfFewRows& b,
                                                      std::int32_t largestBits) {
    return sumBlock(b, largestBits);
}
[[gnu::target("avx512f,avx512vl,avx512bw,avx512dq")]] std::int32_t sumBlockAvx512(
    const BlockOfFewRows& b, std::int32_t largestBits) {
    return sumBlock(b, largestBits);
}

// The column split and the reference from one read of the kernel, for an x of at most kFewRows
// rows: forwardColumnParallel's partials, forwardReference's output and finiteMaxAbs(kernel),
// equal to theirs bit for bit. Task (g, b) takes block b of the g-th chunk of the kernel's columns:
// the split adds each kernel row of that block through group g's view (kernelSlice) into the
// partial's sums, and the reference adds the same columns of the full kernel, found from the
// kernel's width alone (never from the plan's groups), into sums of its own, each as the core's
// product of few rows (layer/product_kernel.cpp) does: a multiply, then an add, in the order k = 0,
// 1, ..., K - 1. With the plan's groups in place the two read the same memory while it is in cache;
// the reference never reads a partial. Progress: one unit per group.
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
    both.split.partials.assign(std::size_t(plan.tpSize), Matrix(rows, chunk));
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
        Matrix splitSums = Matrix::Zero(rows, width);
        Matrix referenceSums = Matrix::Zero(rows, width);
        const BlockOfFewRows sums{x.data(),
                                  x.outerStride(),
                                  rows,
                                  depth,
                                  width,
                                  kernel.outerStride(),
                                  groupView.data() + c0,
                                  kernel.data() + referenceC0,
                                  splitSums.data(),
                                  referenceSums.data()};
        if (path == SimdPath::Avx512)
            largestBits = sumBlockAvx512(sums, largestBits);
        else if (path == SimdPath::Avx2)
            largestBits = sumBlockAvx2(sums, largestBits);
        else
            largestBits = sumBlockBaseline(sums, largestBits);
        both.split.partials[std::size_t(g)].middleCols(c0, width) = splitSums;
        both.reference.middleCols(referenceC0, width) = referenceSums;
        if (blocksLeft[std::size_t(g)].fetch_sub(1, std::memory_order_relaxed) == 1)
            advance(progress);
    }
    if (isCancelled(progress))
        return both;
    for (std::size_t g = 0; g < plan.groups.size(); ++g) {
        const IndexRange cols = plan.groups[g].kernelCols;
        both.split.partials[g].rowwise() += bias.segment(cols.start, cols.size());
    }
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
