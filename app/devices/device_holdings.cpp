#include "device_holdings.h"

#include <QStringList>

#include <algorithm>

namespace tp {
namespace {

QString slice(IndexRange r) {
    return QStringLiteral("%1:%2").arg(r.start).arg(r.stop);
}

QString spec(const std::string& s) {
    return QString::fromStdString(s);
}

HeatmapStyle styleOf(std::vector<IndexRange> groups, std::vector<int> ids, Qt::Orientation axis,
                     float scale) {
    HeatmapStyle style;
    style.groups = std::move(groups);
    style.groupIds = std::move(ids);
    style.groupAxis = axis;
    style.scale = scale;
    return style;
}

QString bytes(std::int64_t b) {
    return QString::fromStdString(formatBytes(b));
}

}  // namespace

DeviceScene makeDeviceScene(ScenePtr scene, const HardwarePreset& hardware) {
    DeviceScene ds;
    ds.costs = std::make_shared<const SceneCosts>(computeSceneCosts(*scene, hardware));
    const auto scaleOf = [&](const MatrixData& m) { return std::max(maxAbs(m), 1e-30f); };
    ds.kernelScale = scaleOf(MatrixData::of(scene, scene->params.kernel));
    ds.biasScale = scaleOf(MatrixData::ofRow(scene, scene->params.bias));
    ds.xScale = scaleOf(MatrixData::of(scene, scene->params.x));
    float out = scaleOf(MatrixData::of(scene, scene->result.output));
    for (const Matrix& partial : scene->result.partials)
        out = std::max(out, scaleOf(MatrixData::of(scene, partial)));
    ds.outputScale = out;
    ds.program = meshProgram(scene->config, scene->mistake);
    ds.scene = std::move(scene);
    return ds;
}

DeviceHoldingsView deviceHoldings(const DeviceScene& ds, int d, int m, int step) {
    const Scene& s = *ds.scene;
    const LayerConfig& c = s.config;
    const SceneCosts& costs = *ds.costs;
    const DeviceHoldings& h = costs.mesh.perDevice;
    const PartitionSpecs specs = partitionSpecs(c);
    const ShardGroup& g = s.result.plan.groups.at(std::size_t(m));
    const IndexRange rows = batchRows(c, d);
    const bool column = c.mode == ParallelMode::Column;
    const TimelineStep& state = ds.program.at(step);
    const IndexRange all{0, c.features};

    DeviceHoldingsView v;
    v.d = d;
    v.m = m;
    v.title = QStringLiteral("device (%1, %2)").arg(d).arg(m);

    const MatrixData kernel = MatrixData::of(ds.scene, s.params.kernel);
    const MatrixData bias = MatrixData::ofRow(ds.scene, s.params.bias);
    const MatrixData x = MatrixData::of(ds.scene, s.params.x);
    HeldArray k{QStringLiteral("kernel[%1, %2]")
                    .arg(column ? QStringLiteral(":") : slice(g.kernelRows),
                         column ? slice(g.kernelCols) : QStringLiteral(":")),
                spec(specs.kernel), h.kernelBytes, kernel.block(g.kernelRows, g.kernelCols),
                styleOf({{0, g.kernelCols.size()}}, {m}, Qt::Horizontal, ds.kernelScale)};
    const IndexRange biasCols = column ? g.kernelCols : all;
    HeldArray b{
        column ? QStringLiteral("bias[%1]").arg(slice(biasCols)) : QStringLiteral("bias"),
        spec(specs.bias), h.biasBytes, bias.block({0, 1}, biasCols),
        styleOf(column ? std::vector<IndexRange>{{0, biasCols.size()}} : std::vector<IndexRange>{},
                column ? std::vector<int>{m} : std::vector<int>{}, Qt::Horizontal, ds.biasScale)};
    HeldArray xs{QStringLiteral("x[%1, %2]")
                     .arg(slice(rows), column ? QStringLiteral(":") : slice(g.inputCols)),
                 spec(specs.x), h.xBytes, x.block(rows, g.inputCols),
                 styleOf({}, {}, Qt::Horizontal, ds.xScale)};
    v.arrays = {k, b, xs};

    // The output side: what the device has computed, or its collective buffer.
    const RingRun& ring = costs.ring;
    HeldArray out;
    out.spec = spec(specs.output);
    out.bytes = h.outputBytes;
    if (state.ringStep < 0) {
        const bool done = m < state.groupsDone;
        if (column) {
            out.name = QStringLiteral("y[%1, %2]").arg(slice(rows), slice(g.outputCols));
            out.bytes = h.outputBytes;
            if (done)
                out.data = MatrixData::of(ds.scene, s.result.output).block(rows, g.outputCols);
            out.style = styleOf({{0, g.outputCols.size()}}, {m}, Qt::Horizontal, ds.outputScale);
        } else {
            out.name = QStringLiteral("partial[%1, :]").arg(slice(rows));
            out.spec = spec(specs.partial);
            out.bytes = h.partialBytes;
            if (done)
                out.data =
                    MatrixData::of(ds.scene, s.result.partials[std::size_t(m)]).block(rows, all);
            out.style = styleOf({all}, {m}, Qt::Horizontal, ds.outputScale);
        }
    } else {
        out.name = QStringLiteral("buffer[%1, :]").arg(slice(rows));
    }
    if (state.ringStep >= 0 && ring.simulated) {
        const RingStep& rs = ring.steps.at(std::size_t(state.ringStep));
        const Matrix* stack = ring.stepBuffersKept ? &rs.buffers : nullptr;
        if (!stack && state.ringStep + 1 == int(ring.steps.size()))
            stack = &ring.final;
        if (stack) {
            const Index first = (Index(d) * ring.model + m) * ring.rowsPerDevice;
            out.data =
                MatrixData::of(ds.costs, *stack).block({first, first + ring.rowsPerDevice}, all);
        }
        std::vector<int> ids(ring.chunks.size());
        for (std::size_t i = 0; i < ids.size(); ++i)
            ids[i] = int(i);
        out.style = styleOf(ring.chunks, ids, Qt::Horizontal, ds.outputScale);
        out.style.absentColour = qRgb(0x9e, 0x9e, 0x9e);  // the ring marks "not held yet" NaN
        for (const ChunkTransfer& t : rs.transfers) {
            if (t.from == m)
                v.sendsChunk = t.chunk;
            if (t.to == m)
                v.receivesChunk = t.chunk;
        }
    }
    v.arrays.push_back(out);

    QStringList parts{QStringLiteral("kernel %1").arg(bytes(h.kernelBytes)),
                      QStringLiteral("bias %1").arg(bytes(h.biasBytes)),
                      QStringLiteral("x %1").arg(bytes(h.xBytes))};
    if (!column)
        parts << QStringLiteral("partial %1").arg(bytes(h.partialBytes));
    parts << QStringLiteral("out %1").arg(bytes(h.outputBytes));
    v.bytesText = parts.join(QStringLiteral(" · ")) + QStringLiteral(" = ") + bytes(totalBytes(h));
    v.flopsText = QStringLiteral("%L1 FLOPs").arg(h.flops);
    return v;
}

}  // namespace tp
