#include "device_holdings.h"

#include "devices/backward_costs.h"
#include "devices/layout_costs.h"
#include "scene/layout_timeline.h"
#include "scene/scene_backward.h"

#include <QStringList>

#include <algorithm>
#include <limits>

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

// FSDP: `array` as the device holds it, only the chunks `held` of its rows (`alongRows`) or of
// its values; the others grey, and its bytes and spec those of what it keeps.
void keepChunks(HeldArray& array, const std::vector<bool>& held, bool alongRows,
                const QString& restSpec) {
    const auto count = std::count(held.begin(), held.end(), true);
    if (count == std::ssize(held) || array.data.rows() == 0)
        return;
    const MatrixData& whole = array.data;
    auto kept = std::make_shared<Matrix>(whole.rows(), whole.cols());
    const Index chunks = Index(held.size());
    const Index length = (alongRows ? whole.rows() : whole.cols()) / chunks;
    for (Index r = 0; r < whole.rows(); ++r)
        for (Index col = 0; col < whole.cols(); ++col)
            (*kept)(r, col) = held[std::size_t((alongRows ? r : col) / length)]
                                  ? whole(r, col)
                                  : std::numeric_limits<float>::quiet_NaN();
    array.data = MatrixData::of(kept, *kept);
    array.bytes = array.bytes / chunks * count;
    array.spec = restSpec;
    array.style.absentColour = qRgb(0x9e, 0x9e, 0x9e);
}

}  // namespace

DeviceScene makeDeviceScene(ScenePtr scene, const HardwarePreset& hardware) {
    DeviceScene ds;
    ds.costs = std::make_shared<const SceneCosts>(computeSceneCosts(*scene, hardware));
    if (scene->mlp) {
        ds.program = meshProgram(*scene);
        ds.scene = std::move(scene);
        setMlpScales(ds);
        return ds;
    }
    const auto scaleOf = [&](const MatrixData& m) { return std::max(maxAbs(m), 1e-30f); };
    ds.kernelScale = scaleOf(MatrixData::of(scene, scene->params.kernel));
    ds.biasScale = scaleOf(MatrixData::ofRow(scene, scene->params.bias));
    ds.xScale = scaleOf(MatrixData::of(scene, scene->params.x));
    float out = scaleOf(MatrixData::of(scene, scene->result.output));
    // Partials set side by side are the output's own columns; added ones can be larger than it.
    if (scene->result.partialsAdded)
        for (const Matrix& partial : scene->result.partials)
            out = std::max(out, scaleOf(MatrixData::of(scene, partial)));
    ds.outputScale = out;
    if (const SceneBackward* b = scene->backward.get()) {
        const Gradients& g = b->result.gradients;
        ds.dkernelScale = scaleOf(MatrixData::of(scene, g.dkernel));
        ds.dbiasScale = scaleOf(MatrixData::ofRow(scene, g.dbias));
        ds.dyScale = scaleOf(MatrixData::of(scene, b->dy));
        float dx = scaleOf(MatrixData::of(scene, g.dx));
        for (const Matrix& partial : b->result.dxPartials)
            dx = std::max(dx, scaleOf(MatrixData::of(scene, partial)));
        ds.dxScale = dx;
    }
    ds.program = meshProgram(*scene);
    ds.scene = std::move(scene);
    return ds;
}

DeviceHoldingsView deviceHoldings(const DeviceScene& ds, int d, int m, int step) {
    if (ds.scene->mlp)
        return mlpDeviceHoldings(ds, m, ds.program.at(step));
    const Scene& s = *ds.scene;
    const LayerConfig& c = s.config;
    const SceneCosts& costs = *ds.costs;
    const DeviceHoldings& h = costs.mesh.perDevice;
    const PartitionSpecs specs = partitionSpecs(c);
    const ShardGroup& g = s.result.plan.groups.at(std::size_t(m));
    const IndexRange rows = batchRows(c, d);
    const bool column = c.mode == ParallelMode::Column;
    const TimelineStep& state = ds.program.at(step);
    if (state.backward)
        return deviceGradients(ds, d, m, state);
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
    if (c.layout == ShardingLayout::Fsdp) {
        const PartitionSpecs atRest = layoutPartitionSpecs(c);
        const int data = int(c.dataSize);
        keepChunks(k, fsdpChunksHeld(ds.program, step, "kernel", d, data), true,
                   spec(atRest.kernel));
        keepChunks(b, fsdpChunksHeld(ds.program, step, "bias", d, data), false, spec(atRest.bias));
    }
    v.arrays = {k, b, xs};

    // The output side: what the device has computed, or its collective buffer. A layout's gather
    // before the product (fsdp's kernel and bias, sequence parallelism's x) moves the array it
    // names, and the output is not computed yet.
    const RingRun& ring = costs.ring;
    const bool outputRing = state.ringStep >= 0 && (state.collective.of == "y" ||
                                                    state.collective.of == "the partial sums");
    if (state.ringStep >= 0 && !outputRing) {
        const QString of = QString::fromStdString(state.collective.of);
        const auto moved = std::find_if(v.arrays.begin(), v.arrays.end(), [&](const HeldArray& a) {
            return a.name == of || a.name.startsWith(of + '[');
        });
        const int p = state.collective.devices;
        const int me = state.collective.axis == MeshAxis::Data ? d : m;
        v.ringArray = moved == v.arrays.end() ? -1 : int(moved - v.arrays.begin());
        v.sendsChunk = ringChunkSent(state.ring.phase, state.ring.indexInPhase, me, p);
        v.receivesChunk =
            ringChunkSent(state.ring.phase, state.ring.indexInPhase, (me - 1 + p) % p, p);
    }
    HeldArray out;
    out.spec = spec(specs.output);
    out.bytes = h.outputBytes;
    if (!outputRing) {
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
    if (outputRing && ring.simulated) {
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
    if (outputRing)
        v.ringArray = int(v.arrays.size()) - 1;

    // The kernel and bias as held at this step (FSDP's chunks), the rest as the product uses it.
    const std::int64_t kernelHeld = v.arrays[0].bytes, biasHeld = v.arrays[1].bytes;
    QStringList parts{QStringLiteral("kernel %1").arg(bytes(kernelHeld)),
                      QStringLiteral("bias %1").arg(bytes(biasHeld)),
                      QStringLiteral("x %1").arg(bytes(h.xBytes))};
    if (!column)
        parts << QStringLiteral("partial %1").arg(bytes(h.partialBytes));
    parts << QStringLiteral("out %1").arg(bytes(h.outputBytes));
    const std::int64_t total = totalBytes(h) - h.kernelBytes - h.biasBytes + kernelHeld + biasHeld;
    v.bytesText = parts.join(QStringLiteral(" · ")) + QStringLiteral(" = ") + bytes(total);
    v.flopsText = QStringLiteral("%L1 FLOPs").arg(h.flops);
    return v;
}

}  // namespace tp

namespace tp {
namespace {

// A device's rows of a ring's stack: the device at `position` of ring `line` (RingRun::device).
MatrixData ringRows(const DeviceScene& ds, const RingRun& run, const Matrix& stack,
                    std::int64_t line, std::int64_t position) {
    const Index first = (Index(line) * run.model + position) * run.rowsPerDevice;
    return MatrixData::of(ds.scene, stack)
        .block({first, first + run.rowsPerDevice}, {0, stack.cols()});
}

// The chunks of a ring, each in its owner's colour, grey where not held yet.
HeatmapStyle ringStyle(const RingRun& run, float scale) {
    std::vector<int> ids(run.chunks.size());
    for (std::size_t i = 0; i < ids.size(); ++i)
        ids[i] = int(i);
    HeatmapStyle style = styleOf(run.chunks, ids, Qt::Horizontal, scale);
    style.absentColour = qRgb(0x9e, 0x9e, 0x9e);
    return style;
}

}  // namespace

DeviceHoldingsView deviceGradients(const DeviceScene& ds, int d, int m, const TimelineStep& state) {
    const Scene& s = *ds.scene;
    const SceneBackward& b = *s.backward;
    const BackwardResult& r = b.result;
    const LayerConfig& c = s.config;
    const ShardGroup& g = r.plan.groups.at(std::size_t(m));
    const IndexRange rows = batchRows(c, d);
    const bool column = c.mode == ParallelMode::Column;
    const bool sharded = c.outputLayout() == OutputLayout::Sharded;
    const PartitionSpecs specs = partitionSpecs(c);
    const BackwardHoldings h = backwardHoldings(c);
    const bool computed = state.gradientGroupsDone > 0;
    // A block still to be summed with the other devices' along an axis has no PartitionSpec yet.
    const auto partialOver = [](MeshAxis axis) {
        return QStringLiteral("partial over '%1'").arg(spec(std::string(toString(axis))));
    };

    DeviceHoldingsView v;
    v.d = d;
    v.m = m;
    v.title = QStringLiteral("device (%1, %2)").arg(d).arg(m);

    // The collective of array `of` and this device's place on its ring, when it has one.
    struct Ring {
        int index = -1;
        const RingRun* run = nullptr;
        std::int64_t line = 0, position = 0;
        bool running = false;
    };
    const auto ringOf = [&](std::string_view of) {
        Ring ring;
        for (std::size_t i = 0; i < b.collectives.size() && i < b.rings.size(); ++i)
            if (b.collectives[i].of == of) {
                ring.index = int(i);
                ring.run = &b.rings[i];
                const bool data = b.collectives[i].axis == MeshAxis::Data;
                ring.line = data ? m : d;
                ring.position = data ? d : m;
                ring.running = state.ringStep >= 0 && state.collective.backwardIndex == int(i);
            }
        return ring;
    };
    // What the device's buffer holds after the step shown, when the ring was simulated.
    const auto buffer = [&](const Ring& ring) -> MatrixData {
        const RingRun& run = *ring.run;
        if (!run.simulated)
            return {};
        const int k = state.ringStep;
        const Matrix* stack = run.stepBuffersKept ? &run.steps.at(std::size_t(k)).buffers
                              : k + 1 == int(run.steps.size()) ? &run.final
                                                               : nullptr;
        return stack ? ringRows(ds, run, *stack, ring.line, ring.position) : MatrixData{};
    };
    const auto noteTransfers = [&](const Ring& ring, int array) {
        v.ringArray = array;
        const int p = state.collective.devices;
        const auto chunkAt = [&](int from) {
            return ringChunkSent(state.ring.phase, state.ring.indexInPhase, from, p);
        };
        const int me = int(ring.position);
        v.sendsChunk = chunkAt(me);
        v.receivesChunk = chunkAt((me - 1 + p) % p);
    };

    // dkernel and dbias: the device's own batch rows' block, then summed over "data".
    const auto reducedOverData = [&](std::string_view of, const MatrixData& whole, int array,
                                     bool in, HeldArray& held) {
        const Ring ring = ringOf(of);
        if (!computed)
            return;
        if (ring.running) {
            held.data = buffer(ring);
            noteTransfers(ring, array);
        } else if (ring.run && !in) {
            held.spec = partialOver(MeshAxis::Data);
            if (ring.run->simulated)
                held.data = ringRows(ds, *ring.run, ring.run->initial, ring.line, ring.position);
        } else {
            held.data = ring.run && ring.run->simulated
                            ? ringRows(ds, *ring.run, ring.run->final, ring.line, ring.position)
                            : whole;
        }
    };

    HeldArray dk{QStringLiteral("dkernel[%1, %2]")
                     .arg(column ? QStringLiteral(":") : slice(g.kernelRows),
                          column ? slice(g.kernelCols) : QStringLiteral(":")),
                 spec(specs.kernel),
                 h.dkernelBytes,
                 {},
                 styleOf({{0, g.kernelCols.size()}}, {m}, Qt::Horizontal, ds.dkernelScale)};
    reducedOverData("dkernel",
                    MatrixData::of(ds.scene, r.gradients.dkernel).block(g.kernelRows, g.kernelCols),
                    0, state.dkernelIn, dk);

    HeldArray db{
        column ? QStringLiteral("dbias[%1]").arg(slice(g.kernelCols)) : QStringLiteral("dbias"),
        spec(specs.bias),
        h.dbiasBytes,
        {},
        styleOf(
            column ? std::vector<IndexRange>{{0, g.kernelCols.size()}} : std::vector<IndexRange>{},
            column ? std::vector<int>{m} : std::vector<int>{}, Qt::Horizontal, ds.dbiasScale)};
    reducedOverData("dbias",
                    MatrixData::ofRow(ds.scene, r.gradients.dbias).block({0, 1}, g.kernelCols), 1,
                    state.dbiasIn, db);

    // dx: column mode's partial over the device's features, all-reduced over "model"; row mode's
    // own slice.
    HeldArray dx;
    dx.spec = spec(specs.x);
    dx.bytes = h.dxBytes;
    if (column) {
        const Ring ring = ringOf("dx");
        const IndexRange all{0, c.inDim};
        dx.name = QStringLiteral("dx[%1, :]").arg(slice(rows));
        dx.style = styleOf({all}, {m}, Qt::Horizontal, ds.dxScale);
        if (computed && ring.running) {
            dx.data = buffer(ring);
            dx.style = ringStyle(*ring.run, ds.dxScale);
            noteTransfers(ring, 2);
        } else if (computed && !state.dxIn) {
            dx.name = QStringLiteral("dx_%1[%2, :]").arg(m).arg(slice(rows));
            dx.spec = partialOver(MeshAxis::Model);
            dx.data = MatrixData::of(ds.scene, r.dxPartials[std::size_t(m)]).block(rows, all);
        } else if (computed) {
            const bool ringDone = ring.run && ring.run->simulated;
            dx.data = ringDone ? ringRows(ds, *ring.run, ring.run->final, ring.line, ring.position)
                               : MatrixData::of(ds.scene, r.gradients.dx).block(rows, all);
            if (ring.run)
                dx.style = ringStyle(*ring.run, ds.dxScale);
        }
    } else {
        dx.name = QStringLiteral("dx[%1, %2]").arg(slice(rows), slice(g.kernelRows));
        dx.style = styleOf({{0, g.kernelRows.size()}}, {m}, Qt::Horizontal, ds.dxScale);
        if (computed)
            dx.data = MatrixData::of(ds.scene, r.gradients.dx).block(rows, g.kernelRows);
    }

    // dy, as the output arrived: row + sharded gathers it first.
    HeldArray dy;
    dy.bytes = h.dyBytes;
    dy.spec = spec(specs.output);
    const IndexRange features{0, c.features};
    const MatrixData dyRows = MatrixData::of(ds.scene, b.dy).block(rows, features);
    if (column) {
        dy.name = QStringLiteral("dy[%1, %2]")
                      .arg(slice(rows), sharded ? slice(g.kernelCols) : QStringLiteral(":"));
        dy.data = sharded ? dyRows.block({0, rows.size()}, g.kernelCols) : dyRows;
        // Replicated: the device holds all of dy's rows and takes its own columns.
        dy.style = styleOf({sharded ? IndexRange{0, g.kernelCols.size()} : g.kernelCols}, {m},
                           Qt::Horizontal, ds.dyScale);
    } else {
        const Ring ring = ringOf("dy");
        dy.name = QStringLiteral("dy[%1, :]").arg(slice(rows));
        dy.style = styleOf({}, {}, Qt::Horizontal, ds.dyScale);
        if (ring.run) {
            dy.style = ringStyle(*ring.run, ds.dyScale);
            if (ring.running) {
                dy.data = buffer(ring);
                noteTransfers(ring, 3);
            } else if (!computed) {  // before the all-gather: its own chunk
                dy.data = ring.run->simulated
                              ? ringRows(ds, *ring.run, ring.run->initial, ring.line, ring.position)
                              : MatrixData{};
            } else {
                dy.data = ring.run->simulated
                              ? ringRows(ds, *ring.run, ring.run->final, ring.line, ring.position)
                              : dyRows;
                LayerConfig gathered = c;  // dy as a replicated output would have arrived
                gathered.output = OutputLayout::Replicated;
                dy.spec = spec(partitionSpecs(gathered).output);
            }
        } else {
            dy.data = dyRows;
        }
    }
    v.arrays = {dk, db, dx, dy};

    QStringList parts{QStringLiteral("dkernel %1").arg(bytes(h.dkernelBytes)),
                      QStringLiteral("dbias %1").arg(bytes(h.dbiasBytes)),
                      QStringLiteral("dx %1").arg(bytes(h.dxBytes)),
                      QStringLiteral("dy %1").arg(bytes(h.dyBytes))};
    v.bytesText = parts.join(QStringLiteral(" · ")) + QStringLiteral(" = ") + bytes(h.totalBytes());
    v.flopsText = QStringLiteral("%L1 FLOPs backward").arg(h.flops);
    return v;
}

}  // namespace tp
