// The backward's collectives run on the devices' buffers: every one of backwardCollectives run in
// its order, the dy all-gather bit for bit, the all-reduces of dx over "model" and of dkernel and
// dbias over "data" within their rounding bounds, a wrong partial caught, each step's chunks, and
// the memory budget.

#include "devices/backward_ring.h"
#include "layer/backward.h"
#include "nnx/nnx_init.h"
#include "scene/scene_backward.h"
#include "scene/scene_request.h"

#include "config_fixtures.h"

#include <QTest>

using namespace tp;

Q_DECLARE_METATYPE(tp::LayerConfig)

namespace {

struct Backward {
    LayerParams params;
    Matrix dy;
    BackwardResult result;
};

Backward backwardOf(const LayerConfig& c) {
    Backward b{initLayer(c), Matrix(), {}};
    b.dy = Matrix::Random(c.batch, c.features);
    b.result =
        backwardParallel(b.params.x, b.params.kernel, b.dy, ShardingPlan::make(c), c.dataSize);
    return b;
}

}  // namespace

class TestBackwardRing : public QObject {
    Q_OBJECT

private slots:
    void everyCollectiveRunsAndPasses_data() {
        QTest::addColumn<LayerConfig>("config");
        const auto col = ParallelMode::Column;
        const auto row = ParallelMode::Row;
        const auto sh = OutputLayout::Sharded;
        const auto rep = OutputLayout::Replicated;
        QTest::newRow("column sharded tp4 D2") << test::meshConfig(col, 6, 10, 12, 4, 2, sh);
        QTest::newRow("column replicated tp3 D1") << test::meshConfig(col, 5, 7, 9, 3, 1, rep);
        QTest::newRow("row sharded tp4 D2") << test::meshConfig(row, 6, 12, 10, 4, 2, sh);
        QTest::newRow("row replicated tp2 D3") << test::meshConfig(row, 6, 8, 6, 2, 3, rep);
        QTest::newRow("column tp1 D4") << test::meshConfig(col, 8, 16, 6, 1, 4, sh);
    }

    void everyCollectiveRunsAndPasses() {
        QFETCH(LayerConfig, config);
        const Backward b = backwardOf(config);
        const std::vector<BackwardCollective> collectives = backwardCollectives(config);
        const std::vector<RingRun> runs =
            runBackwardRings(config, b.result, b.params.x, b.params.kernel, b.dy);
        QCOMPARE(runs.size(), collectives.size());
        QVERIFY(!runs.empty());
        for (std::size_t i = 0; i < runs.size(); ++i) {
            const RingRun& run = runs[i];
            const BackwardCollective& collective = collectives[i];
            QVERIFY2(run.simulated, run.note.c_str());
            QVERIFY2(run.check.passed(), collective.of.c_str());
            QVERIFY(run.kind == collective.cost.kind);
            QCOMPARE(std::int64_t(run.steps.size()), collective.cost.ringSteps);
            const bool overData = collective.axis == MeshAxis::Data;
            QCOMPARE(run.model, overData ? config.dataSize : config.tpSize);  // devices per ring
            QCOMPARE(run.data, overData ? config.tpSize : config.dataSize);   // rings side by side
            for (const RingStep& step : run.steps)
                QCOMPARE(std::int64_t(step.transfers.size()), run.model);
            if (collective.of == "dy")
                QCOMPARE(run.check.bitIdentical, run.check.elements);
        }
    }

    // Device (d, m) of the dx all-reduce ends with block d of dx; at reduce-scatter step s device
    // m sends chunk (m - s - 1) mod P, at all-gather step s chunk (m - s) mod P.
    void dxAllReduceEndsWithEachBlocksDx() {
        const LayerConfig c =
            test::meshConfig(ParallelMode::Column, 4, 9, 6, 3, 2, OutputLayout::Sharded);
        const Backward b = backwardOf(c);
        const RingRun run =
            runBackwardRings(c, b.result, b.params.x, b.params.kernel, b.dy).front();
        QCOMPARE(run.chunks.size(), std::size_t(3));
        for (std::int64_t d = 0; d < 2; ++d)
            for (std::int64_t m = 0; m < 3; ++m) {
                const Matrix mine = run.device(run.final, d, m);
                const Matrix block = b.result.gradients.dx.middleRows(d * 2, 2);
                QVERIFY((mine - block).cwiseAbs().maxCoeff() < 1e-5f);
                QCOMPARE(Matrix(run.device(run.initial, d, m)),
                         Matrix(b.result.dxPartials[std::size_t(m)].middleRows(d * 2, 2)));
            }
        QVERIFY(run.steps[0].phase == RingPhase::ReduceScatter);
        QCOMPARE(run.steps[1].transfers[0].chunk, 1);  // (0 - 1 - 1) mod 3
        QVERIFY(run.steps[2].phase == RingPhase::AllGather);
        QCOMPARE(run.steps[3].transfers[2].chunk, 1);  // (2 - 1) mod 3
    }

    // A device whose partial is wrong makes a wrong dx, and the run's check says so.
    void aWrongPartialFailsTheRun() {
        const LayerConfig c =
            test::meshConfig(ParallelMode::Column, 4, 8, 6, 2, 1, OutputLayout::Sharded);
        Backward b = backwardOf(c);
        std::vector<Matrix> partials = std::move(b.result.dxPartials).take();
        partials[1](0, 3) += 0.5f;
        b.result.dxPartials = std::move(partials);
        const RingRun run =
            runBackwardRings(c, b.result, b.params.x, b.params.kernel, b.dy).front();
        QVERIFY(run.simulated);
        QVERIFY(run.check.verdict == Verdict::Failed);
    }

    // Each block over "data" is summed from the D devices' own batch rows: a wrong dkernel of the
    // split pass is not what the ring gives.
    void aWrongDkernelFailsTheDataRun() {
        const LayerConfig c =
            test::meshConfig(ParallelMode::Row, 4, 8, 6, 2, 2, OutputLayout::Replicated);
        Backward b = backwardOf(c);
        b.result.gradients.dkernel(5, 2) += 0.25f;
        const std::vector<RingRun> runs =
            runBackwardRings(c, b.result, b.params.x, b.params.kernel, b.dy);
        QCOMPARE(runs.size(), std::size_t(2));  // dkernel, dbias
        QVERIFY(runs[0].check.verdict == Verdict::Failed);
        QVERIFY(runs[1].check.passed());
    }

    // (4, 8, 6) column tp 2, D 2, sharded: Nd = 2, P*N = 8 stacked rows.
    //   dx all-reduce: 3*8*8 + 8*6 + 6*8 = 288 floats;
    //   dkernel over data: 4 devices of (8, 3) blocks, 5 stacks = 480, the check's first factor
    //     4 * (3, 4) = 48, its second x (4, 8) = 32: 560 floats;
    //   dbias over data: 4 devices of (1, 3), 5 stacks = 60, 4 * (3, 4) = 48, ones (4, 1) = 4:
    //     112 floats. In all 960 floats, 3840 bytes.
    void ringBytesByHand() {
        const LayerConfig c =
            test::meshConfig(ParallelMode::Column, 4, 8, 6, 2, 2, OutputLayout::Sharded);
        QCOMPARE(backwardRingBytes(c), std::int64_t(3840));
    }

    // Runs that do not fit the budget are not made, and say why; a smaller run still fits.
    void theBudgetDecides() {
        LayerConfig c =
            test::meshConfig(ParallelMode::Column, 4, 8, 6, 2, 2, OutputLayout::Sharded);
        const Backward b = backwardOf(c);
        c.memoryBudgetBytes = bytesNeeded(c) + backwardBytesNeeded(c) + 288 * 4;  // dx's run only
        const std::vector<RingRun> runs =
            runBackwardRings(c, b.result, b.params.x, b.params.kernel, b.dy);
        QCOMPARE(runs.size(), std::size_t(3));
        QVERIFY(runs[0].simulated);
        QVERIFY(!runs[1].simulated);
        QVERIFY2(runs[1].note.starts_with("not simulated: the devices' buffers"),
                 runs[1].note.c_str());
        QVERIFY(!runs[2].simulated);
    }

    // The scene's backward carries the runs, and its verdict counts them.
    void theScenesBackwardCountsTheRuns() {
        const LayerConfig c =
            test::meshConfig(ParallelMode::Column, 4, 8, 6, 2, 2, OutputLayout::Sharded);
        Scene scene = *computeScene({c, SceneSource::Nnx});
        SceneBackward backward = computeBackward(scene);
        QCOMPARE(backward.rings.size(), backward.collectives.size());
        QVERIFY(backward.passed());
        backward.rings[0].check.verdict = Verdict::Failed;
        QVERIFY(!backward.passed());
        QVERIFY(backward.verification.passed());
    }
};

QTEST_APPLESS_MAIN(TestBackwardRing)
#include "tst_backward_ring.moc"
