#include "forward.h"

#include "simd_path.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <optional>
#include <vector>

namespace tp {
namespace {

// Batches of at most this many rows multiply through productOfFewRows: each kernel element then
// serves at most 4 products, so the product is bound by reading the kernel, not by arithmetic.
constexpr Index kFewRows = 4;
// Columns of the kernel one task sums at a time: the (N, kColumnBlock) sums stay in cache while
// the kernel streams past once, in runs of kColumnBlock floats (16 KiB) that prefetching follows.
constexpr Index kColumnBlock = 4096;

// The bits of |v| (the sign cleared) order as the values |v| do, and every NaN or infinity lies at
// or above kInfinityBits: the largest bits of a run give both its largest |element| and whether
// every element is finite. Integers, so that the compiler vectorises the maximum.
constexpr std::uint32_t kInfinityBits = 0x7F800000u;

// max(largestBits, the bits of |v| for each of the n floats at run).
inline std::uint32_t maxAbsBits(const float* run, Index n, std::uint32_t largestBits) {
    for (Index i = 0; i < n; ++i)
        largestBits = std::max(largestBits, std::bit_cast<std::uint32_t>(run[i]) & 0x7FFFFFFFu);
    return largestBits;
}

// The largest |element| that maxAbsBits found when every element is finite, else nothing.
std::optional<float> finiteMaxAbsFromBits(std::uint32_t largestBits) {
    return largestBits < kInfinityBits ? std::optional(std::bit_cast<float>(largestBits))
                                       : std::nullopt;
}

// out = a @ b for an `a` of at most kFewRows rows; a (N, K), b (K, cols), out (N, cols).
// Eigen runs a product of so few rows on one thread, packing the kernel into blocks as it goes;
// here each column block of b is read once, row after row, and every element is summed in the
// order k = 0, 1, ..., K - 1 (a multiply, then an add: this file never fuses them). The sum of
// an element depends on neither the block nor the thread, so a group's columns computed alone
// equal the same columns of the full product, bit for bit. Threads share the column blocks
// unless the caller already runs in parallel. With `bMaxAbs`, also sets it, from the rows as they
// pass, to the largest |b| (0 when b is empty) when every element of b is finite, else to nothing.
void productOfFewRows(Eigen::Ref<Matrix> out, const MatrixCRef& a, const MatrixCRef& b,
                      std::optional<float>* bMaxAbs = nullptr) {
    const Index rows = a.rows();
    const Index depth = a.cols();
    const Index cols = b.cols();
    assert(rows <= kFewRows && b.rows() == depth && out.rows() == rows && out.cols() == cols);
    // At least one block per thread, so that both cores read the kernel.
    const Index threads = omp_in_parallel() ? 1 : omp_get_max_threads();
    const Index blocks = std::max((cols + kColumnBlock - 1) / kColumnBlock,
                                  std::min<Index>(threads, (cols + 63) / 64));
    const bool parallel = blocks > 1 && rows * depth * cols > (Index(1) << 20);
    std::uint32_t largestBits = 0;
#pragma omp parallel for schedule(static) reduction(max : largestBits) if (parallel)
    for (Index block = 0; block < blocks; ++block) {
        const Index c0 = cols * block / blocks;
        const Index width = cols * (block + 1) / blocks - c0;
        Matrix sums = Matrix::Zero(rows, width);
        for (Index k = 0; k < depth; ++k) {
            const auto kernelRow = b.row(k).segment(c0, width);
            for (Index r = 0; r < rows; ++r)
                sums.row(r) += a(r, k) * kernelRow;
            if (bMaxAbs && width > 0)
                largestBits = maxAbsBits(kernelRow.data(), width, largestBits);
        }
        out.middleCols(c0, width) = sums;
    }
    if (bMaxAbs)
        *bMaxAbs = finiteMaxAbsFromBits(largestBits);
}

// The largest |element| of m (0 when empty) when every element is finite, else nothing. One
// parallel pass.
std::optional<float> finiteMaxAbsOf(const MatrixCRef& m) {
    std::uint32_t largestBits = 0;
    const Index rows = m.cols() > 0 ? m.rows() : 0;
    const bool parallel = m.size() > (Index(1) << 16);
#pragma omp parallel for schedule(static) reduction(max : largestBits) if (parallel)
    for (Index r = 0; r < rows; ++r)
        largestBits = maxAbsBits(m.row(r).data(), m.cols(), largestBits);
    return finiteMaxAbsFromBits(largestBits);
}

// out = a @ b (shapes as productOfFewRows): through productOfFewRows for a few rows, else Eigen's
// blocked product, which is faster once each kernel element serves many rows.
template <typename Out>
void product(Out&& out, const MatrixCRef& a, const MatrixCRef& b) {
    if (a.rows() <= kFewRows)
        productOfFewRows(out, a, b);
    else
        out.noalias() = a * b;
}

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

// The partials of a split forward pass: one (batch, partialCols) matrix per group, each filled by
// computePiece(group, rows, piece) for blocks of batch rows, with progress and cancellation.
template <typename ComputePiece>
ForwardResult computePartials(Index batch, const ShardingPlan& plan, Index partialCols,
                              Progress* progress, ComputePiece&& computePiece) {
    ForwardResult result;
    result.plan = plan;
    result.partials.resize(std::size_t(plan.tpSize));
    for (Matrix& partial : result.partials)
        partial.resize(batch, partialCols);

    forEachGroup(plan.tpSize, batch, [&](Index i, IndexRange rows) {
        if (isCancelled(progress))
            return;
        computePiece(plan.groups[std::size_t(i)], rows,
                     result.partials[std::size_t(i)].middleRows(rows.start, rows.size()));
        if (rows.stop == batch)
            advance(progress);
    });
    return result;
}

// Column mode: result.output, (batch, features), from the partials concatenated in group order
// along the last axis: each partial fills its own columns. The copy is memory-bound, so both
// threads share it, by rows of the output.
void concatenateInGroupOrder(ForwardResult& result) {
    const ShardingPlan& plan = result.plan;
    const Index batch = result.partials.front().rows();
    result.output.resize(batch, plan.features);
#pragma omp parallel for schedule(static) if (batch * plan.features > (Index(1) << 16))
    for (Index r = 0; r < batch; ++r) {
        for (const ShardGroup& group : plan.groups)
            result.output.row(r).segment(group.outputCols.start, group.outputCols.size()) =
                result.partials[std::size_t(group.index)].row(r);
    }
}

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

[[gnu::always_inline]] inline std::uint32_t sumBlock(const BlockOfFewRows& b,
                                                     std::uint32_t largestBits) {
    for (Index k = 0; k < b.depth; ++k) {
        addKernelRow(b, k, b.splitBlock + k * b.kernelStride, b.splitSums);
        const float* referenceRow = b.referenceBlock + k * b.kernelStride;
        addKernelRow(b, k, referenceRow, b.referenceSums);
        largestBits = maxAbsBits(referenceRow, b.width, largestBits);
    }
    return largestBits;
}

// sumBlock for the baseline CPU, and for AVX-512 (sixteen lanes; each lane rounds as the
// baseline's do, the multiply and the add never fused), chosen by the SIMD path in use.
std::uint32_t sumBlockBaseline(const BlockOfFewRows& b, std::uint32_t largestBits) {
    return sumBlock(b, largestBits);
}
[[gnu::target("avx512f,avx512vl,avx512bw,avx512dq")]] std::uint32_t sumBlockAvx512(
    const BlockOfFewRows& b, std::uint32_t largestBits) {
    return sumBlock(b, largestBits);
}

// The column split and the reference from one read of the kernel, for an x of at most kFewRows
// rows: forwardColumnParallel's partials and forwardReference's output (with kernelMaxAbs),
// equal to theirs bit for bit. Task (g, b) takes block b of the g-th chunk of the kernel's
// columns: the split adds each kernel row of that block through group g's view (kernelSlice)
// into the partial's sums, and the reference adds the same columns of the full kernel, found
// from the kernel's width alone (never from the plan's groups), into sums of its own, each as
// productOfFewRows does: a multiply, then an add, in the order k = 0, 1, ..., K - 1. With the
// plan's groups in place the two read the same memory while it is in cache; the reference never
// reads a partial. Progress: one unit per group.
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

    // Enough blocks for every thread, as in productOfFewRows.
    const Index threads = omp_get_max_threads();
    const Index blocksPerGroup =
        std::max((chunk + kColumnBlock - 1) / kColumnBlock,
                 std::min((threads + plan.tpSize - 1) / plan.tpSize, (chunk + 63) / 64));
    const Index tasks = plan.tpSize * blocksPerGroup;
    std::vector<std::atomic<Index>> blocksLeft(std::size_t(plan.tpSize));
    for (std::atomic<Index>& left : blocksLeft)
        left.store(blocksPerGroup, std::memory_order_relaxed);
    const bool avx512 = resolveSimdPath(SimdPath::Best) == SimdPath::Avx512;
    const bool parallel = tasks > 1 && rows * depth * kernel.cols() > (Index(1) << 20);
    std::uint32_t largestBits = 0;
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
        if (avx512)
            largestBits = sumBlockAvx512(sums, largestBits);
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

ForwardResult forwardColumnParallel(const MatrixCRef& x, const MatrixCRef& kernel,
                                    const RowVectorCRef& bias, const ShardingPlan& plan,
                                    Progress* progress) {
    assert(plan.mode == ParallelMode::Column);
    assert(x.cols() == plan.inDim && kernel.rows() == plan.inDim);
    assert(kernel.cols() == plan.features && bias.size() == plan.features);
    ForwardResult result = computePartials(
        x.rows(), plan, plan.chunk, progress,
        [&](const ShardGroup& group, IndexRange rows, auto piece) {
            const IndexRange cols = group.kernelCols;
            product(piece, x.middleRows(rows.start, rows.size()), kernelSlice(kernel, group));
            piece.rowwise() += bias.segment(cols.start, cols.size());
        });

    concatenateInGroupOrder(result);
    return result;
}

ForwardResult forwardRowParallel(const MatrixCRef& x, const MatrixCRef& kernel,
                                 const RowVectorCRef& bias, const ShardingPlan& plan,
                                 Progress* progress) {
    assert(plan.mode == ParallelMode::Row);
    assert(x.cols() == plan.inDim && kernel.rows() == plan.inDim);
    assert(kernel.cols() == plan.features && bias.size() == plan.features);
    ForwardResult result =
        computePartials(x.rows(), plan, plan.features, progress,
                        [&](const ShardGroup& group, IndexRange rows, auto piece) {
                            product(piece, inputSlice(x, group).middleRows(rows.start, rows.size()),
                                    kernelSlice(kernel, group));
                        });

    // Partial sums of the same outputs combine by addition (an all-reduce on real devices).
    result.runningSums.reserve(std::size_t(plan.tpSize));
    result.runningSums.push_back(result.partials.front());
    for (std::size_t i = 1; i < result.partials.size(); ++i)
        result.runningSums.push_back(result.runningSums.back() + result.partials[i]);
    // The bias belongs to the layer, not to a group: added once, to the combined sum.
    result.output = result.runningSums.back();
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

Matrix forwardReference(const MatrixCRef& x, const MatrixCRef& kernel, const RowVectorCRef& bias,
                        std::optional<float>* kernelMaxAbs) {
    assert(x.cols() == kernel.rows() && kernel.cols() == bias.size());
    Matrix output(x.rows(), kernel.cols());
    if (x.rows() <= kFewRows) {
        productOfFewRows(output, x, kernel, kernelMaxAbs);
    } else {
        output.noalias() = x * kernel;
        if (kernelMaxAbs)
            *kernelMaxAbs = finiteMaxAbsOf(kernel);
    }
    output.rowwise() += bias;
    return output;
}

ForwardAndReference forwardWithReference(const MatrixCRef& x, const MatrixCRef& kernel,
                                         const RowVectorCRef& bias, const ShardingPlan& plan,
                                         Progress* progress) {
    if (plan.mode == ParallelMode::Column && x.rows() <= kFewRows)
        return columnSplitAndReferenceOfFewRows(x, kernel, bias, plan, progress);
    ForwardAndReference both;
    both.split = forwardParallel(x, kernel, bias, plan, progress);
    if (!isCancelled(progress))
        both.reference = forwardReference(x, kernel, bias, &both.kernelMaxAbs);
    return both;
}

}  // namespace tp
