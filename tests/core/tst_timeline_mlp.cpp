// The MLP block's two timelines (mlp_timeline.h): the loop's steps and words, the mesh program's
// ring steps, the backward's, and the block's collectives run on the devices' buffers
// (block/mlp_rings.h) for every step the Devices tab draws.

#include "block/mlp_rings.h"
#include "scene/mlp_scene.h"
#include "scene/mlp_timeline.h"
#include "scene/scene_request.h"

#include <QTest>

using namespace tp;

namespace {

LayerConfig block(std::int64_t tp, std::int64_t hidden = 32) {
    LayerConfig c;
    c.block = Block::Mlp;
    c.batch = 2;
    c.inDim = 8;
    c.hidden = hidden;
    c.features = 8;
    c.tpSize = tp;
    return c;
}

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

int countPhase(const Timeline& t, StepPhase phase) {
    return int(std::count_if(t.steps.begin(), t.steps.end(),
                             [&](const TimelineStep& s) { return s.phase == phase; }));
}

}  // namespace

class TestTimelineMlp : public QObject {
    Q_OBJECT

private slots:
    // Start, linear1 + GeLU per device, linear2's partial per device, the sum with bias2 once.
    void theLoopGoesDeviceByDeviceThroughBothLayers_data() {
        QTest::addColumn<int>("tp");
        for (const int tp : {1, 2, 4, 8})
            QTest::addRow("tp%d", tp) << tp;
    }
    void theLoopGoesDeviceByDeviceThroughBothLayers() {
        QFETCH(int, tp);
        const LayerConfig c = block(tp);
        const Timeline loop = loopTimeline(c);  // a config of the block: the block's loop
        QCOMPARE(loop.size(), 2 * tp + 2);
        QVERIFY(loop.at(0).phase == StepPhase::Start);
        const Index chunk = c.hidden / tp;
        for (int g = 0; g < tp; ++g) {
            const TimelineStep& s = loop.at(1 + g);
            QVERIFY(s.phase == StepPhase::Linear1Gelu);
            QCOMPARE(s.currentGroup, g);
            QCOMPARE(s.mlp.hiddenDone, g + 1);
            QCOMPARE(s.mlp.linear2Done, 0);
            const QString slice = QStringLiteral("%1:%2").arg(g * chunk).arg((g + 1) * chunk);
            QVERIFY2(q(s.equation)
                         .startsWith(QStringLiteral("h[:, %1] = x @ kernel1[:, %1] + "
                                                    "bias1[%1];  a[:, %1] = gelu(h[:, %1])")
                                         .arg(slice)),
                     s.equation.c_str());
            QVERIFY(q(s.caption).contains(
                QStringLiteral("device %1 computes hidden features %2").arg(g).arg(slice)));
            QVERIFY(!s.complete);
        }
        for (int g = 0; g < tp; ++g) {
            const TimelineStep& s = loop.at(1 + tp + g);
            QVERIFY(s.phase == StepPhase::Linear2Computes);
            QCOMPARE(s.currentGroup, g);
            QCOMPARE(s.mlp.hiddenDone, tp);
            QCOMPARE(s.mlp.linear2Done, g + 1);
            QCOMPARE(s.groupsDone, g + 1);
            const QString slice = QStringLiteral("%1:%2").arg(g * chunk).arg((g + 1) * chunk);
            QVERIFY2(q(s.equation)
                         .startsWith(QStringLiteral("partial_%1 = a[:, %2] @ "
                                                    "kernel2[%2, :]")
                                         .arg(g)
                                         .arg(slice)),
                     s.equation.c_str());
            QVERIFY(!s.complete && !s.biasIn);
        }
        const TimelineStep& last = loop.at(loop.lastStep());
        QVERIFY(last.phase == StepPhase::SumPartials);
        QVERIFY(last.complete && last.biasIn);
        QVERIFY(q(last.equation).contains(QStringLiteral("+ bias2")));
        QVERIFY(q(last.caption).contains(QStringLiteral("bias2 added once")));
        QVERIFY(q(loop.at(2).caption)
                    .startsWith(QStringLiteral("Step 2 of %1: ").arg(loop.lastStep())));
    }

    // The words of the step where device 1's GeLU runs, whole.
    void theGeluStepSaysWhatItComputes() {
        const Timeline loop = loopTimeline(block(4));
        const TimelineStep& s = loop.at(2);
        QCOMPARE(q(s.equation), QStringLiteral("h[:, 8:16] = x @ kernel1[:, 8:16] + bias1[8:16];  "
                                               "a[:, 8:16] = gelu(h[:, 8:16])   (2x8 @ 8x8 + 8)"));
        QCOMPARE(q(s.caption),
                 QStringLiteral("Step 2 of 9: device 1 computes hidden features 8:16: its slice "
                                "of h, then the GeLU of that slice, all that linear2's rows 8:16 "
                                "will need"));
    }

    // Each mistake's loop says its wrong computation and where it ends.
    void theMistakesLoopsSayTheirComputation() {
        const LayerConfig c = block(4);
        const Timeline bias2 = loopTimeline(c, Mistake::Bias2PerPartial);
        QCOMPARE(bias2.size(), 10);
        QVERIFY(q(bias2.at(5).equation).contains(QStringLiteral("@ kernel2[0:8, :] + bias2")));
        QVERIFY(q(bias2.at(9).caption).contains(QStringLiteral("already in each of the 4")));

        const Timeline rtc = loopTimeline(c, Mistake::RowThenColumn);
        QCOMPARE(rtc.size(), 10);  // start, 4 linear1, the GeLUs' sum, 4 linear2
        QCOMPARE(q(rtc.at(1).equation),
                 QStringLiteral("h_0 = x[:, 0:2] @ kernel1[0:2, :] + bias1;  gelu(h_0)   (2x2 @ "
                                "2x32 + 32)"));
        QVERIFY(!q(rtc.at(2).equation).contains(QStringLiteral("bias1")));
        QVERIFY(rtc.at(5).phase == StepPhase::HiddenShared && rtc.at(5).mlp.hiddenShared);
        QVERIFY(
            q(rtc.at(5).equation)
                .startsWith(QStringLiteral("a = gelu(h_0) + gelu(h_1) + gelu(h_2) + gelu(h_3)")));
        QVERIFY(q(rtc.at(5).caption).contains(QStringLiteral("not the GeLU of h")));
        QVERIFY(
            q(rtc.at(6).equation).startsWith(QStringLiteral("y[:, 0:2] = a @ kernel2[:, 0:2]")));
        QVERIFY(!rtc.at(8).complete && rtc.at(9).complete);

        const Timeline gather = loopTimeline(c, Mistake::GatherBetween);
        QVERIFY(gather.at(5).phase == StepPhase::HiddenShared);
        QVERIFY(q(gather.at(5).caption).contains(QStringLiteral("all-gathered")));
    }

    // With the backward: dy (and dbias2 once), linear2's row backward per device, the GeLU's
    // derivative, linear1's column backward per device, dx summed: Megatron's f.
    void theBackwardGoesBackThroughBothLayers() {
        const LayerConfig c = block(4);
        const Timeline forward = loopTimeline(c);
        const Timeline loop = loopTimeline(c, Mistake::None, true);
        QCOMPARE(loop.size(), forward.size() + 2 * 4 + 3);
        int k = forward.size();
        QVERIFY(loop.at(k).phase == StepPhase::DyArrives && loop.at(k).mlp.dbias2In);
        QVERIFY(q(loop.at(k).equation).contains(QStringLiteral("dbias2 = dy.sum(0), once")));
        for (int g = 0; g < 4; ++g) {
            const TimelineStep& s = loop.at(++k);
            QVERIFY(s.phase == StepPhase::Linear2Gradients && s.backward);
            QCOMPARE(s.mlp.dkernel2Done, g + 1);
            QVERIFY(q(s.caption).contains(QStringLiteral("nothing to add")));
        }
        QVERIFY(loop.at(++k).phase == StepPhase::GeluGradient && loop.at(k).mlp.dhIn);
        QCOMPARE(q(loop.at(k).equation).left(17), QStringLiteral("dh = da * gelu'(h"));
        for (int g = 0; g < 4; ++g) {
            const TimelineStep& s = loop.at(++k);
            QVERIFY(s.phase == StepPhase::Linear1Gradients);
            QCOMPARE(s.mlp.dkernel1Done, g + 1);
            QVERIFY(q(s.equation).contains(QStringLiteral("dx_%1 = dh[:, ").arg(g)));
            QVERIFY(!s.dxIn);
        }
        const TimelineStep& last = loop.at(++k);
        QCOMPARE(k, loop.lastStep());
        QVERIFY(last.phase == StepPhase::SumDx && last.dxIn);
        QVERIFY(q(last.equation).startsWith(QStringLiteral("dx = dx_0 + dx_1 + dx_2 + dx_3")));
        QVERIFY(q(last.caption).contains(QStringLiteral("Megatron's f")));
    }

    // The mesh: both layers at once, then the all-reduce's ring steps with bias2 between its
    // halves; the backward's three gradient steps and dx's all-reduce.
    void theMeshProgramRunsTheAllReduce() {
        const LayerConfig c = block(4);
        const Timeline program = meshProgram(c, Mistake::None, true);
        QVERIFY(program.at(1).phase == StepPhase::Linear1Gelu && program.at(1).mlp.hiddenDone == 4);
        QCOMPARE(program.at(1).currentGroup, -1);
        QVERIFY(program.at(2).phase == StepPhase::Linear2Computes);
        // Every device's linear2 is in, as at the loop's last linear2 step (the Groups dock says
        // so on either tab).
        QCOMPARE(program.at(1).groupsDone, 0);
        QCOMPARE(program.at(2).groupsDone, 4);
        QCOMPARE(program.at(2).mlp.linear2Done, 4);
        // reduce-scatter 3, bias2, all-gather 3
        for (int k = 0; k < 7; ++k) {
            const TimelineStep& s = program.at(3 + k);
            QCOMPARE(s.ringStep, k);
            QCOMPARE(s.collective.blockIndex, 0);
            QCOMPARE(q(s.collective.of), QStringLiteral("the partial sums"));
            QVERIFY(s.collective.kind == CollectiveKind::AllReduce);
            QCOMPARE(s.complete, k == 6);
        }
        QVERIFY(program.at(6).phase == StepPhase::AddBias && program.at(6).biasIn);
        QVERIFY(!program.at(5).biasIn);
        QVERIFY(q(program.at(3).caption).contains(QStringLiteral("(Megatron's g)")));
        QCOMPARE(q(program.at(6).equation),
                 QStringLiteral("device m adds bias2[chunk m] once to its reduced chunk m"));
        QCOMPARE(countPhase(program, StepPhase::Linear2Gradients), 1);
        QCOMPARE(countPhase(program, StepPhase::GeluGradient), 1);
        QCOMPARE(countPhase(program, StepPhase::Linear1Gradients), 1);
        const TimelineStep& last = program.at(program.lastStep());
        QCOMPARE(q(last.collective.of), QStringLiteral("dx"));
        QCOMPARE(last.collective.blockIndex, 1);
        QVERIFY(last.dxIn);
        QCOMPARE(program.size(), 3 + 7 + 4 + 6);
        // One device: nothing to move, the output is in once linear2 ran.
        const Timeline one = meshProgram(block(1));
        QCOMPARE(one.size(), 3);
        QVERIFY(one.at(2).complete);
    }

    // gather-between's mesh: a's all-gather between the layers, y's after linear2.
    void gatherBetweensMeshGathersTwice() {
        const Timeline program = meshProgram(block(4), Mistake::GatherBetween);
        QCOMPARE(program.size(), 2 + 3 + 1 + 3);
        QCOMPARE(q(program.at(2).collective.of), QStringLiteral("a"));
        QVERIFY(program.at(4).mlp.hiddenShared);
        QVERIFY(program.at(5).phase == StepPhase::Linear2Computes);
        QCOMPARE(q(program.at(6).collective.of), QStringLiteral("y"));
        QVERIFY(program.at(8).complete && !program.at(7).complete);
    }

    // Every collective the programs draw, run on the devices' buffers, agrees with the split.
    void theBlocksRingsAgreeWithTheSplit_data() {
        QTest::addColumn<int>("mistake");
        for (const Mistake m : {Mistake::None, Mistake::Bias2PerPartial, Mistake::GatherBetween,
                                Mistake::RowThenColumn})
            QTest::addRow("%s", std::string(toString(m)).c_str()) << int(m);
    }
    void theBlocksRingsAgreeWithTheSplit() {
        QFETCH(int, mistake);
        LayerConfig c = block(4);
        c.bias = BiasInit{BiasInit::Kind::Normal, 0.5f};
        const Mistake m = Mistake(mistake);
        const bool backward = m == Mistake::None;
        const std::optional<Scene> scene = computeScene({c, SceneSource::Nnx, {m, {}, backward}});
        QVERIFY(scene && scene->mlp);
        const SceneCosts costs = computeSceneCosts(*scene, defaultHardware());
        const MlpScene& s = *scene->mlp;
        QCOMPARE(costs.blockRings.size(), s.costs.collectives.size());
        QVERIFY(!costs.blockRings.empty());
        for (std::size_t i = 0; i < costs.blockRings.size(); ++i) {
            const RingRun& run = costs.blockRings[i];
            QVERIFY2(run.simulated, run.note.c_str());
            QVERIFY2(run.check.passed(), s.costs.collectives[i].of.c_str());
            QVERIFY(run.stepBuffersKept);
        }
        // The program's ring steps are the runs' steps, one for one.
        const Timeline program = meshProgram(*scene);
        for (const TimelineStep& step : program.steps)
            if (step.ringStep >= 0)
                QVERIFY(
                    step.ringStep <
                    int(costs.blockRings.at(std::size_t(step.collective.blockIndex)).steps.size()));
        QVERIFY(costs.estimate.totalSeconds > 0);
    }

    // Past the memory budget the rings are not run, and say why.
    void aRingPastTheBudgetIsNotRun() {
        LayerConfig c = block(4);
        const std::optional<Scene> scene = computeScene({c});
        c.memoryBudgetBytes = mlpBytesNeeded(c) + 8;
        const MlpScene& s = *scene->mlp;
        const std::vector<RingRun> runs =
            runMlpRings(c, Mistake::None, s.params, s.split, s.costs, nullptr);
        QCOMPARE(runs.size(), std::size_t(1));
        QVERIFY(!runs[0].simulated);
        QVERIFY(q(runs[0].note).startsWith(QStringLiteral("not simulated: the devices' buffers")));
    }
};

QTEST_APPLESS_MAIN(TestTimelineMlp)
#include "tst_timeline_mlp.moc"
