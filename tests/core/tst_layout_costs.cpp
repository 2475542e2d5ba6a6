// The sharding layouts' programs and memory (devices/layout_costs.h): the tensor layout is today's
// mesh, fsdp and sequence add and change collectives as their papers describe, worked by hand on
// the (8, 4096, 16384) layer at tp 4, D 2, and held to their relations on a grid of meshes; and the
// configs each layout refuses, in words.

#include "config_fixtures.h"
#include "devices/backward_costs.h"
#include "devices/layout_costs.h"

#include <cmath>

#include <QTest>

using namespace tp;

namespace {

constexpr std::int64_t KiB = 1024, MiB = 1024 * 1024;

LayerConfig layer(ParallelMode mode, ShardingLayout layout, std::int64_t tp, std::int64_t data,
                  std::optional<OutputLayout> output = std::nullopt) {
    LayerConfig c = test::meshConfig(mode, 8, 4096, 16384, tp, data, OutputLayout::Sharded);
    c.output = output;
    c.layout = layout;
    c.memoryBudgetBytes = std::int64_t(4) << 30;
    return c;
}

// "phase kind of ARRAY over AXIS: BYTES in STEPS" for each collective, to compare whole programs.
QStringList programText(const std::vector<LayoutCollective>& program) {
    QStringList lines;
    for (const LayoutCollective& s : program)
        lines << QString("%1 %2 of %3 over %4: %5 in %6")
                     .arg(QString::fromStdString(std::string(toString(s.phase))),
                          QString::fromStdString(std::string(toString(s.cost.kind))),
                          QString::fromStdString(s.of),
                          QString::fromStdString(std::string(toString(s.axis))))
                     .arg(s.cost.bytesSentPerDevice)
                     .arg(s.cost.ringSteps);
    return lines;
}

std::int64_t arrayBytes(const LayoutMemory& memory, const std::string& name, bool peak) {
    for (const ArrayMemory& a : memory.arrays)
        if (a.name == name)
            return peak ? a.peak : a.atRest;
    return -1;
}

bool hasProblem(const LayerConfig& c, ConfigField field, const char* words) {
    for (const ConfigProblem& p : c.validate())
        if (p.field == field && p.message.find(words) != std::string::npos)
            return true;
    return false;
}

void addGrid() {
    QTest::addColumn<int>("mode");
    QTest::addColumn<int>("output");
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("data");
    for (const int mode : {0, 1})
        for (const int output : {0, 1})
            for (const int tp : {1, 2, 4})
                for (const int data : {1, 2, 4})
                    QTest::addRow("%s %s tp%d D%d", mode == 0 ? "column" : "row",
                                  output == 0 ? "sharded" : "replicated", tp, data)
                        << mode << output << tp << data;
}

}  // namespace

class TestLayoutCosts : public QObject {
    Q_OBJECT

private slots:
    // Column mode, (8, 4096, 16384), tp 4, D 2: Nd = 4 rows; the kernel block 4096 x 4096
    // (64 MiB), the bias block 4096 values (16 KiB), x 4 x 4096 (64 KiB).
    void fsdpColumnByHand() {
        const LayerConfig c = layer(ParallelMode::Column, ShardingLayout::Fsdp, 4, 2);
        QVERIFY(c.validate().empty());
        // A gather over 2 devices sends half of V in 1 step; dx's all-reduce over 4 sends
        // 2 * 3/4 of 64 KiB in 6 steps; the data axis reduce-scatters instead of all-reducing.
        const QStringList expected{
            "forward all-gather of kernel over data: 33554432 in 1",
            "forward all-gather of bias over data: 8192 in 1",
            "backward all-gather of kernel over data: 33554432 in 1",
            "backward all-reduce of dx over model: 98304 in 6",
            "backward reduce-scatter of dkernel over data: 33554432 in 1",
            "backward reduce-scatter of dbias over data: 8192 in 1",
        };
        QCOMPARE(programText(layoutCollectives(c, true)), expected);
        QCOMPARE(programText(layoutCollectives(c, false)), expected.mid(0, 2));

        const LayoutMemory m = layoutMemory(c, true);
        QCOMPARE(arrayBytes(m, "kernel", false), 32 * MiB);
        QCOMPARE(arrayBytes(m, "kernel", true), 64 * MiB);
        QCOMPARE(arrayBytes(m, "bias", false), 8 * KiB);
        QCOMPARE(arrayBytes(m, "dkernel", false), 32 * MiB);
        QCOMPARE(m.atRest, 32 * MiB + 8 * KiB + 64 * KiB);
        // The backward's products: the gathered kernel, the bias at rest, x, dy's columns
        // (4 x 4096), dx's partial (4 x 4096), dkernel's and dbias's whole blocks.
        QCOMPARE(m.peak, 64 * MiB + 8 * KiB + 64 * KiB + 64 * KiB + 64 * KiB + 64 * MiB + 16 * KiB);
    }

    void sequenceByHand() {
        // Column: x rests as 1 of its 4 rows on each device and is all-gathered over "model"
        // (3/4 of 64 KiB in 3 steps), again in the backward; dx is reduce-scattered.
        const LayerConfig column = layer(ParallelMode::Column, ShardingLayout::Sequence, 4, 2);
        QVERIFY(column.validate().empty());
        QCOMPARE(programText(layoutCollectives(column, true)),
                 (QStringList{"forward all-gather of x over model: 49152 in 3",
                              "backward all-gather of x over model: 49152 in 3",
                              "backward reduce-scatter of dx over model: 49152 in 3",
                              "backward all-reduce of dkernel over data: 67108864 in 2",
                              "backward all-reduce of dbias over data: 16384 in 2"}));
        const LayoutMemory m = layoutMemory(column, true);
        QCOMPARE(arrayBytes(m, "x", false), 16 * KiB);
        QCOMPARE(arrayBytes(m, "x", true), 64 * KiB);
        QCOMPARE(arrayBytes(m, "dx", false), 16 * KiB);

        // Row: the partial sums (4 x 16384, 256 KiB) reduce-scattered along the rows, the
        // output left sharded by default; dy all-gathered along the rows in the backward.
        const LayerConfig row = layer(ParallelMode::Row, ShardingLayout::Sequence, 4, 2);
        QVERIFY(row.validate().empty());
        QVERIFY(row.outputLayout() == OutputLayout::Sharded);
        QCOMPARE(programText(layoutCollectives(row, true)),
                 (QStringList{"forward reduce-scatter of output over model: 196608 in 3",
                              "backward all-gather of dy over model: 196608 in 3",
                              "backward all-reduce of dkernel over data: 67108864 in 2",
                              "backward all-reduce of dbias over data: 65536 in 2"}));
    }

    // The tensor layout is today's mesh: the output collective, then backwardCollectives; its
    // memory at rest is meshCosts' kernel, bias and x.
    void tensorIsTodaysMesh_data() { addGrid(); }
    void tensorIsTodaysMesh() {
        QFETCH(int, mode);
        QFETCH(int, output);
        QFETCH(int, tp);
        QFETCH(int, data);
        const LayerConfig c =
            layer(mode ? ParallelMode::Row : ParallelMode::Column, ShardingLayout::Tensor, tp, data,
                  output ? OutputLayout::Replicated : OutputLayout::Sharded);
        QVERIFY(c.validate().empty());
        const MeshCosts mesh = meshCosts(c);
        const auto program = layoutCollectives(c, true);
        const auto backward = backwardCollectives(c);
        const bool forwardStep = mesh.collective.kind != CollectiveKind::None;
        QCOMPARE(program.size(), backward.size() + (forwardStep ? 1 : 0));
        QCOMPARE(bytesSent(program, PassPhase::Forward), mesh.collective.bytesSentPerDevice);
        for (std::size_t i = 0; i < backward.size(); ++i) {
            const LayoutCollective& step = program[i + (forwardStep ? 1 : 0)];
            QCOMPARE(step.of, backward[i].of);
            QCOMPARE(int(step.cost.kind), int(backward[i].cost.kind));
            QCOMPARE(step.cost.bytesSentPerDevice, backward[i].cost.bytesSentPerDevice);
        }
        const DeviceHoldings& h = mesh.perDevice;
        QCOMPARE(layoutMemory(c, false).atRest, h.kernelBytes + h.biasBytes + h.xBytes);
    }

    // FSDP keeps 1/D of the parameters at rest and gathers them back: the forward sends
    // (D-1)/D of the kernel and bias blocks over "data", the backward the kernel again plus the
    // gradients' reduce-scatters, half of what tensor's all-reduces send. Sequence parallelism's
    // column x-gather and row reduce-scatter together send what tensor's row all-reduce sends.
    void layoutsAgainstTensor_data() { addGrid(); }
    void layoutsAgainstTensor() {
        QFETCH(int, mode);
        QFETCH(int, output);
        QFETCH(int, tp);
        QFETCH(int, data);
        const ParallelMode m = mode ? ParallelMode::Row : ParallelMode::Column;
        const auto out = output ? OutputLayout::Replicated : OutputLayout::Sharded;
        const LayerConfig tensor = layer(m, ShardingLayout::Tensor, tp, data, out);
        const LayerConfig fsdp = layer(m, ShardingLayout::Fsdp, tp, data, out);
        QVERIFY(fsdp.validate().empty());
        const DeviceHoldings& h = meshCosts(tensor).perDevice;
        const std::int64_t params = h.kernelBytes + h.biasBytes;
        QCOMPARE(layoutMemory(fsdp, true).atRest,
                 layoutMemory(tensor, true).atRest - params + params / data);
        const auto tensorProgram = layoutCollectives(tensor, true);
        const auto fsdpProgram = layoutCollectives(fsdp, true);
        QCOMPARE(bytesSent(fsdpProgram, PassPhase::Forward),
                 bytesSent(tensorProgram, PassPhase::Forward) + params * (data - 1) / data);
        const std::int64_t dataAllReduce = 2 * params * (data - 1) / data;
        QCOMPARE(bytesSent(fsdpProgram, PassPhase::Backward),
                 bytesSent(tensorProgram, PassPhase::Backward) - dataAllReduce / 2 +
                     h.kernelBytes * (data - 1) / data);
        QVERIFY(layoutMemory(fsdp, true).peak >= layoutMemory(fsdp, true).atRest);

        // in_dim = features, so that one layer's x is the other's output.
        auto square = [&](ParallelMode mode, ShardingLayout layout, std::optional<OutputLayout> o) {
            LayerConfig c = layer(mode, layout, tp, data, o);
            c.features = c.inDim;
            return c;
        };
        if (output == 0 && 8 % (tp * data) == 0) {
            const auto reduce =
                square(ParallelMode::Row, ShardingLayout::Tensor, OutputLayout::Replicated);
            const auto gather = square(ParallelMode::Column, ShardingLayout::Sequence, {});
            const auto scatter = square(ParallelMode::Row, ShardingLayout::Sequence, {});
            QVERIFY(gather.validate().empty() && scatter.validate().empty());
            QCOMPARE(bytesSent(layoutCollectives(gather, false), PassPhase::Forward) +
                         bytesSent(layoutCollectives(scatter, false), PassPhase::Forward),
                     bytesSent(layoutCollectives(reduce, false), PassPhase::Forward));
            const auto column = square(ParallelMode::Column, ShardingLayout::Tensor, {});
            QVERIFY(layoutMemory(gather, false).atRest <= layoutMemory(column, false).atRest);
        }
    }

    // The estimates on a preset: the tensor layout's are today's (estimateTime and
    // estimateBackwardTime); fsdp's forward is tensor's plus its gathers over "data"; every
    // layout computes the same products, so the passes differ by their collectives' times alone.
    void estimates_data() { addGrid(); }
    void estimates() {
        QFETCH(int, mode);
        QFETCH(int, output);
        QFETCH(int, tp);
        QFETCH(int, data);
        const ParallelMode m = mode ? ParallelMode::Row : ParallelMode::Column;
        const auto out = output ? OutputLayout::Replicated : OutputLayout::Sharded;
        const HardwarePreset& hw = *findHardware("h100-nvlink");
        const LayerConfig tensor = layer(m, ShardingLayout::Tensor, tp, data, out);
        const TimeEstimate forward = layoutEstimate(tensor, PassPhase::Forward, hw);
        const TimeEstimate backward = layoutEstimate(tensor, PassPhase::Backward, hw);
        QCOMPARE(forward.totalSeconds, estimateTime(meshCosts(tensor), hw).totalSeconds);
        QCOMPARE(backward.totalSeconds, estimateBackwardTime(tensor, hw).totalSeconds);

        const LayerConfig fsdp = layer(m, ShardingLayout::Fsdp, tp, data, out);
        double gathers = 0;
        for (const LayoutCollective& step : layoutCollectives(fsdp, false))
            if (step.axis == MeshAxis::Data)
                gathers += collectiveTime(step.cost, hw).seconds();
        QCOMPARE(layoutEstimate(fsdp, PassPhase::Forward, hw).computeSeconds,
                 forward.computeSeconds);
        const double fsdpForward = layoutEstimate(fsdp, PassPhase::Forward, hw).totalSeconds;
        QVERIFY(std::abs(fsdpForward - (forward.totalSeconds + gathers)) <= 1e-12 * fsdpForward);
        QCOMPARE(gathers > 0, data > 1);

        const auto summaries = compareLayouts(tensor, true, hw);
        QCOMPARE(summaries.size(), std::size_t(3));
        QVERIFY(summaries[0].refusal.empty() && summaries[1].refusal.empty());
        QCOMPARE(summaries[1].bytesAtRest, layoutMemory(fsdp, true).atRest);
        QCOMPARE(summaries[1].bytesPeak, layoutMemory(fsdp, true).peak);
        QCOMPARE(summaries[1].backwardSent,
                 bytesSent(layoutCollectives(fsdp, true), PassPhase::Backward));
        QCOMPARE(summaries[1].forward.totalSeconds, fsdpForward);
        QCOMPARE(summaries[0].backward.totalSeconds, backward.totalSeconds);
        // Sequence refuses a replicated output and a batch that D x tp does not divide.
        const bool sequenceFits = output == 0 && 8 % (tp * data) == 0;
        QCOMPARE(summaries[2].refusal.empty(), sequenceFits);
        if (!sequenceFits)
            QVERIFY(summaries[2].refusal.find("sequence") != std::string::npos ||
                    summaries[2].refusal.find("data x tp_size") != std::string::npos);
    }

    // The sweeps: every tp_size the tensor layout takes, or every D, with the three layouts at
    // each; FSDP's parameters at rest shrink as D grows, tensor's stay.
    void sweeps() {
        const HardwarePreset& hw = *findHardware("tpu-v4");
        const LayerConfig c = layer(ParallelMode::Column, ShardingLayout::Fsdp, 4, 2);
        const auto overTp = layoutSweep(c, MeshSize::Tp, true, hw);
        QCOMPARE(overTp.size(), std::size_t(15));  // the divisors of 16384
        QCOMPARE(overTp.front().value, std::int64_t(1));
        QCOMPARE(overTp.back().value, std::int64_t(16384));
        LayerConfig tp8 = c;
        tp8.tpSize = 8;
        const auto at8 = compareLayouts(tp8, true, hw);
        QCOMPARE(overTp[3].value, std::int64_t(8));
        for (std::size_t i = 0; i < 3; ++i) {
            QCOMPARE(overTp[3].layouts[i].bytesAtRest, at8[i].bytesAtRest);
            QCOMPARE(overTp[3].layouts[i].forward.totalSeconds, at8[i].forward.totalSeconds);
            QCOMPARE(overTp[3].layouts[i].refusal, at8[i].refusal);
        }
        // Sequence parallelism needs the 8 batch rows split over D x tp: tp 8 at D 2 is refused.
        QVERIFY(!at8[2].refusal.empty());

        const auto overD = layoutSweep(c, MeshSize::Data, false, hw);
        QCOMPARE(overD.size(), std::size_t(4));  // D = 1, 2, 4, 8
        for (std::size_t i = 1; i < overD.size(); ++i) {
            QVERIFY(overD[i].layouts[1].bytesAtRest < overD[i - 1].layouts[1].bytesAtRest);
            // Tensor keeps its kernel block (4096 x 4096) and bias block whole, x's rows split.
            const std::int64_t rows = 8 / overD[i].value;
            QCOMPARE(overD[i].layouts[0].bytesAtRest,
                     (4096 * 4096 + 4096 + rows * 4096) * std::int64_t(sizeof(float)));
        }
    }

    void refusals() {
        LayerConfig c = layer(ParallelMode::Column, ShardingLayout::Fsdp, 4, 2);
        c.inDim = 4095;
        c.features = 16384;
        QVERIFY(hasProblem(c, ConfigField::Layout,
                           "the fsdp layout splits each device's kernel "
                           "block (4095 rows) and bias block (4096 "
                           "values) over data D (2): D must divide both"));
        c = layer(ParallelMode::Row, ShardingLayout::Sequence, 4, 2);
        c.batch = 12;
        QVERIFY(hasProblem(c, ConfigField::Layout,
                           "batch N (12) is not divisible by data x tp_size (8)"));
        // Sizes a user can type whose product passes int64: refused in words, nothing overflows.
        c.dataSize = 99999999999;
        c.tpSize = 270621879;
        QVERIFY(hasProblem(c, ConfigField::Layout,
                           "batch N (12) is not divisible by data x tp_size (99999999999 x "
                           "270621879)"));
        c = layer(ParallelMode::Row, ShardingLayout::Sequence, 4, 2, OutputLayout::Replicated);
        QVERIFY(hasProblem(c, ConfigField::Output, "the sequence layout keeps the output sharded"));
        // The sequence layout's row output is cut along the rows: features need not split.
        c = layer(ParallelMode::Row, ShardingLayout::Sequence, 4, 2);
        c.features = 6;
        QVERIFY(c.validate().empty());
        c.layout = ShardingLayout::Tensor;
        c.output = OutputLayout::Sharded;
        QVERIFY(!c.validate().empty());
        c = test::mlpConfig(2, 8, 32, 8, 4);
        c.layout = ShardingLayout::Fsdp;
        QVERIFY(hasProblem(c, ConfigField::Layout, "the MLP block runs the tensor layout"));
        QVERIFY(parseShardingLayout("sequence") == ShardingLayout::Sequence);
        QVERIFY(!parseShardingLayout("zero3"));
    }
};

QTEST_APPLESS_MAIN(TestLayoutCosts)
#include "tst_layout_costs.moc"
