#include "block/mlp_rings.h"

#include "block/mlp.h"

#include <algorithm>
#include <cassert>
#include <limits>

namespace tp {
namespace {

constexpr std::int64_t kFloat = sizeof(float);

// The width of the array a collective moves: y and the partial sums F, a and the GeLUs hidden,
// dx in_dim.
Index movedWidth(const LayerConfig& c, const MlpCollective& collective) {
    if (collective.of == "dx")
        return c.inDim;
    if (collective.of == "y" || collective.of == "the partial sums")
        return c.features;
    return c.hidden;
}

// Every device's copy of `rows` (N rows), stacked as RingRun::device.
Matrix stacked(const RingRun& run, const MatrixCRef& rows) {
    Matrix stack(run.model * run.rowsPerDevice, rows.cols());
    for (std::int64_t m = 0; m < run.model; ++m)
        run.device(stack, 0, m) = rows;
    return stack;
}

// Device m starts with `block m` of `whole` in chunk m (NaN elsewhere); an all-gather, checked
// bit for bit.
void gather(RingRun& run, const MatrixCRef& whole, std::int64_t stepRoom) {
    run.initial = Matrix::Constant(run.model * run.rowsPerDevice, whole.cols(),
                                   std::numeric_limits<float>::quiet_NaN());
    for (std::int64_t m = 0; m < run.model; ++m) {
        const IndexRange cols = run.chunks[std::size_t(m)];
        run.device(run.initial, 0, m).middleCols(cols.start, cols.size()) =
            whole.middleCols(cols.start, cols.size());
    }
    runRingSteps(run, stepRoom);
    const Matrix expected = stacked(run, whole);
    run.check =
        collectiveCheck(run.final, expected, verify(run.final, expected, Tolerance{}), true);
}

// Device m starts with parts[m] (stored, or a partial made on first read); an all-reduce (bias
// added once between its halves when given).
template <typename Parts>
void reduce(RingRun& run, const Parts& parts, const RowVectorCRef* bias, std::int64_t stepRoom) {
    run.initial.resize(run.model * run.rowsPerDevice, parts.front().cols());
    for (std::int64_t m = 0; m < run.model; ++m)
        run.device(run.initial, 0, m) = parts[std::size_t(m)];
    runRingSteps(run, stepRoom, bias);
}

// Row-then-column's sum of the GeLUs against the split's a: each pass adds P terms.
void checkGeluSum(RingRun& run, const std::vector<Matrix>& gelus, const MatrixCRef& a,
                  const CheckSettings& check) {
    Matrix magnitude = gelus.front().cwiseAbs();
    for (std::size_t m = 1; m < gelus.size(); ++m)
        magnitude += gelus[m].cwiseAbs();
    const Index p = Index(gelus.size());
    ElementBounds bounds;
    bounds.inDim = p;
    const BoundModel model(p);
    bounds.bound = magnitude.unaryExpr([&model](float s) { return float(model.bound(s)); });
    bounds.worstCase = magnitude.unaryExpr([&model](float s) { return float(model.worstCase(s)); });
    const Matrix expected = stacked(run, a);
    ElementBounds stackedBounds{stacked(run, bounds.bound), stacked(run, bounds.worstCase), p};
    run.check = collectiveCheck(run.final, expected,
                                verifyWithin(run.final, expected, stackedBounds, check), false);
}

}  // namespace

std::int64_t mlpRingBytes(const LayerConfig& c, const MlpCollective& collective) {
    const std::int64_t rows = c.tpSize * c.batch;
    std::int64_t floats = 3 * rows * movedWidth(c, collective);
    if (collective.of == "the partial sums")
        floats += rows * c.hidden;  // a stacked, the first factor of the rounding bound
    else if (collective.of == "dx")
        floats += rows * c.hidden + c.inDim * c.hidden;  // dh stacked, kernel1^T
    else if (collective.of != "y" && collective.of != "a")
        floats += (c.tpSize + 4) * c.batch * c.hidden + 2 * rows * c.hidden;  // GeLUs, bounds
    return floats * kFloat;
}

std::vector<RingRun> runMlpRings(const LayerConfig& c, Mistake mistake, const MlpParams& params,
                                 const MlpForward& forward, const MlpCosts& costs,
                                 const MlpBackward* backward, const CheckSettings& check) {
    assert(c.block == Block::Mlp && c.validate().empty());
    std::int64_t used = mlpBytesNeeded(c) + (backward ? mlpBackwardBytesNeeded(c) : 0);
    std::vector<RingRun> runs;
    for (const MlpCollective& collective : costs.collectives) {
        RingRun& run = runs.emplace_back();
        run.kind = collective.cost.kind;
        run.data = 1;
        run.model = c.tpSize;
        run.rowsPerDevice = c.batch;
        const Index width = movedWidth(c, collective);
        run.chunks = featureChunks(width, c.tpSize);
        const std::int64_t bytes = mlpRingBytes(c, collective);
        if (collective.backward && !backward) {
            run.note = "not simulated: the scene has no backward pass";
            continue;
        }
        if (bytes > c.memoryBudgetBytes - used) {
            run.note = "not simulated: the devices' buffers (" + formatBytes(bytes) +
                       ") and the scene (" + formatBytes(used) +
                       ") would take more than the memory budget (" +
                       formatBytes(c.memoryBudgetBytes) + ")";
            continue;
        }
        used += bytes;
        run.simulated = true;
        const std::int64_t stepRoom = std::min(kStepBufferCapBytes, c.memoryBudgetBytes - used);
        if (collective.of == "a") {
            gather(run, forward.a, stepRoom);
        } else if (collective.of == "y") {
            for (std::size_t m = 0; m < run.chunks.size(); ++m)  // linear2's column blocks
                run.chunks[m] = forward.plan.linear2.groups[m].kernelCols;
            gather(run, forward.output, stepRoom);
        } else if (collective.of == "the partial sums") {
            const bool once = mistake == Mistake::None;
            const RowVectorCRef bias2 = params.bias2;
            reduce(run, forward.partials, once ? &bias2 : nullptr, stepRoom);
            // bias2-per-partial's partial sums hold bias2 once each: P times in their sum.
            const RowVector bias =
                once ? RowVector(params.bias2) : RowVector(params.bias2 * float(c.tpSize));
            const Matrix expected = stacked(run, forward.output);
            const Matrix a = stacked(run, forward.a);
            run.check =
                collectiveCheck(run.final, expected,
                                verify(run.final, expected, a, params.kernel2, bias, check), false);
        } else if (collective.of == "dx") {
            reduce(run, backward->dxPartials, nullptr, stepRoom);
            const Matrix expected = stacked(run, backward->gradients.dx);
            const Matrix dh = stacked(run, backward->gradients.dh);
            const Matrix kernel1T = params.kernel1.transpose();  // (hidden, in_dim)
            run.check = collectiveCheck(
                run.final, expected,
                verify(run.final, expected, dh, kernel1T, RowVector::Zero(c.inDim), check), false);
        } else {  // row-then-column: the GeLUs of linear1's partial sums
            std::vector<Matrix> gelus;
            for (const Matrix& partial : forward.hPartials)
                gelus.push_back(geluOf(partial));
            reduce(run, gelus, nullptr, stepRoom);
            checkGeluSum(run, gelus, forward.a, check);
        }
    }
    return runs;
}

}  // namespace tp
