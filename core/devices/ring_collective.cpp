#include "devices/ring_collective.h"

#include <cassert>
#include <cstring>
#include <limits>

namespace tp {

std::vector<IndexRange> featureChunks(Index features, Index p) {
    std::vector<IndexRange> chunks;
    Index start = 0;
    for (Index c = 0; c < p; ++c) {
        const Index width = features / p + (c < features % p ? 1 : 0);
        chunks.push_back({start, start + width});
        start += width;
    }
    return chunks;
}

CollectiveCheck collectiveCheck(const MatrixCRef& actual, const MatrixCRef& expected,
                                Verification verification, bool exactRequired) {
    CollectiveCheck check;
    check.verification = std::move(verification);
    check.elements = actual.size();
    for (Index r = 0; r < actual.rows(); ++r)
        for (Index c = 0; c < actual.cols(); ++c) {
            const float a = actual(r, c);
            const float b = expected(r, c);
            check.bitIdentical += std::memcmp(&a, &b, sizeof a) == 0 ? 1 : 0;
        }
    check.exactRequired = exactRequired;
    if (exactRequired)
        check.verdict = check.bitIdentical == check.elements ? Verdict::Passed : Verdict::Failed;
    else
        check.verdict = check.verification.verdict;
    return check;
}

namespace {

int ringIndex(std::int64_t i, std::int64_t p) {
    return int(((i % p) + p) % p);
}

// What a simulated collective's result is checked with: the layer's x and kernel for the rounding
// bound (verify), or, without them (hand-made partials), allclose alone.
struct CheckInputs {
    const Matrix* x = nullptr;  ///< (N, in_dim), or nullptr
    const Matrix* kernel = nullptr;
    CheckSettings settings;
};

// The output collective against the single-process output. xRows: x's
// rows in the order of `actual`'s rows (with inputs.x set).
CollectiveCheck compareOutputs(const MatrixCRef& actual, const MatrixCRef& expected,
                               const Matrix& xRows, const RowVectorCRef& bias, bool exactRequired,
                               const CheckInputs& inputs) {
    return collectiveCheck(
        actual, expected,
        inputs.x ? verify(actual, expected, xRows, *inputs.kernel, bias, inputs.settings)
                 : verify(actual, expected, inputs.settings.tolerance),
        exactRequired);
}

class Ring {
public:
    explicit Ring(RingRun& run) : m_run(run) {}

    // One step on every data row at once: device m sends chunk chunkOf(m) to m + 1, which either
    // overwrites (gather) or adds into (reduce) its copy of that chunk.
    template <typename ChunkOf>
    void step(RingPhase phase, ChunkOf&& chunkOf) {
        const std::int64_t p = m_run.model;
        RingStep record;
        record.phase = phase;
        Matrix& buffers = m_run.final;
        // All sends of a step happen at once: read every sent chunk before any receiver writes.
        std::vector<Matrix> sent;
        for (std::int64_t d = 0; d < m_run.data; ++d)
            for (std::int64_t m = 0; m < p; ++m) {
                const IndexRange cols = m_run.chunks[std::size_t(chunkOf(m))];
                sent.push_back(m_run.device(buffers, d, m).middleCols(cols.start, cols.size()));
            }
        for (std::int64_t m = 0; m < p; ++m)
            record.transfers.push_back({int(m), ringIndex(m + 1, p), chunkOf(m)});
        for (std::int64_t d = 0; d < m_run.data; ++d)
            for (std::int64_t m = 0; m < p; ++m) {
                const IndexRange cols = m_run.chunks[std::size_t(chunkOf(m))];
                auto target = m_run.device(buffers, d, ringIndex(m + 1, p))
                                  .middleCols(cols.start, cols.size());
                const Matrix& incoming = sent[std::size_t(d * p + m)];
                if (phase == RingPhase::ReduceScatter)
                    target = incoming + target;  // the running sum arrives, the own part is added
                else
                    target = incoming;
            }
        keep(std::move(record));
    }

    void addBias(const RowVectorCRef& bias) {
        RingStep record;
        record.phase = RingPhase::AddBias;
        for (std::int64_t d = 0; d < m_run.data; ++d)
            for (std::int64_t m = 0; m < m_run.model; ++m) {
                const IndexRange cols = m_run.chunks[std::size_t(m)];
                m_run.device(m_run.final, d, m).middleCols(cols.start, cols.size()).rowwise() +=
                    bias.segment(cols.start, cols.size());
            }
        keep(std::move(record));
    }

private:
    void keep(RingStep record) {
        if (m_run.stepBuffersKept)
            record.buffers = m_run.final;
        m_run.steps.push_back(std::move(record));
    }

    RingRun& m_run;
};

}  // namespace

void runRingSteps(RingRun& run, std::int64_t stepRoom, const RowVectorCRef* bias) {
    assert(run.kind != CollectiveKind::None && run.model > 1);
    const std::int64_t p = run.model;
    const bool reduce = run.kind != CollectiveKind::AllGather;
    const bool gather = run.kind != CollectiveKind::ReduceScatter;
    const std::int64_t recordedSteps =
        (reduce ? p - 1 : 0) + (gather ? p - 1 : 0) + (reduce && bias ? 1 : 0);
    run.stepBufferBytes =
        recordedSteps * std::int64_t(run.initial.size()) * std::int64_t(sizeof(float));
    run.stepBuffersKept = run.stepBufferBytes <= stepRoom;
    if (!run.stepBuffersKept)
        run.note = "step buffers not kept: all " + std::to_string(recordedSteps) + " would take " +
                   formatBytes(run.stepBufferBytes) + ", more than " + formatBytes(stepRoom) +
                   "; each step's chunks are kept";
    run.final = run.initial;
    Ring ring(run);
    if (reduce) {
        for (std::int64_t s = 0; s + 1 < p; ++s)
            ring.step(RingPhase::ReduceScatter,
                      [&](std::int64_t m) { return ringIndex(m - s - 1, p); });
        if (bias)
            ring.addBias(*bias);
    }
    if (gather)
        for (std::int64_t s = 0; s + 1 < p; ++s)
            ring.step(RingPhase::AllGather, [&](std::int64_t m) { return ringIndex(m - s, p); });
}

std::int64_t ringRunBytes(const LayerConfig& config) {
    if (collectiveFor(config.mode, config.outputLayout(), config.tpSize) == CollectiveKind::None)
        return 0;
    const std::int64_t rows = config.batch * config.tpSize;  // D*P*Nd
    return (3 * rows * config.features + rows * config.inDim) * std::int64_t(sizeof(float));
}

namespace {

RingRun runRing(const LayerConfig& config, const ForwardResult& forward, const RowVectorCRef& bias,
                const CheckInputs& inputs) {
    assert(config.validate().empty());
    const bool column = config.mode == ParallelMode::Column;
    RingRun run;
    run.kind = collectiveFor(config.mode, config.outputLayout(), config.tpSize);
    run.data = config.dataSize;
    run.model = config.tpSize;
    run.rowsPerDevice = config.batch / config.dataSize;
    run.chunks = featureChunks(config.features, config.tpSize);
    if (run.kind == CollectiveKind::None) {
        run.note = "no collective: the output stays where it was computed";
        return run;
    }

    const std::int64_t p = run.model;
    const std::int64_t stackFloats = config.batch * p * config.features;  // D*P*Nd*F
    const std::int64_t scene = bytesNeeded(config);
    const std::int64_t runBytes = ringRunBytes(config);
    if (runBytes > config.memoryBudgetBytes - scene) {
        run.note = "not simulated: the devices' buffers (" + formatBytes(runBytes) +
                   ") and the scene (" + formatBytes(scene) + ") would take more than the memory " +
                   "budget (" + formatBytes(config.memoryBudgetBytes) + ")";
        return run;
    }
    run.simulated = true;
    const Index nd = run.rowsPerDevice;
    run.initial = Matrix::Constant(Index(stackFloats / config.features), config.features,
                                   std::numeric_limits<float>::quiet_NaN());
    for (std::int64_t d = 0; d < run.data; ++d)
        for (std::int64_t m = 0; m < p; ++m) {
            const Matrix& partial = forward.partials[std::size_t(m)];
            auto rows = partial.middleRows(d * nd, nd);
            if (column)
                run.device(run.initial, d, m)
                    .middleCols(run.chunks[std::size_t(m)].start, rows.cols()) = rows;
            else
                run.device(run.initial, d, m) = rows;
        }
    runRingSteps(run, std::min(kStepBufferCapBytes, config.memoryBudgetBytes - scene - runBytes),
                 column ? nullptr : &bias);

    if (run.kind == CollectiveKind::ReduceScatter) {
        // Each device's result is its own chunk: assemble y from them, each element once.
        Matrix assembled(config.batch, config.features);
        for (std::int64_t d = 0; d < run.data; ++d)
            for (std::int64_t m = 0; m < p; ++m) {
                const IndexRange cols = run.chunks[std::size_t(m)];
                assembled.block(d * nd, cols.start, nd, cols.size()) =
                    run.device(run.final, d, m).middleCols(cols.start, cols.size());
            }
        const Matrix noRows;
        run.check = compareOutputs(assembled, forward.output, inputs.x ? *inputs.x : noRows, bias,
                                   false, inputs);
    } else {
        // Replicated: every device's buffer against its batch rows of y.
        Matrix expected(run.final.rows(), run.final.cols());
        // x's rows stacked the same way, for the rounding bound of each device's rows.
        const Matrix* x = inputs.x;
        Matrix xStack(x ? run.final.rows() : 0, x ? x->cols() : 0);
        for (std::int64_t d = 0; d < run.data; ++d)
            for (std::int64_t m = 0; m < p; ++m) {
                run.device(expected, d, m) = forward.output.middleRows(d * nd, nd);
                if (x)
                    run.device(xStack, d, m) = x->middleRows(d * nd, nd);
            }
        run.check = compareOutputs(run.final, expected, xStack, bias,
                                   run.kind == CollectiveKind::AllGather, inputs);
    }
    return run;
}

}  // namespace

RingRun simulateRing(const LayerConfig& config, const ForwardResult& forward,
                     const RowVectorCRef& bias, Tolerance tolerance) {
    return runRing(config, forward, bias,
                   {.settings = {.rule = CheckRule::Allclose, .tolerance = tolerance}});
}

RingRun simulateRing(const LayerConfig& config, const ForwardResult& forward,
                     const LayerParams& params, const CheckSettings& check) {
    return runRing(config, forward, params.bias,
                   {.x = &params.x, .kernel = &params.kernel, .settings = check});
}

}  // namespace tp
