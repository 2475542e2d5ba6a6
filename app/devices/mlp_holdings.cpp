// What one device of the MLP block holds at a step of its mesh program: the pure part of its
// card (device_holdings.h), from the scene's own arrays and the block's ring runs.

#include "device_holdings.h"

#include "block/mlp.h"
#include "scene/mlp_scene.h"

#include <QStringList>

#include <algorithm>

namespace tp {
namespace {

QString slice(IndexRange r) {
    return QStringLiteral("%1:%2").arg(r.start).arg(r.stop);
}

QString bytes(std::int64_t b) {
    return QString::fromStdString(formatBytes(b));
}

// The whole of an array of `cols` columns in group `group`'s colour.
HeatmapStyle ownStyle(Index cols, int group, float scale) {
    HeatmapStyle style;
    style.groups = {{0, cols}};
    style.groupIds = {group};
    style.groupAxis = Qt::Horizontal;
    style.scale = scale;
    return style;
}

// A ring's buffer: each chunk in its owner's colour, grey where not held yet.
HeatmapStyle ringStyle(const RingRun& run, float scale) {
    HeatmapStyle style;
    style.groups = run.chunks;
    for (std::size_t i = 0; i < run.chunks.size(); ++i)
        style.groupIds.push_back(int(i));
    style.groupAxis = Qt::Horizontal;
    style.scale = scale;
    style.absentColour = qRgb(0x9e, 0x9e, 0x9e);
    return style;
}

float scaleOf(const MatrixData& m) {
    return std::max(maxAbs(m), 1e-30f);
}

// One collective of the block, as this device takes part in it at the step shown.
struct BlockRing {
    int index = -1;  ///< in MlpCosts::collectives and SceneCosts::blockRings; -1: none
    const RingRun* run = nullptr;
    bool running = false;  ///< the step shown is one of its ring steps
    bool done = false;     ///< its last step is behind
};

BlockRing ringOf(const DeviceScene& ds, const MlpScene& s, const TimelineStep& state,
                 std::string_view of) {
    BlockRing ring;
    const std::vector<MlpCollective>& collectives = s.costs.collectives;
    for (std::size_t i = 0; i < collectives.size(); ++i)
        if (collectives[i].of == of && i < ds.costs->blockRings.size()) {
            ring.index = int(i);
            ring.run = &ds.costs->blockRings[i];
        }
    if (ring.index < 0)
        return ring;
    ring.running = state.ringStep >= 0 && state.collective.blockIndex == ring.index;
    // Done once a later step of the program is shown: the step after its last ring step.
    const int at = state.step;
    ring.done =
        !ring.running &&
        std::any_of(ds.program.steps.begin(),
                    ds.program.steps.begin() + std::min<std::ptrdiff_t>(at, ds.program.size()),
                    [&](const TimelineStep& s) { return s.collective.blockIndex == ring.index; });
    return ring;
}

// Device m's rows of a ring's stack after the step shown (running), or of its final buffers.
MatrixData ringRows(const DeviceScene& ds, const BlockRing& ring, int m, int ringStep) {
    const RingRun& run = *ring.run;
    if (!run.simulated)
        return {};
    const Matrix* stack = &run.final;
    if (ring.running) {
        stack = run.stepBuffersKept ? &run.steps.at(std::size_t(ringStep)).buffers
                : ringStep + 1 == int(run.steps.size()) ? &run.final
                                                        : nullptr;
    }
    if (!stack)
        return {};
    return MatrixData::of(ds.costs, run.device(*stack, 0, m));
}

// The chunk device m sends and the one it receives at a ring step of `ring`.
void noteTransfers(DeviceHoldingsView& v, const TimelineStep& state, const BlockRing& ring, int m,
                   int array) {
    v.ringArray = array;
    const int p = state.collective.devices;
    if (ring.run && ring.run->simulated) {
        for (const ChunkTransfer& t : ring.run->steps.at(std::size_t(state.ringStep)).transfers) {
            if (t.from == m)
                v.sendsChunk = t.chunk;
            if (t.to == m)
                v.receivesChunk = t.chunk;
        }
        return;
    }
    v.sendsChunk = ringChunkSent(state.ring.phase, state.ring.indexInPhase, m, p);
    v.receivesChunk = ringChunkSent(state.ring.phase, state.ring.indexInPhase, (m - 1 + p) % p, p);
}

// The place of an array a collective moves: the device's own part before it, the ring's buffer
// while it runs, and its final buffer (the whole, when not simulated) after.
void throughRing(HeldArray& held, DeviceHoldingsView& v, const DeviceScene& ds,
                 const TimelineStep& state, const BlockRing& ring, int m, int array,
                 const MatrixData& whole, float scale) {
    if (ring.index < 0 || (!ring.running && !ring.done))
        return;
    held.style = ringStyle(*ring.run, scale);
    held.data = ringRows(ds, ring, m, state.ringStep);
    if (ring.done && held.data.isEmpty())
        held.data = whole;
    if (ring.running)
        noteTransfers(v, state, ring, m, array);
}

DeviceHoldingsView backwardHoldings(const DeviceScene& ds, const MlpScene& s, int m,
                                    const TimelineStep& state) {
    const auto owner = ds.scene->mlp;
    const MlpBackwardScene& b = *s.backward;
    const MlpGradients& gr = b.split.gradients;
    const LayerConfig& c = ds.scene->config;
    const IndexRange sl = s.split.plan.linear1.groups.at(std::size_t(m)).kernelCols;
    const IndexRange batch{0, c.batch};
    const MlpStepState& st = state.mlp;
    const MlpBackwardHoldings& h = s.costs.backward;
    const float dh = ds.dhiddenScale;
    DeviceHoldingsView v;
    v.m = m;
    v.title = QStringLiteral("device (0, %1)").arg(m);
    HeldArray dk1{QStringLiteral("dkernel1[:, %1]").arg(slice(sl)),
                  QStringLiteral("P(None, 'model')"),
                  h.dkernel1Bytes,
                  {},
                  ownStyle(sl.size(), m, ds.dkernelScale)};
    if (st.dkernel1Done > 0)
        dk1.data = MatrixData::of(owner, gr.dkernel1).block({0, c.inDim}, sl);
    HeldArray dk2{QStringLiteral("dkernel2[%1, :]").arg(slice(sl)),
                  QStringLiteral("P('model', None)"),
                  h.dkernel2Bytes,
                  {},
                  ownStyle(c.features, m, ds.dkernel2Scale)};
    if (st.dkernel2Done > 0)
        dk2.data = MatrixData::of(owner, gr.dkernel2).block(sl, {0, c.features});
    HeldArray dhs{QStringLiteral("dh[:, %1]").arg(slice(sl)),
                  QStringLiteral("P(None, 'model')"),
                  h.dhBytes,
                  {},
                  ownStyle(sl.size(), m, dh)};
    if (st.dhIn)
        dhs.data = MatrixData::of(owner, gr.dh).block(batch, sl);
    HeldArray das{QStringLiteral("da[:, %1]").arg(slice(sl)),
                  QStringLiteral("P(None, 'model')"),
                  h.daBytes,
                  {},
                  ownStyle(sl.size(), m, dh)};
    if (st.dkernel2Done > 0)
        das.data = MatrixData::of(owner, gr.da).block(batch, sl);
    HeldArray dy{QStringLiteral("dy"), QStringLiteral("P(None, None)"), h.dyBytes,
                 MatrixData::of(owner, b.dy), ownStyle(c.features, -1, ds.dyScale)};
    dy.style.groups.clear();
    dy.style.groupIds.clear();
    HeldArray dx{QStringLiteral("dx_%1 (partial)").arg(m),
                 QStringLiteral("partial over 'model'"),
                 h.dxBytes,
                 {},
                 ownStyle(c.inDim, m, ds.dxScale)};
    if (st.dkernel1Done > 0)
        dx.data = MatrixData::of(owner, b.split.dxPartials[std::size_t(m)]);
    v.arrays = {dk1, dk2, dhs, das, dy, dx};
    const BlockRing ring = ringOf(ds, s, state, "dx");
    if (ring.running || ring.done) {
        v.arrays[5].name = QStringLiteral("dx");
        v.arrays[5].spec = QStringLiteral("P(None, None)");
    }
    throughRing(v.arrays[5], v, ds, state, ring, m, 5, MatrixData::of(owner, gr.dx), ds.dxScale);
    v.shares = {0.2, 0.2, 0.12, 0.12, 0.14, 0.2};
    v.bytesText = QStringList{QStringLiteral("dkernel1 %1").arg(bytes(h.dkernel1Bytes)),
                              QStringLiteral("dkernel2 %1").arg(bytes(h.dkernel2Bytes)),
                              QStringLiteral("dh, da %1").arg(bytes(h.dhBytes + h.daBytes)),
                              QStringLiteral("dy %1").arg(bytes(h.dyBytes)),
                              QStringLiteral("dx %1").arg(bytes(h.dxBytes))}
                      .join(QStringLiteral(" · ")) +
                  QStringLiteral(" = ") + bytes(h.total());
    v.flopsText = QStringLiteral("%L1 FLOPs backward").arg(h.flops);
    return v;
}

}  // namespace

void setMlpScales(DeviceScene& ds) {
    const auto owner = ds.scene->mlp;
    const MlpScene& s = *owner;
    ds.kernelScale = scaleOf(MatrixData::of(owner, s.params.kernel1));
    ds.kernel2Scale = scaleOf(MatrixData::of(owner, s.params.kernel2));
    ds.biasScale = std::max(scaleOf(MatrixData::ofRow(owner, s.params.bias1)),
                            scaleOf(MatrixData::ofRow(owner, s.params.bias2)));
    ds.xScale = scaleOf(MatrixData::of(owner, s.params.x));
    ds.hiddenScale = std::max(scaleOf(MatrixData::of(owner, s.split.h)),
                              scaleOf(MatrixData::of(owner, s.split.a)));
    float out = scaleOf(MatrixData::of(owner, s.split.output));
    for (const Matrix& partial : s.split.partials)
        out = std::max(out, scaleOf(MatrixData::of(owner, partial)));
    ds.outputScale = out;
    if (const std::optional<MlpBackwardScene>& b = s.backward) {
        const MlpGradients& g = b->split.gradients;
        ds.dkernelScale = scaleOf(MatrixData::of(owner, g.dkernel1));
        ds.dkernel2Scale = scaleOf(MatrixData::of(owner, g.dkernel2));
        ds.dhiddenScale =
            std::max(scaleOf(MatrixData::of(owner, g.dh)), scaleOf(MatrixData::of(owner, g.da)));
        ds.dyScale = scaleOf(MatrixData::of(owner, b->dy));
        float dx = scaleOf(MatrixData::of(owner, g.dx));
        for (const Matrix& partial : b->split.dxPartials)
            dx = std::max(dx, scaleOf(MatrixData::of(owner, partial)));
        ds.dxScale = dx;
    }
}

DeviceHoldingsView mlpDeviceHoldings(const DeviceScene& ds, int m, const TimelineStep& state) {
    const auto owner = ds.scene->mlp;
    const MlpScene& s = *owner;
    if (state.backward && s.backward)
        return backwardHoldings(ds, s, m, state);
    const LayerConfig& c = ds.scene->config;
    const MlpPlan& plan = s.split.plan;
    const ShardGroup& g1 = plan.linear1.groups.at(std::size_t(m));
    const ShardGroup& g2 = plan.linear2.groups.at(std::size_t(m));
    const bool column1 = plan.linear1.mode == ParallelMode::Column;
    const bool row2 = plan.linear2.mode == ParallelMode::Row;
    const IndexRange batch{0, c.batch};
    const MlpHoldings& h = s.costs.perDevice;
    const MlpStepState& st = state.mlp;
    const auto blockName = [](const char* name, const ShardGroup& g, bool column) {
        return column ? QStringLiteral("%1[:, %2]").arg(QLatin1String(name), slice(g.kernelCols))
                      : QStringLiteral("%1[%2, :]").arg(QLatin1String(name), slice(g.kernelRows));
    };

    DeviceHoldingsView v;
    v.m = m;
    v.title = QStringLiteral("device (0, %1)").arg(m);
    const MatrixData kernel1 = MatrixData::of(owner, s.params.kernel1);
    const MatrixData kernel2 = MatrixData::of(owner, s.params.kernel2);
    HeldArray k1{blockName("kernel1", g1, column1),
                 column1 ? QStringLiteral("P(None, 'model')") : QStringLiteral("P('model', None)"),
                 h.kernel1Bytes, kernel1.block(g1.kernelRows, g1.kernelCols),
                 ownStyle(g1.kernelCols.size(), m, ds.kernelScale)};
    HeldArray k2{blockName("kernel2", g2, !row2),
                 row2 ? QStringLiteral("P('model', None)") : QStringLiteral("P(None, 'model')"),
                 h.kernel2Bytes, kernel2.block(g2.kernelRows, g2.kernelCols),
                 ownStyle(g2.kernelCols.size(), m, ds.kernel2Scale)};

    // h and a: the device's slice (row-then-column: its partial sum of h, and the GeLUs' sum).
    const bool hidden = st.hiddenDone > 0;
    HeldArray hs;
    HeldArray as;
    if (column1) {
        hs = {QStringLiteral("h[:, %1]").arg(slice(g1.kernelCols)),
              QStringLiteral("P(None, 'model')"),
              h.hiddenBytes / 2,
              {},
              ownStyle(g1.kernelCols.size(), m, ds.hiddenScale)};
        as = {QStringLiteral("a[:, %1] = gelu(h)").arg(slice(g1.kernelCols)),
              QStringLiteral("P(None, 'model')"),
              h.hiddenBytes / 2,
              {},
              ownStyle(g1.kernelCols.size(), m, ds.hiddenScale)};
        if (hidden) {
            hs.data = MatrixData::of(owner, s.split.h).block(batch, g1.kernelCols);
            as.data = MatrixData::of(owner, s.split.a).block(batch, g1.kernelCols);
        }
    } else {
        hs = {QStringLiteral("h_%1 (partial sum)").arg(m),
              QStringLiteral("partial over 'model'"),
              h.hiddenBytes / 2,
              {},
              ownStyle(c.hidden, m, ds.hiddenScale)};
        as = {QStringLiteral("gelu(h_%1)").arg(m),
              QStringLiteral("partial over 'model'"),
              h.hiddenBytes / 2,
              {},
              ownStyle(c.hidden, m, ds.hiddenScale)};
        if (hidden)
            hs.data = MatrixData::of(owner, s.split.hPartials.at(std::size_t(m)));
    }
    const BlockRing aRing = ringOf(ds, s, state, column1 ? "a" : "the GeLUs of the partial sums");
    if (!column1 && hidden && aRing.run && aRing.run->simulated)  // its own GeLU, before the sum
        as.data = MatrixData::of(ds.costs, aRing.run->device(aRing.run->initial, 0, m));
    if (aRing.running || aRing.done) {
        as.name = aRing.done ? QStringLiteral("a (whole)") : QStringLiteral("a (buffer)");
        as.spec = QStringLiteral("P(None, None)");
    }

    // linear2's partial sum, or its block of y; then the output collective's buffer.
    HeldArray out;
    if (row2) {
        out = {QStringLiteral("partial_%1").arg(m),
               QStringLiteral("partial over 'model'"),
               h.partialBytes,
               {},
               ownStyle(c.features, m, ds.outputScale)};
        if (st.linear2Done > 0)
            out.data = MatrixData::of(owner, s.split.partials[std::size_t(m)]);
    } else {
        out = {QStringLiteral("y[:, %1]").arg(slice(g2.kernelCols)),
               QStringLiteral("P(None, 'model')"),
               h.outputBytes / c.tpSize,
               {},
               ownStyle(g2.kernelCols.size(), m, ds.outputScale)};
        if (st.linear2Done > 0)
            out.data = MatrixData::of(owner, s.split.output).block(batch, g2.kernelCols);
    }
    const BlockRing outRing = ringOf(ds, s, state, row2 ? "the partial sums" : "y");
    if (outRing.running || outRing.done) {
        out.name = outRing.done ? QStringLiteral("y") : QStringLiteral("y (buffer)");
        out.spec = QStringLiteral("P(None, None)");
        out.bytes = h.outputBytes;
    }
    v.arrays = {k1, k2, hs, as, out};
    throughRing(v.arrays[3], v, ds, state, aRing, m, 3, MatrixData::of(owner, s.split.a),
                ds.hiddenScale);
    throughRing(v.arrays[4], v, ds, state, outRing, m, 4, MatrixData::of(owner, s.split.output),
                ds.outputScale);
    v.shares = {0.24, 0.24, 0.12, 0.12, 0.26};

    QStringList parts{QStringLiteral("kernel1 %1").arg(bytes(h.kernel1Bytes)),
                      QStringLiteral("kernel2 %1").arg(bytes(h.kernel2Bytes)),
                      QStringLiteral("biases %1").arg(bytes(h.bias1Bytes + h.bias2Bytes)),
                      QStringLiteral("x %1").arg(bytes(h.xBytes)),
                      QStringLiteral("h, a %1").arg(bytes(h.hiddenBytes))};
    if (h.partialBytes > 0)
        parts << QStringLiteral("partial %1").arg(bytes(h.partialBytes));
    parts << QStringLiteral("out %1").arg(bytes(h.outputBytes));
    v.bytesText = parts.join(QStringLiteral(" · ")) + QStringLiteral(" = ") + bytes(h.total());
    v.flopsText = QStringLiteral("%L1 FLOPs").arg(h.flops);
    return v;
}

}  // namespace tp
