#include "devices/layout_rings.h"

#include "layer/products.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <limits>
#include <optional>

namespace tp {
namespace {

// A collective on blocks cut along their rows: `rings` rings of `ringSize` devices side by side.
// Ring r's devices all end with (a gather) or share out (a reduce-scatter) expected(r), an
// (R, C) block; device (r, m) starts with start(r, m) (a gather takes only its chunk m of it).
// A reduce-scatter's rows are the product a(r) @ b(r) (+ bias), which bounds their rounding.
struct RowRing {
    CollectiveKind kind = CollectiveKind::AllGather;
    std::int64_t rings = 1;
    std::int64_t ringSize = 1;
    std::function<Matrix(std::int64_t r, std::int64_t m)> start;
    std::function<Matrix(std::int64_t r)> expected;
    std::function<Matrix(std::int64_t r)> a;
    std::function<Matrix(std::int64_t r)> b;
    RowVector bias;  ///< added once to each device's rows after the reduce-scatter; empty: none
};

// The worse of two checks: failed before inconclusive before passed, then the larger ratio.
const Verification& worse(const Verification& x, const Verification& y) {
    auto rank = [](Verdict v) { return v == Verdict::Failed ? 2 : v == Verdict::Inconclusive; };
    if (rank(x.verdict) != rank(y.verdict))
        return rank(x.verdict) > rank(y.verdict) ? x : y;
    return y.maxErrorOverBound > x.maxErrorOverBound ? y : x;
}

void runRowRing(RingRun& run, const RowRing& ring, const CheckSettings& check,
                std::int64_t stepRoom) {
    const Matrix first = ring.expected(0);
    const Index rows = first.rows(), cols = first.cols();
    run.kind = ring.kind;
    run.data = ring.rings;
    run.model = ring.ringSize;
    run.rowsPerDevice = cols;
    run.chunks = featureChunks(rows, ring.ringSize);
    const bool gather = ring.kind == CollectiveKind::AllGather;
    run.initial = Matrix::Constant(ring.rings * ring.ringSize * cols, rows,
                                   std::numeric_limits<float>::quiet_NaN());
    for (std::int64_t r = 0; r < ring.rings; ++r)
        for (std::int64_t m = 0; m < ring.ringSize; ++m) {
            const Matrix block = ring.start(r, m).transpose();
            const IndexRange own = run.chunks[std::size_t(m)];
            if (gather)
                run.device(run.initial, r, m).middleCols(own.start, own.size()) =
                    block.middleCols(own.start, own.size());
            else
                run.device(run.initial, r, m) = block;
        }
    runRingSteps(run, stepRoom);

    // Each ring's result as the block it is: every device's (gather) or each device's own rows.
    Matrix actual(ring.rings * (gather ? ring.ringSize : 1) * rows, cols);
    Matrix expected(actual.rows(), cols);
    std::optional<Verification> verification;
    for (std::int64_t r = 0; r < ring.rings; ++r) {
        const Matrix want = ring.expected(r);
        if (gather) {
            for (std::int64_t m = 0; m < ring.ringSize; ++m) {
                const Index at = (r * ring.ringSize + m) * rows;
                actual.middleRows(at, rows) = run.device(run.final, r, m).transpose();
                expected.middleRows(at, rows) = want;
            }
            continue;
        }
        Matrix block(rows, cols);
        for (std::int64_t m = 0; m < ring.ringSize; ++m) {
            const IndexRange own = run.chunks[std::size_t(m)];
            block.middleRows(own.start, own.size()) =
                run.device(run.final, r, m).middleCols(own.start, own.size()).transpose();
        }
        if (ring.bias.size() != 0)
            block.rowwise() += ring.bias;
        const RowVector bias = ring.bias.size() ? ring.bias : RowVector::Zero(cols);
        const Verification v = verify(block, want, ring.a(r), ring.b(r), bias, check);
        verification = verification ? worse(*verification, v) : v;
        actual.middleRows(r * rows, rows) = block;
        expected.middleRows(r * rows, rows) = want;
    }
    run.check = collectiveCheck(
        actual, expected, gather ? verify(actual, expected, Tolerance{}) : *verification, gather);
}

// What runRowRing allocates: its initial and final stacks, the blocks it compares, a's rows and
// b (each ring's, the largest); the step buffers come on top when kept.
std::int64_t rowRingBytes(const RowRing& ring, Index rows, Index cols, Index k) {
    const std::int64_t devices = ring.rings * ring.ringSize;
    const std::int64_t compared =
        ring.kind == CollectiveKind::AllGather ? devices * rows * cols : ring.rings * rows * cols;
    return (2 * devices * rows * cols + 2 * compared + rows * k + k * cols) *
           std::int64_t(sizeof(float));
}

}  // namespace

std::vector<RingRun> runLayoutRings(const LayerConfig& c, const LayerParams& params,
                                    const ForwardResult& forward,
                                    const LayoutBackwardInputs& backward, std::int64_t taken,
                                    const CheckSettings& check) {
    assert(c.validate().empty() && c.block == Block::Linear);
    const bool column = c.mode == ParallelMode::Column;
    const Index nd = c.batch / c.dataSize;
    const MatrixCRef x = params.x, kernel = params.kernel;
    const ShardingPlan& plan = forward.plan;
    auto group = [&plan](std::int64_t m) { return plan.groups[std::size_t(m)]; };
    auto kernelBlock = [&](std::int64_t m) -> Matrix { return kernelSlice(kernel, group(m)); };
    auto rowsOf = [nd](const MatrixCRef& a, std::int64_t d) -> Matrix {
        return a.middleRows(d * nd, nd);
    };
    const Matrix none;
    const MatrixCRef dy = backward.dy ? MatrixCRef(*backward.dy) : MatrixCRef(none);

    std::vector<RingRun> runs;
    for (const LayoutCollective& step : layoutCollectives(c, backward.result != nullptr)) {
        RingRun run;
        run.kind = step.cost.kind;
        RowRing ring;
        ring.kind = step.cost.kind;
        Index k = 0;  // the check's K, for the memory it takes
        const bool overData = step.axis == MeshAxis::Data;
        ring.rings = overData ? c.tpSize : c.dataSize;
        ring.ringSize = overData ? c.dataSize : c.tpSize;
        const bool fsdp = c.layout == ShardingLayout::Fsdp;
        const bool sequence = c.layout == ShardingLayout::Sequence;
        if (fsdp && step.of == "kernel") {
            ring.expected = kernelBlock;
            ring.start = [&](std::int64_t m, std::int64_t) { return kernelBlock(m); };
        } else if (fsdp && step.of == "bias") {
            ring.expected = [&](std::int64_t m) -> Matrix {
                const IndexRange cols = group(m).kernelCols;
                return params.bias.segment(cols.start, cols.size()).transpose();
            };
            ring.start = [&](std::int64_t m, std::int64_t) { return ring.expected(m); };
        } else if (sequence && step.of == "x") {
            ring.expected = [&](std::int64_t d) { return rowsOf(x, d); };
            ring.start = [&](std::int64_t d, std::int64_t) { return rowsOf(x, d); };
        } else if (sequence && step.of == "dy") {
            ring.expected = [&](std::int64_t d) { return rowsOf(dy, d); };
            ring.start = [&](std::int64_t d, std::int64_t) { return rowsOf(dy, d); };
        } else if (sequence && step.of == "output" && !column) {
            ring.expected = [&](std::int64_t d) { return rowsOf(forward.output, d); };
            ring.start = [&](std::int64_t d, std::int64_t m) {
                return rowsOf(forward.partials[std::size_t(m)], d);
            };
            ring.a = [&](std::int64_t d) { return rowsOf(x, d); };
            ring.b = [&](std::int64_t) -> Matrix { return kernel; };
            ring.bias = params.bias;
            k = c.inDim;
        } else if (sequence && step.of == "dx") {
            const BackwardResult& result = *backward.result;
            ring.expected = [&](std::int64_t d) { return rowsOf(result.gradients.dx, d); };
            ring.start = [&](std::int64_t d, std::int64_t m) {
                return rowsOf(result.dxPartials[std::size_t(m)], d);
            };
            ring.a = [&](std::int64_t d) { return rowsOf(dy, d); };
            ring.b = [&](std::int64_t) -> Matrix { return kernel.transpose(); };
            k = c.features;
        } else if (fsdp && step.of == "dkernel") {
            const BackwardResult& result = *backward.result;
            // Block m of x^T @ dy: column mode dy's columns of shard m, row mode x's.
            auto xPart = [&](std::int64_t m) -> Matrix {
                const IndexRange rows = group(m).kernelRows;
                return x.middleCols(rows.start, rows.size());
            };
            auto dyPart = [&](std::int64_t m) -> Matrix {
                const IndexRange cols = group(m).kernelCols;
                return dy.middleCols(cols.start, cols.size());
            };
            ring.expected = [&](std::int64_t m) -> Matrix { return result.dkernelBlock(group(m)); };
            ring.start = [=](std::int64_t m, std::int64_t d) {
                return product(transposed(rowsOf(xPart(m), d)), rowsOf(dyPart(m), d));
            };
            ring.a = [=](std::int64_t m) -> Matrix { return xPart(m).transpose(); };
            ring.b = dyPart;
            k = c.batch;
        } else if (fsdp && step.of == "dbias") {
            const BackwardResult& result = *backward.result;
            auto dyPart = [&](std::int64_t m) -> Matrix {
                const IndexRange cols = group(m).kernelCols;
                return dy.middleCols(cols.start, cols.size());
            };
            ring.expected = [&](std::int64_t m) -> Matrix {
                return result.dbiasBlock(group(m)).transpose();
            };
            ring.start = [=](std::int64_t m, std::int64_t d) -> Matrix {
                return rowsOf(dyPart(m), d).colwise().sum().transpose();
            };
            ring.a = [=](std::int64_t m) -> Matrix { return dyPart(m).transpose(); };
            ring.b = [&](std::int64_t) -> Matrix { return Matrix::Ones(c.batch, 1); };
            k = c.batch;
        } else {
            run.note = step.phase == PassPhase::Forward
                           ? "run as the tensor layout runs it: the collective above"
                           : "run as the tensor layout runs it: the backward's collectives above";
            runs.push_back(std::move(run));
            continue;
        }
        const Matrix first = ring.expected(0);
        const std::int64_t own = rowRingBytes(ring, first.rows(), first.cols(), k);
        if (own > c.memoryBudgetBytes - taken) {
            run.note = "not simulated: the devices' buffers (" + formatBytes(own) +
                       ") and what the scene and the runs before hold (" + formatBytes(taken) +
                       ") would take more than the memory budget (" +
                       formatBytes(c.memoryBudgetBytes) + ")";
            runs.push_back(std::move(run));
            continue;
        }
        taken += own;
        run.simulated = true;
        runRowRing(run, ring, check, std::min(kStepBufferCapBytes, c.memoryBudgetBytes - taken));
        runs.push_back(std::move(run));
    }
    return runs;
}

}  // namespace tp
