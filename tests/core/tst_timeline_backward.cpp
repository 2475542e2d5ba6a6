// The Layer tab's loop going on past the forward when the backward pass is asked for: dy arrives,
// one step per group's gradients, then column mode's sum of the dx partials or row mode's dbias,
// once; the state each step leaves and its words.

#include "scene/scene_backward.h"
#include "scene/scene_request.h"
#include "scene/timeline.h"

#include <QTest>

using namespace tp;

namespace {

LayerConfig config(ParallelMode mode, std::int64_t tp) {
    return LayerConfig{.batch = 2, .inDim = 8, .features = 12, .tpSize = tp, .mode = mode};
}

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

}  // namespace

class TestTimelineBackward : public QObject {
    Q_OBJECT

private slots:
    // Without the backward the loop is the forward's; with it, tpSize + 2 steps more, in order.
    void theBackwardsStepsFollowTheForwards_data() {
        QTest::addColumn<int>("mode");
        QTest::addColumn<int>("tp");
        for (const int tp : {1, 2, 4})
            for (const int mode : {0, 1})
                QTest::addRow("%s tp%d", mode == 0 ? "column" : "row", tp) << mode << tp;
    }
    void theBackwardsStepsFollowTheForwards() {
        QFETCH(int, mode);
        QFETCH(int, tp);
        const LayerConfig c = config(mode == 0 ? ParallelMode::Column : ParallelMode::Row, tp);
        const bool column = mode == 0;
        const Timeline forward = loopTimeline(c);
        const Timeline loop = loopTimeline(c, Mistake::None, true);
        QCOMPARE(loop.size(), forward.size() + tp + 2);
        for (int k = 0; k < forward.size(); ++k) {
            QCOMPARE(q(loop.at(k).equation), q(forward.at(k).equation));
            QVERIFY(!loop.at(k).backward);
        }
        const int first = forward.size();  // dy arrives
        QVERIFY(loop.at(first).phase == StepPhase::DyArrives);
        for (int k = first; k < loop.size(); ++k) {
            const TimelineStep& s = loop.at(k);
            QVERIFY(s.backward);
            QVERIFY(s.complete && s.biasIn);  // the forward stays done
            QVERIFY(s.biasAdded.empty());
            QCOMPARE(s.groupsDone, tp);
            QVERIFY(q(s.caption).startsWith(
                QStringLiteral("Step %1 of %2: ").arg(k).arg(loop.lastStep())));
        }
        QCOMPARE(loop.at(first).gradientGroupsDone, 0);
        for (int g = 0; g < tp; ++g) {
            const TimelineStep& s = loop.at(first + 1 + g);
            QVERIFY(s.phase == StepPhase::GroupGradients);
            QCOMPARE(s.currentGroup, g);
            QCOMPARE(s.gradientGroupsDone, g + 1);
            const bool last = g + 1 == tp;
            QCOMPARE(s.dbiasIn, column && last);  // column: each group its dbias block
            QCOMPARE(s.dxIn, !column && last);    // row: each group its own dx slice
        }
        const TimelineStep& closing = loop.at(loop.lastStep());
        QVERIFY(closing.phase == (column ? StepPhase::SumDx : StepPhase::DbiasOnce));
        QCOMPARE(closing.currentGroup, -1);
        QVERIFY(closing.dxIn && closing.dbiasIn);
        QCOMPARE(closing.gradientGroupsDone, tp);
        // Before its step, each whole gradient is not yet in.
        QVERIFY(column ? !loop.at(loop.lastStep() - 1).dxIn
                       : !loop.at(loop.lastStep() - 1).dbiasIn);
    }

    // Each group's step in the brief's words with shapes, for 2x8 @ 8x12 at tp 3.
    void aGroupsGradientsReadAsTheCoreComputesThem_data() {
        QTest::addColumn<int>("mode");
        QTest::addColumn<int>("group");
        QTest::addColumn<QString>("equation");
        QTest::addColumn<QString>("caption");
        QTest::newRow("column group 1")
            << 0 << 1
            << "dkernel[:, 4:8] = x^T @ dy[:, 4:8];  dx_1 = dy[:, 4:8] @ kernel[:, 4:8]^T   "
               "(8x2 @ 2x4; 2x4 @ 4x8)"
            << "Step 6 of 8: group 1 computes dkernel[:, 4:8], dbias[4:8] and its partial dx_1, "
               "over its 4 features only";
        QTest::newRow("row group 2")
            << 1 << 2
            << "dkernel[4:6, :] = x[:, 4:6]^T @ dy;  dx[:, 4:6] = dy @ kernel[4:6, :]^T   "
               "(2x2 @ 2x12; 2x12 @ 12x2)"
            << "Step 9 of 11: group 2 computes dkernel[4:6, :] and its own slice dx[:, 4:6]: "
               "nothing to add";
    }
    void aGroupsGradientsReadAsTheCoreComputesThem() {
        QFETCH(int, mode);
        QFETCH(int, group);
        QFETCH(QString, equation);
        QFETCH(QString, caption);
        const ParallelMode m = mode == 0 ? ParallelMode::Column : ParallelMode::Row;
        // Row mode of in_dim 8 at tp 4 (2 rows a group); column mode at tp 3 (4 columns).
        const LayerConfig c = config(m, mode == 0 ? 3 : 4);
        const Timeline loop = loopTimeline(c, Mistake::None, true);
        const int step = loopTimeline(c).size() + 1 + group;
        QCOMPARE(q(loop.at(step).equation), equation);
        QCOMPARE(q(loop.at(step).caption), caption);
        QCOMPARE(q(backwardStepEquation(ShardingPlan::make(c), group, c.batch)), equation);
    }

    // The closing steps say what they add and why: column mode sums the partials, each covering
    // only its features' terms (the forward's rule reversed); row mode takes dbias once.
    void theClosingStepsSayWhy() {
        const Timeline column = loopTimeline(config(ParallelMode::Column, 3), Mistake::None, true);
        QCOMPARE(q(column.at(column.lastStep()).equation),
                 QStringLiteral("dx = dx_0 + dx_1 + dx_2   (2x8, summed over 3 groups: the "
                                "all-reduce over \"model\")"));
        QCOMPARE(q(column.at(column.lastStep()).caption),
                 QStringLiteral("Step 8 of 8: dx = the sum of the 3 partials: each group's partial "
                                "covers only its 4 of the 12 features' terms, so here the groups' "
                                "contributions are added"));
        const Timeline many = loopTimeline(config(ParallelMode::Column, 6), Mistake::None, true);
        QVERIFY(q(many.at(many.lastStep()).equation)
                    .startsWith(QStringLiteral("dx = dx_0 + dx_1 + ... + dx_5   (")));
        const Timeline one = loopTimeline(config(ParallelMode::Column, 1), Mistake::None, true);
        QVERIFY(q(one.at(one.lastStep()).caption).contains("the one group's partial"));
        const Timeline row = loopTimeline(config(ParallelMode::Row, 4), Mistake::None, true);
        QCOMPARE(q(row.at(row.lastStep()).equation),
                 QStringLiteral("dbias = dy.sum(0)   (12,) from 2x12, once)"));
        QVERIFY(q(row.at(row.lastStep()).caption).contains("dbias = dy.sum(0), once"));
        const TimelineStep& dy = row.at(loopTimeline(config(ParallelMode::Row, 4)).size());
        QVERIFY(q(dy.equation).startsWith("dy   (2x12, the cotangent of y)"));
    }

    // The groups the steps name are the groups whose blocks the core computes: at the step of
    // group g, the gradient blocks of groups 0..g are those of backwardParallel.
    void theStepsGroupsAreTheCoresBlocks() {
        for (const ParallelMode mode : {ParallelMode::Column, ParallelMode::Row}) {
            const LayerConfig c = config(mode, 4);
            SceneRun run;
            run.backward = true;
            const Scene scene = *computeScene({c, SceneSource::Nnx, run});
            const Timeline loop = loopTimeline(c, Mistake::None, true);
            const BackwardResult& r = scene.backward->result;
            for (const TimelineStep& s : loop.steps) {
                if (s.phase != StepPhase::GroupGradients)
                    continue;
                const ShardGroup& g = r.plan.groups[std::size_t(s.currentGroup)];
                const IndexRange named = mode == ParallelMode::Column ? g.kernelCols : g.kernelRows;
                QVERIFY(q(s.equation)
                            .contains(QStringLiteral("dkernel") +
                                      (mode == ParallelMode::Column ? QStringLiteral("[:, %1:%2]")
                                                                    : QStringLiteral("[%1:%2, :]"))
                                          .arg(named.start)
                                          .arg(named.stop)));
                QCOMPARE(r.dkernelBlock(g).rows(), mode == ParallelMode::Column ? c.inDim : 2);
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestTimelineBackward)
#include "tst_timeline_backward.moc"
