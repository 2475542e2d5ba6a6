#include "devices/backward_ring.h"

#include "layer/products.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <limits>

namespace tp {

namespace {

// What the run of one collective allocates, the step buffers left out.
std::int64_t runBytes(const LayerConfig& c, const BackwardCollective& collective) {
    const std::int64_t stackRows = c.tpSize * c.batch;  // D*P*Nd
    std::int64_t floats = 0;
    if (collective.axis == MeshAxis::Data) {
        // Initial, final, expected and (column mode) the check's transposed final and expected, a
        // block per device; the check's first factor, a (checkRows, batch) block per device; and
        // its second, x or dy (dkernel) or a column of ones (dbias, column mode) or dy (row).
        const bool column = c.mode == ParallelMode::Column;
        const bool dkernel = collective.of == "dkernel";
        const std::int64_t rows = !dkernel ? 1 : column ? c.inDim : c.inDim / c.tpSize;
        const std::int64_t cols = column ? c.features / c.tpSize : c.features;
        const std::int64_t checkRows = column ? cols : rows;
        const std::int64_t devices = c.dataSize * c.tpSize;
        const std::int64_t second =
            !column || dkernel ? c.batch * (column ? c.inDim : c.features) : c.batch;
        floats = (column ? 5 : 3) * devices * rows * cols + devices * checkRows * c.batch + second;
    } else if (collective.of == "dy") {
        floats = 3 * stackRows * c.features;
    } else {
        floats = 3 * stackRows * c.inDim + stackRows * c.features + c.features * c.inDim;
    }
    return floats * std::int64_t(sizeof(float));
}

}  // namespace

std::int64_t backwardRingBytes(const LayerConfig& c) {
    std::int64_t bytes = 0;
    for (const BackwardCollective& collective : backwardCollectives(c))
        bytes += runBytes(c, collective);
    return bytes;
}

namespace {

RingRun emptyRun(const LayerConfig& c, const BackwardCollective& collective, std::string note) {
    RingRun run;
    run.kind = collective.cost.kind;
    run.data = c.dataSize;
    run.model = c.tpSize;
    run.rowsPerDevice = c.batch / c.dataSize;
    run.note = std::move(note);
    return run;
}

// dy's rows of each device's batch block, one block per device, stacked as RingRun::device.
Matrix stackedRows(const RingRun& run, const MatrixCRef& rows) {
    Matrix stack(run.data * run.model * run.rowsPerDevice, rows.cols());
    for (std::int64_t d = 0; d < run.data; ++d)
        for (std::int64_t m = 0; m < run.model; ++m)
            run.device(stack, d, m) = rows.middleRows(d * run.rowsPerDevice, run.rowsPerDevice);
    return stack;
}

void gatherDy(RingRun& run, const MatrixCRef& dy, std::int64_t stepRoom) {
    run.chunks = featureChunks(dy.cols(), run.model);
    run.initial = Matrix::Constant(run.data * run.model * run.rowsPerDevice, dy.cols(),
                                   std::numeric_limits<float>::quiet_NaN());
    for (std::int64_t d = 0; d < run.data; ++d)
        for (std::int64_t m = 0; m < run.model; ++m) {
            const IndexRange cols = run.chunks[std::size_t(m)];
            run.device(run.initial, d, m).middleCols(cols.start, cols.size()) =
                dy.block(d * run.rowsPerDevice, cols.start, run.rowsPerDevice, cols.size());
        }
    runRingSteps(run, stepRoom);
    const Matrix expected = stackedRows(run, dy);
    run.check =
        collectiveCheck(run.final, expected, verify(run.final, expected, Tolerance{}), true);
}

void reduceDx(RingRun& run, const BackwardResult& result, const MatrixCRef& dy,
              const MatrixCRef& kernel, const CheckSettings& check, std::int64_t stepRoom) {
    const Index inDim = kernel.rows();
    run.chunks = featureChunks(inDim, run.model);
    run.initial.resize(run.data * run.model * run.rowsPerDevice, inDim);
    for (std::int64_t d = 0; d < run.data; ++d)
        for (std::int64_t m = 0; m < run.model; ++m)
            run.device(run.initial, d, m) = result.dxPartials[std::size_t(m)].middleRows(
                d * run.rowsPerDevice, run.rowsPerDevice);
    runRingSteps(run, stepRoom);
    const Matrix expected = stackedRows(run, result.gradients.dx);
    const Matrix dyStack = stackedRows(run, dy);
    const Matrix kernelT = kernel.transpose();  // (features, in_dim): dx's second factor
    run.check = collectiveCheck(
        run.final, expected,
        verify(run.final, expected, dyStack, kernelT, RowVector::Zero(inDim), check), false);
}

// A block each device (m, d) holds before the all-reduce over "data", and how it is checked: the
// transpose of the block (column mode) or the block itself (row mode) is a product a @ b with one
// b for every device, a's rows depending on the model shard m only.
struct DataBlocks {
    Index rows = 0;  ///< of each device's block
    Index cols = 0;
    std::function<Matrix(std::int64_t m, std::int64_t d)> computed;  ///< from batch block d only
    std::function<Matrix(std::int64_t m)> expected;                  ///< the split pass's
    bool checkTransposed = false;
    std::function<Matrix(std::int64_t m)> a;  ///< a's rows for shard m's block
    Matrix b;
};

// The all-reduce over "data" of the blocks: tpSize rings (one per model shard m) of dataSize
// devices each. In the run's stacks, ring m's device d is run.device(stack, m, d).
void reduceOverData(RingRun& run, const DataBlocks& blocks, const CheckSettings& check,
                    std::int64_t stepRoom) {
    run.rowsPerDevice = blocks.rows;
    run.chunks = featureChunks(blocks.cols, run.model);
    run.initial.resize(run.data * run.model * blocks.rows, blocks.cols);
    for (std::int64_t m = 0; m < run.data; ++m)
        for (std::int64_t d = 0; d < run.model; ++d)
            run.device(run.initial, m, d) = blocks.computed(m, d);
    runRingSteps(run, stepRoom);

    Matrix expected(run.final.rows(), run.final.cols());
    for (std::int64_t m = 0; m < run.data; ++m) {
        const Matrix block = blocks.expected(m);
        for (std::int64_t d = 0; d < run.model; ++d)
            run.device(expected, m, d) = block;
    }
    // The check's operands, one (rows, K) block of a per device.
    const Index checkRows = blocks.checkTransposed ? blocks.cols : blocks.rows;
    Matrix a(run.data * run.model * checkRows, blocks.b.rows());
    for (std::int64_t m = 0; m < run.data; ++m) {
        const Matrix rows = blocks.a(m);
        for (std::int64_t d = 0; d < run.model; ++d)
            a.middleRows((m * run.model + d) * checkRows, checkRows) = rows;
    }
    const RowVector zero = RowVector::Zero(blocks.b.cols());
    if (!blocks.checkTransposed) {
        run.check = collectiveCheck(run.final, expected,
                                    verify(run.final, expected, a, blocks.b, zero, check), false);
        return;
    }
    Matrix finalT(a.rows(), blocks.b.cols());
    Matrix expectedT(a.rows(), blocks.b.cols());
    for (std::int64_t i = 0; i < run.data * run.model; ++i) {
        finalT.middleRows(i * checkRows, checkRows) =
            run.final.middleRows(i * blocks.rows, blocks.rows).transpose();
        expectedT.middleRows(i * checkRows, checkRows) =
            expected.middleRows(i * blocks.rows, blocks.rows).transpose();
    }
    run.check = collectiveCheck(run.final, expected,
                                verify(finalT, expectedT, a, blocks.b, zero, check), false);
}

DataBlocks dkernelBlocks(const LayerConfig& c, const BackwardResult& result, const MatrixCRef& x,
                         const MatrixCRef& dy) {
    const Index nd = c.batch / c.dataSize;
    DataBlocks blocks;
    const ShardingPlan& plan = result.plan;
    auto group = [&plan](std::int64_t m) { return plan.groups[std::size_t(m)]; };
    if (c.mode == ParallelMode::Column) {
        blocks.rows = c.inDim;
        blocks.cols = c.features / c.tpSize;
        blocks.computed = [&, group, nd](std::int64_t m, std::int64_t d) {
            const IndexRange cols = group(m).kernelCols;
            return product(transposed(x.middleRows(d * nd, nd)),
                           dy.block(d * nd, cols.start, nd, cols.size()));
        };
        blocks.checkTransposed = true;  // block^T = dy[:, cols]^T @ x
        blocks.a = [&, group](std::int64_t m) -> Matrix {
            const IndexRange cols = group(m).kernelCols;
            return dy.middleCols(cols.start, cols.size()).transpose();
        };
        blocks.b = x;
    } else {
        blocks.rows = c.inDim / c.tpSize;
        blocks.cols = c.features;
        blocks.computed = [&, group, nd](std::int64_t m, std::int64_t d) {
            const IndexRange rows = group(m).kernelRows;
            return product(transposed(x.block(d * nd, rows.start, nd, rows.size())),
                           dy.middleRows(d * nd, nd));
        };
        blocks.a = [&, group](std::int64_t m) -> Matrix {
            const IndexRange rows = group(m).kernelRows;
            return x.middleCols(rows.start, rows.size()).transpose();
        };
        blocks.b = dy;
    }
    blocks.expected = [&result, group](std::int64_t m) -> Matrix {
        return result.dkernelBlock(group(m));
    };
    return blocks;
}

DataBlocks dbiasBlocks(const LayerConfig& c, const BackwardResult& result, const MatrixCRef& dy) {
    const Index nd = c.batch / c.dataSize;
    const ShardingPlan& plan = result.plan;
    auto group = [&plan](std::int64_t m) { return plan.groups[std::size_t(m)]; };
    DataBlocks blocks;
    blocks.rows = 1;
    blocks.cols = c.mode == ParallelMode::Column ? c.features / c.tpSize : c.features;
    blocks.computed = [&, group, nd](std::int64_t m, std::int64_t d) -> Matrix {
        const IndexRange cols = group(m).kernelCols;
        return dy.block(d * nd, cols.start, nd, cols.size()).colwise().sum();
    };
    blocks.expected = [&result, group](std::int64_t m) -> Matrix {
        return result.dbiasBlock(group(m));
    };
    if (c.mode == ParallelMode::Column) {
        blocks.checkTransposed = true;  // block^T = dy[:, cols]^T @ ones(batch, 1)
        blocks.a = [&, group](std::int64_t m) -> Matrix {
            const IndexRange cols = group(m).kernelCols;
            return dy.middleCols(cols.start, cols.size()).transpose();
        };
        blocks.b = Matrix::Ones(c.batch, 1);
    } else {
        blocks.a = [&c](std::int64_t) -> Matrix { return Matrix::Ones(1, c.batch); };
        blocks.b = dy;
    }
    return blocks;
}

}  // namespace

std::vector<RingRun> runBackwardRings(const LayerConfig& c, const BackwardResult& result,
                                      const MatrixCRef& x, const MatrixCRef& kernel,
                                      const MatrixCRef& dy, const CheckSettings& check) {
    assert(c.validate().empty());
    std::int64_t taken = bytesNeeded(c) + backwardBytesNeeded(c);
    std::vector<RingRun> rings;
    for (const BackwardCollective& collective : backwardCollectives(c)) {
        const std::int64_t own = runBytes(c, collective);
        if (own > c.memoryBudgetBytes - taken) {
            rings.push_back(
                emptyRun(c, collective,
                         "not simulated: the devices' buffers (" + formatBytes(own) +
                             ") and what the scene, its backward pass and the runs before hold (" +
                             formatBytes(taken) + ") would take more than the memory budget (" +
                             formatBytes(c.memoryBudgetBytes) + ")"));
            continue;
        }
        taken += own;
        RingRun run = emptyRun(c, collective, "");
        run.simulated = true;
        const std::int64_t stepRoom = std::min(kStepBufferCapBytes, c.memoryBudgetBytes - taken);
        if (collective.axis == MeshAxis::Data) {
            run.data = c.tpSize;  // a ring of D devices for each model shard
            run.model = c.dataSize;
            reduceOverData(run,
                           collective.of == "dkernel" ? dkernelBlocks(c, result, x, dy)
                                                      : dbiasBlocks(c, result, dy),
                           check, stepRoom);
        } else if (collective.of == "dy") {
            gatherDy(run, dy, stepRoom);
        } else {
            reduceDx(run, result, dy, kernel, check, stepRoom);
        }
        rings.push_back(std::move(run));
    }
    return rings;
}

}  // namespace tp
