// The fsdp and sequence layouts' collectives run on the devices' buffers (devices/layout_rings.h):
// every gather bit for bit, every reduce-scatter within its rounding bound, on meshes of both
// modes, D 1 and 2; a wrong partial or gradient caught; the tensor layout's own collectives left
// to their runs; and a run that does not fit the memory budget said so.

#include "devices/layout_rings.h"
#include "nnx/nnx_init.h"

#include "config_fixtures.h"

#include <QTest>

using namespace tp;

Q_DECLARE_METATYPE(tp::LayerConfig)

namespace {

struct Layer {
    LayerParams params;
    ForwardResult forward;
    Matrix dy;
    BackwardResult backward;
};

Layer layerOf(const LayerConfig& c) {
    Layer l{initLayer(c), {}, Matrix(), {}};
    const ShardingPlan plan = ShardingPlan::make(c);
    l.forward = forwardParallel(l.params.x, l.params.kernel, l.params.bias, plan);
    l.dy = Matrix::Random(c.batch, c.features);
    l.backward = backwardParallel(l.params.x, l.params.kernel, l.dy, plan, c.dataSize);
    return l;
}

// With a bias that is not zero, so that a bias added twice or never shows.
LayerConfig withLayout(LayerConfig c, ShardingLayout layout) {
    c.layout = layout;
    c.bias = {BiasInit::Kind::Normal, 0.5f};
    return c;
}

// The collectives the tensor layout runs too: fsdp's output, dy and dx; sequence's data-axis
// all-reduces.
bool tensorRuns(ShardingLayout layout, const LayoutCollective& step) {
    if (layout == ShardingLayout::Fsdp)
        return step.of == "output" || step.of == "dy" || step.of == "dx";
    return step.axis == MeshAxis::Data;
}

}  // namespace

class TestLayoutRings : public QObject {
    Q_OBJECT

private slots:
    void everyRunPasses_data() {
        QTest::addColumn<LayerConfig>("config");
        const auto col = ParallelMode::Column;
        const auto row = ParallelMode::Row;
        const auto sh = OutputLayout::Sharded;
        const auto rep = OutputLayout::Replicated;
        const auto fsdp = ShardingLayout::Fsdp;
        const auto seq = ShardingLayout::Sequence;
        QTest::newRow("fsdp column tp2 D2")
            << withLayout(test::meshConfig(col, 6, 10, 12, 2, 2, sh), fsdp);
        QTest::newRow("fsdp row replicated tp2 D2")
            << withLayout(test::meshConfig(row, 6, 8, 6, 2, 2, rep), fsdp);
        QTest::newRow("fsdp row sharded tp2 D2")
            << withLayout(test::meshConfig(row, 4, 8, 6, 2, 2, sh), fsdp);
        QTest::newRow("sequence column tp3 D2")
            << withLayout(test::meshConfig(col, 12, 7, 9, 3, 2, sh), seq);
        QTest::newRow("sequence row tp4 D1")
            << withLayout(test::meshConfig(row, 8, 12, 10, 4, 1, sh), seq);
        QTest::newRow("sequence row tp2 D2, uneven features")
            << withLayout(test::meshConfig(row, 8, 6, 5, 2, 2, sh), seq);
    }

    void everyRunPasses() {
        QFETCH(LayerConfig, config);
        QVERIFY(config.validate().empty());
        const Layer l = layerOf(config);
        for (const bool backward : {false, true}) {
            const LayoutBackwardInputs inputs =
                backward ? LayoutBackwardInputs{&l.backward, &l.dy} : LayoutBackwardInputs{};
            const auto program = layoutCollectives(config, backward);
            const auto runs = runLayoutRings(config, l.params, l.forward, inputs, 0);
            QCOMPARE(runs.size(), program.size());
            for (std::size_t i = 0; i < runs.size(); ++i) {
                const LayoutCollective& step = program[i];
                const RingRun& run = runs[i];
                const QByteArray what = QByteArray::fromStdString(
                    std::string(toString(step.cost.kind)) + " of " + step.of);
                QCOMPARE(int(run.kind), int(step.cost.kind));
                if (tensorRuns(config.layout, step)) {
                    QVERIFY2(!run.simulated, what);
                    QVERIFY2(run.note.find("tensor layout") != std::string::npos, what);
                    continue;
                }
                QVERIFY2(run.simulated, what);
                QVERIFY2(run.check.passed(), what);
                QCOMPARE(std::int64_t(run.steps.size()), step.cost.ringSteps);
                if (step.cost.kind == CollectiveKind::AllGather) {
                    QVERIFY2(run.check.exactRequired, what);
                    QCOMPARE(run.check.bitIdentical, run.check.elements);
                } else {
                    QVERIFY2(!run.check.exactRequired, what);
                    QVERIFY2(run.check.verification.inDim > 0, what);
                }
            }
        }
    }

    // A partial sum off by one in one element is beyond any rounding bound: the sequence layout's
    // reduce-scatter fails, the run that adds it in. So does fsdp's reduce-scatter of a dkernel
    // off in one element.
    void aWrongPartialFails() {
        const LayerConfig c =
            withLayout(test::meshConfig(ParallelMode::Row, 8, 12, 10, 4, 2, OutputLayout::Sharded),
                       ShardingLayout::Sequence);
        Layer l = layerOf(c);
        std::vector<Matrix> partials = std::move(l.forward.partials).take();
        partials[2](5, 3) += 1.0f;
        l.forward.partials = std::move(partials);
        const auto runs = runLayoutRings(c, l.params, l.forward, {}, 0);
        QCOMPARE(runs.size(), std::size_t(1));
        QVERIFY(runs[0].simulated);
        QVERIFY(runs[0].check.verdict == Verdict::Failed);

        const LayerConfig f = withLayout(
            test::meshConfig(ParallelMode::Column, 6, 10, 12, 2, 2, OutputLayout::Sharded),
            ShardingLayout::Fsdp);
        Layer g = layerOf(f);
        g.backward.gradients.dkernel(3, 1) += 1.0f;  // what the run must give, now wrong
        const auto program = layoutCollectives(f, true);
        const auto fsdpRuns = runLayoutRings(f, g.params, g.forward, {&g.backward, &g.dy}, 0);
        bool failed = false;
        for (std::size_t i = 0; i < program.size(); ++i)
            if (program[i].of == "dkernel")
                failed = fsdpRuns[i].check.verdict == Verdict::Failed;
        QVERIFY(failed);
    }

    void aRunBeyondTheBudgetSaysSo() {
        const LayerConfig c = withLayout(
            test::meshConfig(ParallelMode::Column, 6, 10, 12, 2, 2, OutputLayout::Sharded),
            ShardingLayout::Fsdp);
        QVERIFY(c.validate().empty());
        const Layer l = layerOf(c);
        const auto runs = runLayoutRings(c, l.params, l.forward, {}, c.memoryBudgetBytes - 64);
        QVERIFY(!runs.empty());
        QVERIFY(!runs[0].simulated);
        QVERIFY2(runs[0].note.find("not simulated: the devices' buffers") == 0,
                 runs[0].note.c_str());
    }
};

QTEST_APPLESS_MAIN(TestLayoutRings)
#include "tst_layout_rings.moc"
