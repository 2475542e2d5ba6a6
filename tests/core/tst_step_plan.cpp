// The steps of the walk, the equation line and the caption of each.

#include "scene.h"
#include "step_plan.h"

#include <QTest>

using namespace tp;

namespace {

LayerConfig config(ParallelMode mode, std::int64_t inDim, std::int64_t features, std::int64_t tp) {
    return LayerConfig{
        .batch = 2, .inDim = inDim, .features = features, .tpSize = tp, .mode = mode};
}

ParallelMode modeOf(int mode) {
    return mode == 0 ? ParallelMode::Column : ParallelMode::Row;
}

}  // namespace

class TestStepPlan : public QObject {
    Q_OBJECT

private slots:
    void equation_data() {
        QTest::addColumn<int>("mode");  // 0 column, 1 row
        QTest::addColumn<int>("tp");
        QTest::addColumn<int>("step");
        QTest::addColumn<QString>("expected");
        QTest::newRow("2x8x12 tp3 column group 1")
            << 0 << 3 << 2 << "y[:, 4:8] = x @ kernel[:, 4:8] + bias[4:8]   (2x8 @ 8x4 + 4)";
        QTest::newRow("2x8x12 tp3 column group 0")
            << 0 << 3 << 1 << "y[:, 0:4] = x @ kernel[:, 0:4] + bias[0:4]   (2x8 @ 8x4 + 4)";
        QTest::newRow("2x8x12 tp4 row group 0")
            << 1 << 4 << 1 << "sum = x[:, 0:2] @ kernel[0:2, :]   (2x2 @ 2x12)";
        QTest::newRow("2x8x12 tp4 row group 1")
            << 1 << 4 << 2 << "sum += x[:, 2:4] @ kernel[2:4, :]   (2x2 @ 2x12)";
        QTest::newRow("2x8x12 tp4 row bias")
            << 1 << 4 << 5 << "y = sum + bias   (2x12 + 12, bias added once)";
        QTest::newRow("2x8x12 tp3 column start")
            << 0 << 3 << 0
            << "y = x @ kernel + bias   (2x8 @ 8x12 + 12), as 3 groups of 4 output columns";
        QTest::newRow("2x8x12 tp4 row start")
            << 1 << 4 << 0
            << "y = x @ kernel + bias   (2x8 @ 8x12 + 12), as 4 partial sums over row groups of "
               "2, the bias added once";
    }
    void equation() {
        QFETCH(int, mode);
        QFETCH(int, tp);
        QFETCH(int, step);
        QFETCH(QString, expected);
        QCOMPARE(QString::fromStdString(equationText(config(modeOf(mode), 8, 12, tp), step)),
                 expected);
    }

    // The words of one group's step, straight from the plan.
    void stepEquations() {
        const auto column = ShardingPlan::make(ParallelMode::Column, 8, 12, 3);
        QCOMPARE(stepEquation(column, 1, 2),
                 std::string("y[:, 4:8] = x @ kernel[:, 4:8] + bias[4:8]   (2x8 @ 8x4 + 4)"));
        const auto row = ShardingPlan::make(ParallelMode::Row, 8, 12, 4);
        QCOMPARE(stepEquation(row, 0, 2),
                 std::string("sum = x[:, 0:2] @ kernel[0:2, :]   (2x2 @ 2x12)"));
        QCOMPARE(stepEquation(row, 1, 2),
                 std::string("sum += x[:, 2:4] @ kernel[2:4, :]   (2x2 @ 2x12)"));
        QCOMPARE(rowBiasEquation(row, 2),
                 std::string("y = sum + bias   (2x12 + 12, bias added once)"));
    }

    void caption_data() {
        QTest::addColumn<int>("mode");
        QTest::addColumn<int>("step");
        QTest::addColumn<QString>("expected");
        QTest::newRow("column start")
            << 0 << 0 << "Step 0 of 3: start; 3 groups of 4 output columns each";
        QTest::newRow("column group 1")
            << 0 << 2 << "Step 2 of 3: group 1 computes output columns 4:8";
        QTest::newRow("column last")
            << 0 << 3 << "Step 3 of 3: group 2 computes output columns 8:12";
        QTest::newRow("column past end clamps")
            << 0 << 7 << "Step 3 of 3: group 2 computes output columns 8:12";
        QTest::newRow("row start")
            << 1 << 0 << "Step 0 of 12: start; 4 groups of 2 kernel rows each";
        QTest::newRow("row group 3")
            << 1 << 4 << "Step 4 of 12: group 3 adds the partial sum of kernel rows 6:8";
        QTest::newRow("row bias") << 1 << 5
                                  << "Step 5 of 12: add the bias once to the summed partials";
        // Then the all-reduce of the replicated output: 3 + 3 ring steps, the bias between.
        QTest::newRow("row all-reduce") << 1 << 7
                                        << "Step 7 of 12: reduce-scatter ring step 2 of 3 over 4 "
                                           "devices per data row";
        QTest::newRow("row all-reduce bias")
            << 1 << 9 << "Step 9 of 12: each device adds the bias once to the chunk it reduced";
        QTest::newRow("row all-gather") << 1 << 12
                                        << "Step 12 of 12: all-gather ring step 3 of 3 over 4 "
                                           "devices per data row";
    }
    void caption() {
        QFETCH(int, mode);
        QFETCH(int, step);
        QFETCH(QString, expected);
        // Column: features 12 in 3 groups of 4. Row: in_dim 8 in 4 groups of 2.
        const LayerConfig c = mode == 0 ? config(ParallelMode::Column, 8, 12, 3)
                                        : config(ParallelMode::Row, 8, 12, 4);
        QCOMPARE(QString::fromStdString(stepCaption(c, step)), expected);
    }

    // The caption names the same columns as the equation line of the same step.
    void captionAndEquationAgree() {
        const LayerConfig c = config(ParallelMode::Column, 6, 20, 5);
        for (int step = 1; step <= 5; ++step) {
            const QString caption = QString::fromStdString(stepCaption(c, step));
            const QString equation = QString::fromStdString(equationText(c, step));
            const QString cols = caption.section(' ', -1);
            QVERIFY2(equation.startsWith("y[:, " + cols + "]"), qPrintable(equation));
        }
    }

    void states_data() {
        QTest::addColumn<int>("mode");
        QTest::addColumn<int>("step");
        QTest::addColumn<int>("done");
        QTest::addColumn<int>("current");
        QTest::addColumn<bool>("bias");
        QTest::addColumn<bool>("complete");
        QTest::newRow("column start") << 0 << 0 << 0 << -1 << false << false;
        QTest::newRow("column group 0") << 0 << 1 << 1 << 0 << false << false;
        QTest::newRow("column last") << 0 << 3 << 3 << 2 << false << true;
        QTest::newRow("column past end clamps") << 0 << 9 << 3 << 2 << false << true;
        QTest::newRow("column before start clamps") << 0 << -4 << 0 << -1 << false << false;
        QTest::newRow("row group 2") << 1 << 3 << 3 << 2 << false << false;
        QTest::newRow("row bias") << 1 << 4 << 3 << -1 << true << true;
        QTest::newRow("row all-reduce") << 1 << 6 << 3 << -1 << true << true;
    }
    // A mistake's walk ends with the groups and the wrong result they make: the collective that
    // follows belongs to the correct split, so it is not stepped through.
    void aMistakeHasNoCollectiveSteps() {
        const LayerConfig row = config(ParallelMode::Row, 6, 6, 3);
        QCOMPARE(stepCount(row, Mistake::ConcatPartials), computeStepCount(row));
        QCOMPARE(stepCount(row, Mistake::BiasPerPartial), 5);
        QCOMPARE(stepState(row, 99, Mistake::BiasPerPartial).step, 4);
        QCOMPARE(stepState(row, 99, Mistake::BiasPerPartial).ringStep, -1);
        QVERIFY(stepCaption(row, 4, Mistake::BiasPerPartial).starts_with("Step 4 of 4: "));
        LayerConfig column = config(ParallelMode::Column, 6, 6, 3);
        column.output = OutputLayout::Replicated;  // an all-gather follows the correct split
        QCOMPARE(stepCount(column), 4 + 2);
        QCOMPARE(stepCount(column, Mistake::SumGroups), 4);
    }

    void states() {
        QFETCH(int, mode);
        QFETCH(int, step);
        const LayerConfig c = config(modeOf(mode), 6, 6, 3);
        // Row mode's default output is replicated: the all-reduce's 2(P-1) ring steps and the
        // bias step between its halves follow the walk.
        QCOMPARE(stepCount(c), mode == 0 ? 4 : 5 + 2 * 2 + 1);
        const StepState s = stepState(c, step);
        QTEST(s.groupsDone, "done");
        QTEST(s.currentGroup, "current");
        QTEST(s.biasAdded, "bias");
        QTEST(s.complete, "complete");
    }

    // The walk's collective steps are the ring run's steps, one for one, with the same chunks.
    void ringStepsAreTheSimulatedRingsSteps_data() {
        QTest::addColumn<int>("mode");
        QTest::addColumn<int>("layout");
        QTest::addColumn<int>("tp");
        QTest::addColumn<int>("expected");
        QTest::newRow("column sharded tp3: none") << 0 << 0 << 3 << 0;
        QTest::newRow("column replicated tp3: all-gather") << 0 << 1 << 3 << 2;
        QTest::newRow("row sharded tp2: reduce-scatter + bias") << 1 << 0 << 2 << 2;
        QTest::newRow("row replicated tp3: all-reduce + bias") << 1 << 1 << 3 << 5;
        QTest::newRow("row replicated tp1: none") << 1 << 1 << 1 << 0;
    }
    void ringStepsAreTheSimulatedRingsSteps() {
        QFETCH(int, mode);
        QFETCH(int, layout);
        QFETCH(int, tp);
        LayerConfig c = config(modeOf(mode), 6, 6, tp);
        c.output = layout == 0 ? OutputLayout::Sharded : OutputLayout::Replicated;
        QVERIFY(c.validate().empty());
        QTEST(collectiveStepCount(c), "expected");
        const Scene scene = *computeScene(c, SceneSource::Nnx);
        const RingRun ring = computeSceneCosts(scene, defaultHardware()).ring;
        QCOMPARE(int(ring.steps.size()), collectiveStepCount(c));
        const int first = computeStepCount(c);
        for (int k = 0; k < collectiveStepCount(c); ++k) {
            const StepState state = stepState(c, first + k);
            QCOMPARE(state.ringStep, k);
            QVERIFY(state.complete);
            const RingStepInfo info = ringStepInfo(c, k);
            QCOMPARE(info.phase, ring.steps[std::size_t(k)].phase);
            for (const ChunkTransfer& t : ring.steps[std::size_t(k)].transfers)
                QCOMPARE(t.chunk, ringChunkSent(info.phase, info.indexInPhase, t.from, tp));
            QVERIFY(!equationText(c, first + k).empty());
            QVERIFY(QString::fromStdString(stepCaption(c, first + k))
                        .contains(info.phase == RingPhase::AddBias ? "bias" : "ring step"));
        }
        QCOMPARE(stepState(c, first - 1).ringStep, -1);
    }
};

QTEST_APPLESS_MAIN(TestStepPlan)
#include "tst_step_plan.moc"
