// The two timelines of a scene, the loop (Layer tab) and the mesh program (Devices tab): the
// steps of each, what each changes, the equation line and the caption.

#include "scene/scene.h"
#include "scene/scene_request.h"
#include "scene/timeline.h"

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

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

// How many times each bias column is added over the whole timeline.
std::vector<int> biasAdditions(const Timeline& timeline, Index features) {
    std::vector<int> times(std::size_t(features), 0);
    for (const TimelineStep& s : timeline.steps)
        for (const IndexRange& r : s.biasAdded)
            for (Index col = r.start; col < r.stop; ++col)
                ++times[std::size_t(col)];
    return times;
}

int stepsAddingBias(const Timeline& timeline) {
    return int(std::count_if(timeline.steps.begin(), timeline.steps.end(),
                             [](const TimelineStep& s) { return !s.biasAdded.empty(); }));
}

// Steps whose words say the bias is added once.
int stepsNamingBiasOnce(const Timeline& timeline) {
    return int(
        std::count_if(timeline.steps.begin(), timeline.steps.end(), [](const TimelineStep& s) {
            return q(s.caption).contains("bias once") ||
                   q(s.equation).contains("bias added once") || q(s.equation).contains("] once");
        }));
}

// A config of every kind the tests walk: mode, output layout (-1: the mode's default), data axis.
LayerConfig meshConfig(int mode, int layout, std::int64_t data, std::int64_t tp) {
    LayerConfig c = config(modeOf(mode), 8, 12, tp);
    c.batch = 4;
    c.dataSize = data;
    if (layout >= 0)
        c.output = layout == 0 ? OutputLayout::Sharded : OutputLayout::Replicated;
    return c;
}

void addMeshRows() {
    QTest::addColumn<int>("mode");    // 0 column, 1 row
    QTest::addColumn<int>("layout");  // 0 sharded, 1 replicated
    QTest::addColumn<int>("data");
    QTest::addColumn<int>("tp");
    for (int mode : {0, 1})
        for (int layout : {0, 1})
            for (int data : {1, 2})
                for (int tp : {1, 2, 4})
                    QTest::addRow("%s %s D%d tp%d", mode == 0 ? "column" : "row",
                                  layout == 0 ? "sharded" : "replicated", data, tp)
                        << mode << layout << data << tp;
}

}  // namespace

class TestTimeline : public QObject {
    Q_OBJECT

private slots:
    void loopEquation_data() {
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
               "2, the bias added to their total";
    }
    void loopEquation() {
        QFETCH(int, mode);
        QFETCH(int, tp);
        QFETCH(int, step);
        QFETCH(QString, expected);
        QCOMPARE(q(loopTimeline(config(modeOf(mode), 8, 12, tp)).at(step).equation), expected);
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

    // The loop is the brief's simulation and nothing else: no ring step, whatever the layout.
    void loopCaption_data() {
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
            << 1 << 0 << "Step 0 of 5: start; 4 groups of 2 kernel rows each";
        QTest::newRow("row group 3")
            << 1 << 4 << "Step 4 of 5: group 3 adds the partial sum of kernel rows 6:8";
        QTest::newRow("row bias") << 1 << 5
                                  << "Step 5 of 5: add the bias once to the summed partials";
        QTest::newRow("row past end clamps")
            << 1 << 12 << "Step 5 of 5: add the bias once to the summed partials";
    }
    void loopCaption() {
        QFETCH(int, mode);
        QFETCH(int, step);
        QFETCH(QString, expected);
        // Column: features 12 in 3 groups of 4. Row: in_dim 8 in 4 groups of 2, the all-reduce
        // of its replicated output on the devices only.
        const LayerConfig c = mode == 0 ? config(ParallelMode::Column, 8, 12, 3)
                                        : config(ParallelMode::Row, 8, 12, 4);
        QCOMPARE(q(loopTimeline(c).at(step).caption), expected);
    }

    // One of a thing is said in the singular: "1 group", "1 output column", "1 kernel row".
    void countsOfOneAreSingular() {
        QCOMPARE(q(loopTimeline(config(ParallelMode::Column, 8, 12, 1)).at(0).caption),
                 QString("Step 0 of 1: start; 1 group of 12 output columns each"));
        QCOMPARE(q(loopTimeline(config(ParallelMode::Column, 8, 12, 12)).at(0).caption),
                 QString("Step 0 of 12: start; 12 groups of 1 output column each"));
        QCOMPARE(q(loopTimeline(config(ParallelMode::Row, 8, 12, 8)).at(0).caption),
                 QString("Step 0 of 9: start; 8 groups of 1 kernel row each"));
        QVERIFY(q(loopTimeline(config(ParallelMode::Column, 8, 12, 12)).at(0).equation)
                    .endsWith(", as 12 groups of 1 output column"));
        QVERIFY(q(loopTimeline(config(ParallelMode::Row, 8, 12, 1)).at(0).equation)
                    .contains(", as 1 partial sum over row groups of 8,"));
    }

    // The caption names the same columns as the equation line of the same step.
    void captionAndEquationAgree() {
        const Timeline loop = loopTimeline(config(ParallelMode::Column, 6, 20, 5));
        for (int step = 1; step <= 5; ++step) {
            const QString cols = q(loop.at(step).caption).section(' ', -1);
            QVERIFY2(q(loop.at(step).equation).startsWith("y[:, " + cols + "]"),
                     qPrintable(q(loop.at(step).equation)));
        }
    }

    void loopStates_data() {
        QTest::addColumn<int>("mode");
        QTest::addColumn<int>("step");
        QTest::addColumn<int>("phase");
        QTest::addColumn<int>("done");
        QTest::addColumn<int>("current");
        QTest::addColumn<bool>("biasIn");
        QTest::addColumn<bool>("complete");
        const int start = int(StepPhase::Start), group = int(StepPhase::GroupComputes),
                  bias = int(StepPhase::AddBias);
        QTest::newRow("column start") << 0 << 0 << start << 0 << -1 << false << false;
        QTest::newRow("column group 0") << 0 << 1 << group << 1 << 0 << false << false;
        QTest::newRow("column last") << 0 << 3 << group << 3 << 2 << true << true;
        QTest::newRow("column past end clamps") << 0 << 9 << group << 3 << 2 << true << true;
        QTest::newRow("column before start clamps")
            << 0 << -4 << start << 0 << -1 << false << false;
        QTest::newRow("row group 2") << 1 << 3 << group << 3 << 2 << false << false;
        QTest::newRow("row bias") << 1 << 4 << bias << 3 << -1 << true << true;
        QTest::newRow("row past end clamps") << 1 << 6 << bias << 3 << -1 << true << true;
    }
    void loopStates() {
        QFETCH(int, mode);
        QFETCH(int, step);
        const LayerConfig c = config(modeOf(mode), 6, 6, 3);
        const Timeline loop = loopTimeline(c);
        // Row mode's default output is replicated: its all-reduce is the devices' story.
        QCOMPARE(loop.size(), mode == 0 ? 4 : 5);
        const TimelineStep& s = loop.at(step);
        QTEST(int(s.phase), "phase");
        QTEST(s.groupsDone, "done");
        QTEST(s.currentGroup, "current");
        QTEST(s.biasIn, "biasIn");
        QTEST(s.complete, "complete");
        QCOMPARE(s.ringStep, -1);
        QCOMPARE(s.step, std::clamp(step, 0, loop.lastStep()));
    }

    // Every timeline of a correct split adds each bias column exactly once; besides the column
    // loop (each group its slice), at exactly one step, and that step alone says "once".
    void biasAddedOnceInEveryTimeline_data() { addMeshRows(); }
    void biasAddedOnceInEveryTimeline() {
        QFETCH(int, mode);
        QFETCH(int, layout);
        QFETCH(int, data);
        QFETCH(int, tp);
        const LayerConfig c = meshConfig(mode, layout, data, tp);
        QVERIFY(c.validate().empty());
        for (const Timeline& t : {loopTimeline(c), meshProgram(c)}) {
            QCOMPARE(biasAdditions(t, c.features), std::vector<int>(std::size_t(c.features), 1));
            QVERIFY(t.at(t.lastStep()).biasIn);
            QVERIFY(t.at(t.lastStep()).complete);
        }
        const Timeline program = meshProgram(c);
        QCOMPARE(stepsAddingBias(program), 1);
        QCOMPARE(stepsNamingBiasOnce(program), mode == 0 ? 0 : 1);
        if (mode == 1) {
            QCOMPARE(stepsAddingBias(loopTimeline(c)), 1);
            QCOMPARE(stepsNamingBiasOnce(loopTimeline(c)), 1);
        } else {
            QCOMPARE(stepsAddingBias(loopTimeline(c)), tp);
        }
    }

    // The mesh program: the start, every device at once, then the collective's steps, one for
    // one the simulated ring's, with the same chunks.
    void meshProgramIsTheDevicesRun_data() { addMeshRows(); }
    void meshProgramIsTheDevicesRun() {
        QFETCH(int, mode);
        QFETCH(int, layout);
        QFETCH(int, data);
        QFETCH(int, tp);
        const LayerConfig c = meshConfig(mode, layout, data, tp);
        QVERIFY(c.validate().empty());
        const Timeline program = meshProgram(c);
        const Scene scene = *computeScene({c, SceneSource::Nnx});
        const RingRun ring = computeSceneCosts(scene, defaultHardware()).ring;
        QCOMPARE(int(ring.steps.size()), collectiveStepCount(c));
        const bool closing = mode == 1 && collectiveStepCount(c) == 0;  // row mode, tp 1
        QCOMPARE(program.size(), 2 + collectiveStepCount(c) + (closing ? 1 : 0));
        QCOMPARE(program.at(0).phase, StepPhase::Start);
        QCOMPARE(program.at(0).groupsDone, 0);
        const TimelineStep& all = program.at(1);
        QCOMPARE(all.phase, StepPhase::AllCompute);
        QCOMPARE(all.groupsDone, tp);
        QCOMPARE(all.currentGroup, -1);
        const QString devices = QString::number(data * tp);
        QVERIFY2(data * tp == 1 ? q(all.caption).contains("the one device computes its")
                                : q(all.caption).contains("all " + devices + " devices compute") &&
                                      q(all.caption).endsWith("at the same time"),
                 qPrintable(q(all.caption)));
        for (const TimelineStep& s : program.steps)
            QVERIFY2(s.phase != StepPhase::GroupComputes && !q(s.caption).contains("group"),
                     qPrintable(q(s.caption)));
        if (closing)
            QCOMPARE(program.at(2).phase, StepPhase::AddBias);
        for (int k = 0; k < collectiveStepCount(c); ++k) {
            const TimelineStep& s = program.at(2 + k);
            QCOMPARE(s.ringStep, k);
            QCOMPARE(s.ring.phase, ring.steps[std::size_t(k)].phase);
            QCOMPARE(s.phase,
                     s.ring.phase == RingPhase::AddBias ? StepPhase::AddBias : StepPhase::RingStep);
            QCOMPARE(s.complete, k + 1 == collectiveStepCount(c));
            for (const ChunkTransfer& t : ring.steps[std::size_t(k)].transfers)
                QCOMPARE(t.chunk, ringChunkSent(s.ring.phase, s.ring.indexInPhase, t.from, tp));
            QVERIFY(
                q(s.caption).contains(s.ring.phase == RingPhase::AddBias ? "bias" : "ring step"));
        }
    }

    void meshCaptions() {
        LayerConfig c = meshConfig(0, 1, 2, 4);  // column, replicated, 2 x 4 devices
        const Timeline column = meshProgram(c);
        QCOMPARE(column.size(), 2 + 3);
        QCOMPARE(q(column.at(1).caption),
                 "Step 1 of 4: all 8 devices compute their output blocks at the same time");
        QCOMPARE(q(column.at(1).equation),
                 "y[rows d, cols m] = x[rows d, :] @ kernel[:, cols m] + bias[cols m]   (2x8 @ "
                 "8x3 + 3 on every device (d, m) at once)");
        QCOMPARE(q(column.at(3).caption),
                 "Step 3 of 4: all-gather ring step 2 of 3 over 4 devices per data row");
        QCOMPARE(q(column.at(3).equation),
                 "all-gather 2/3: device m sends chunk (m - 1) mod 4 to device (m + 1) mod 4");
        c = meshConfig(1, -1, 1, 4);  // row, replicated: the all-reduce
        const Timeline row = meshProgram(c);
        QCOMPARE(row.size(), 2 + 3 + 1 + 3);
        QCOMPARE(q(row.at(1).caption),
                 "Step 1 of 8: all 4 devices compute their partial sums at the same time");
        QCOMPARE(q(row.at(5).caption),
                 "Step 5 of 8: each device adds the bias once to the chunk it reduced");
        QCOMPARE(q(row.at(5).equation), "device m adds bias[chunk m] once to its reduced chunk m");
    }

    // A mistake's timelines: the loop states the wrong computation; the mesh program has no
    // collective (it belongs to the correct split).
    void aMistakeHasNoCollectiveSteps() {
        const LayerConfig row = config(ParallelMode::Row, 6, 6, 3);
        QCOMPARE(loopTimeline(row, Mistake::ConcatPartials).size(), loopTimeline(row).size());
        const Timeline wrong = loopTimeline(row, Mistake::BiasPerPartial);
        QCOMPARE(wrong.size(), 5);
        QCOMPARE(wrong.at(99).step, 4);
        QCOMPARE(q(wrong.at(4).caption),
                 "Step 4 of 4: no bias added here: it is already in each of the 3 partial sums");
        QCOMPARE(q(wrong.at(4).equation),
                 "y = sum   (2x6, the bias already in each of the 3 partial sums)");
        QCOMPARE(q(wrong.at(2).equation),
                 "sum += x[:, 2:4] @ kernel[2:4, :] + bias   (2x2 @ 2x6 + 6)");
        // The mistake's bias, in every partial sum: each column added tp times, none at the end.
        QCOMPARE(biasAdditions(wrong, 6), std::vector<int>(6, 3));
        QVERIFY(wrong.at(4).biasAdded.empty());
        QCOMPARE(biasAdditions(loopTimeline(row, Mistake::ConcatPartials), 6),
                 std::vector<int>(6, 0));
        QCOMPARE(meshProgram(row, Mistake::BiasPerPartial).size(), 3);
        QCOMPARE(meshProgram(row).size(), 2 + 2 + 1 + 2);
        LayerConfig column = config(ParallelMode::Column, 6, 6, 3);
        column.output = OutputLayout::Replicated;  // an all-gather follows the correct split
        QCOMPARE(meshProgram(column).size(), 2 + 2);
        QCOMPARE(meshProgram(column, Mistake::SumGroups).size(), 2);
        QCOMPARE(loopTimeline(column, Mistake::SumGroups).size(), 4);
        QCOMPARE(q(loopTimeline(column, Mistake::SumGroups).at(2).equation),
                 "y += x @ kernel[:, 2:4] + bias[2:4]   (2x6 @ 6x2 + 2)");
    }

    // tp 1: one group, one device per data row; nothing to gather or reduce.
    void oneGroup() {
        const Timeline column = loopTimeline(config(ParallelMode::Column, 8, 12, 1));
        QCOMPARE(column.size(), 2);
        QCOMPARE(q(column.at(1).caption), "Step 1 of 1: group 0 computes output columns 0:12");
        const LayerConfig row = config(ParallelMode::Row, 8, 12, 1);
        QCOMPARE(loopTimeline(row).size(), 3);
        const Timeline program = meshProgram(row);
        QCOMPARE(program.size(), 3);
        QCOMPARE(q(program.at(2).caption), "Step 2 of 2: add the bias once to the summed partials");
        QCOMPARE(q(program.at(1).caption), "Step 1 of 2: the one device computes its partial sum");
    }
};

QTEST_APPLESS_MAIN(TestTimeline)
#include "tst_timeline.moc"
