// The Devices tab's mesh program going on past the forward when the backward pass is asked for:
// dy arrives, dy's all-gather (row + sharded), every device's gradients at once, then each backward
// collective ring step by ring step; and the pairs of forward and backward collectives read off
// the programs of both modes (Megatron's f and g).

#include "config_fixtures.h"
#include "scene/collective_pairs.h"
#include "scene/timeline.h"

#include <QTest>

using namespace tp;

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

void addMeshRows() {
    QTest::addColumn<int>("mode");
    QTest::addColumn<int>("layout");
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("data");
    for (const int mode : {0, 1})
        for (const int layout : {0, 1})
            for (const int tp : {1, 2, 4})
                for (const int data : {1, 2})
                    QTest::addRow("%s %s tp%d D%d", mode == 0 ? "column" : "row",
                                  layout == 0 ? "sharded" : "replicated", tp, data)
                        << mode << layout << tp << data;
}

LayerConfig rowConfig(int mode, int layout, int tp, int data) {
    return test::meshConfig(mode == 0 ? ParallelMode::Column : ParallelMode::Row, 4, 8, 12, tp,
                            data, layout == 0 ? OutputLayout::Sharded : OutputLayout::Replicated);
}

}  // namespace

class TestMeshBackward : public QObject {
    Q_OBJECT

private slots:
    // The forward's steps stay as they are; the backward's follow in backwardCollectives' order,
    // each collective with its ring steps, and every gradient whole at the step that makes it so.
    void theBackwardFollowsTheForwardOnTheMesh_data() { addMeshRows(); }
    void theBackwardFollowsTheForwardOnTheMesh() {
        QFETCH(int, mode);
        QFETCH(int, layout);
        QFETCH(int, tp);
        QFETCH(int, data);
        const LayerConfig c = rowConfig(mode, layout, tp, data);
        QVERIFY(c.validate().empty());
        const bool column = c.mode == ParallelMode::Column;
        const Timeline forward = meshProgram(c);
        const Timeline program = meshProgram(c, Mistake::None, true);
        for (int k = 0; k < forward.size(); ++k) {
            QCOMPARE(q(program.at(k).equation), q(forward.at(k).equation));
            QVERIFY(!program.at(k).backward);
        }
        const std::vector<BackwardCollective> collectives = backwardCollectives(c);
        int ringSteps = 0;
        for (const BackwardCollective& b : collectives)
            ringSteps += int(b.cost.ringSteps);
        QCOMPARE(program.size(), forward.size() + 2 + ringSteps);  // dy, the gradients, the rings

        int k = forward.size();
        QVERIFY(program.at(k).phase == StepPhase::DyArrives);
        QCOMPARE(program.at(k).gradientGroupsDone, 0);
        ++k;
        int index = 0;
        const auto walkRing = [&](const BackwardCollective& b) {
            const int devices = int(b.axis == MeshAxis::Model ? c.tpSize : c.dataSize);
            for (int s = 0; s < b.cost.ringSteps; ++s, ++k) {
                const TimelineStep& step = program.at(k);
                QVERIFY(step.phase == StepPhase::RingStep);
                QVERIFY(step.backward);
                QCOMPARE(step.ringStep, s);
                QCOMPARE(step.collective.backwardIndex, index);
                QVERIFY(step.collective.kind == b.cost.kind);
                QVERIFY(step.collective.axis == b.axis);
                QCOMPARE(q(step.collective.of), q(b.of));
                QCOMPARE(step.collective.devices, devices);
                const RingStepInfo info = ringStepInfo(b.cost.kind, devices, s);
                QVERIFY(step.ring.phase == info.phase);
                QCOMPARE(step.ring.indexInPhase, info.indexInPhase);
                QVERIFY2(q(step.caption).contains(q(describe(step.collective))),
                         qPrintable(q(step.caption)));
                QVERIFY2(q(step.equation).startsWith(q(b.of + " ")), qPrintable(q(step.equation)));
                // Each gradient is whole once its own collective's last step is done.
                const bool last = s + 1 == b.cost.ringSteps;
                if (b.of == "dx")
                    QCOMPARE(step.dxIn, last);
                if (b.of == "dkernel")
                    QCOMPARE(step.dkernelIn, last);
                if (b.of == "dbias")
                    QCOMPARE(step.dbiasIn, last);
            }
            ++index;
        };
        if (!collectives.empty() && collectives.front().of == "dy") {
            QVERIFY(!column && c.outputLayout() == OutputLayout::Sharded);
            walkRing(collectives.front());
            QCOMPARE(program.at(k - 1).gradientGroupsDone, 0);  // the gradients wait for dy
        }
        const TimelineStep& all = program.at(k);
        QVERIFY(all.phase == StepPhase::AllGradients);
        QCOMPARE(all.gradientGroupsDone, tp);
        QCOMPARE(all.dxIn, !column || tp == 1);
        QCOMPARE(all.dkernelIn, data == 1);
        QCOMPARE(all.dbiasIn, data == 1);
        ++k;
        for (; index < int(collectives.size());)
            walkRing(collectives[std::size_t(index)]);
        QCOMPARE(k, program.size());
        const TimelineStep& end = program.at(program.lastStep());
        QVERIFY(end.dxIn && end.dkernelIn && end.dbiasIn && end.complete);
        for (const TimelineStep& s : program.steps)
            QVERIFY(q(s.caption).startsWith(
                QStringLiteral("Step %1 of %2: ").arg(s.step).arg(program.lastStep())));
    }

    // The words of the steps that move nothing, for 4x8 @ 8x12 at tp 4, D 2.
    void theDevicesStepsSayWhatMoves() {
        const LayerConfig column = rowConfig(0, 1, 4, 2);  // replicated output
        const Timeline c = meshProgram(column, Mistake::None, true);
        const int dy = meshProgram(column).size();
        QCOMPARE(q(c.at(dy).caption),
                 QStringLiteral("Step %1 of %2: dy arrives as y is laid out: each device holds its "
                                "batch rows of all of it and takes its own columns: nothing moves "
                                "(the all-gather's conjugate)")
                     .arg(dy)
                     .arg(c.lastStep()));
        QCOMPARE(q(c.at(dy + 1).equation),
                 QStringLiteral("dkernel[:, cols m] = x[rows d]^T @ dy[rows d, cols m];  dx_m[rows "
                                "d] = dy[rows d, cols m] @ kernel[:, cols m]^T   (8x2 @ 2x3; 2x3 "
                                "@ 3x8 on every device (d, m) at once)"));
        QCOMPARE(q(c.at(dy + 2).equation),
                 QStringLiteral("dx reduce-scatter 1/3: device m sends chunk (m - 1) mod 4 to "
                                "device (m + 1) mod 4, which adds it to its own"));
        QVERIFY(q(c.at(dy + 2).caption)
                    .endsWith("all-reduce of dx over \"model\" (Megatron's f), reduce-scatter "
                              "ring step 1 of 3 over 4 devices per data row"));
        const int data = dy + 2 + 6;  // dkernel's all-reduce over "data", after dx's 6 steps
        QCOMPARE(q(c.at(data).equation),
                 QStringLiteral("dkernel reduce-scatter 1/1: device d sends chunk (d - 1) mod 2 to "
                                "device (d + 1) mod 2, which adds it to its own"));
        QVERIFY(q(c.at(data).caption).endsWith("over 2 devices per model column"));

        const LayerConfig row = rowConfig(1, 0, 4, 1);  // sharded: dy all-gathered
        const Timeline r = meshProgram(row, Mistake::None, true);
        const int rowDy = meshProgram(row).size();
        QVERIFY2(q(r.at(rowDy).caption).contains("the all-gather brings the rest"),
                 qPrintable(q(r.at(rowDy).caption)));
        QCOMPARE(
            q(r.at(rowDy + 1).equation),
            QStringLiteral("dy all-gather 1/3: device m sends chunk m to device (m + 1) mod 4"));
        QVERIFY(q(r.at(rowDy + 4).caption).contains("nothing to add over \"model\""));
    }

    void ringStepsOfABackwardCollective() {
        const RingStepInfo gather = ringStepInfo(CollectiveKind::AllGather, 4, 2);
        QVERIFY(gather.phase == RingPhase::AllGather);
        QCOMPARE(gather.indexInPhase, 2);
        QCOMPARE(gather.phaseSteps, 3);
        const RingStepInfo second = ringStepInfo(CollectiveKind::AllReduce, 4, 4);
        QVERIFY(second.phase == RingPhase::AllGather);
        QCOMPARE(second.indexInPhase, 1);
        QVERIFY(ringStepInfo(CollectiveKind::AllReduce, 2, 0).phase == RingPhase::ReduceScatter);
    }

    // Each collective of a program once, in order, the forward's and the backward's apart.
    void aProgramsCollectivesAreTheCoresOwn_data() { addMeshRows(); }
    void aProgramsCollectivesAreTheCoresOwn() {
        QFETCH(int, mode);
        QFETCH(int, layout);
        QFETCH(int, tp);
        QFETCH(int, data);
        const LayerConfig c = rowConfig(mode, layout, tp, data);
        const ProgramCollectives read = programCollectives(meshProgram(c, Mistake::None, true));
        const CollectiveKind output = collectiveFor(c.mode, c.outputLayout(), c.tpSize);
        QCOMPARE(int(read.forward.size()), output == CollectiveKind::None ? 0 : 1);
        if (!read.forward.empty()) {
            QVERIFY(read.forward.front().kind == output);
            QCOMPARE(read.forward.front().backwardIndex, -1);
        }
        const std::vector<BackwardCollective> expected = backwardCollectives(c);
        QCOMPARE(read.backward.size(), expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) {
            QVERIFY(read.backward[i].kind == expected[i].cost.kind);
            QVERIFY(read.backward[i].axis == expected[i].axis);
            QCOMPARE(q(read.backward[i].of), q(expected[i].of));
            QCOMPARE(read.backward[i].backwardIndex, int(i));
        }
        QVERIFY(programCollectives(meshProgram(c)).backward.empty());
    }

    // One line per mode over "model", then the one over "data" when D > 1; each says what the
    // program runs and how the two passes pair.
    void theLinesPairEachForwardCollectiveWithItsConjugate() {
        LayerConfig defaults = rowConfig(0, 0, 4, 1);
        defaults.output.reset();  // each mode's own default layout
        const std::vector<CollectivePairLine> lines = collectivePairLines(defaults);
        QCOMPARE(int(lines.size()), 2);
        QVERIFY(lines[0].mode == ParallelMode::Column && lines[1].mode == ParallelMode::Row);
        QCOMPARE(q(lines[0].forward), QStringLiteral("nothing"));
        QCOMPARE(q(lines[0].backward), QStringLiteral("all-reduce of dx over \"model\""));
        QVERIFY2(q(lines[0].pair).startsWith("f: the identity forward"),
                 qPrintable(q(lines[0].pair)));
        // Row, its default (replicated) layout: g.
        QCOMPARE(q(lines[1].forward),
                 QStringLiteral("all-reduce of the partial sums over \"model\""));
        QCOMPARE(q(lines[1].backward), QStringLiteral("nothing"));
        QVERIFY2(q(lines[1].pair).startsWith("g: an all-reduce forward, the identity backward"),
                 qPrintable(q(lines[1].pair)));

        // A replicated output: column gathers y; a sharded one: row answers its reduce-scatter
        // with dy's all-gather.
        const auto gathered = collectivePairLines(rowConfig(0, 1, 4, 1));
        QCOMPARE(q(gathered[0].forward), QStringLiteral("all-gather of y over \"model\""));
        QVERIFY(q(gathered[0].pair).contains("the all-gather's conjugate is a slice"));
        const auto scattered = collectivePairLines(rowConfig(1, 0, 4, 1));
        QCOMPARE(q(scattered[1].backward), QStringLiteral("all-gather of dy over \"model\""));
        QVERIFY(q(scattered[1].pair).contains("the reduce-scatter's conjugate is the all-gather"));

        // D 2: the data axis's line last, the same in both modes.
        const auto mesh = collectivePairLines(rowConfig(1, 1, 2, 2));
        QCOMPARE(int(mesh.size()), 3);
        QVERIFY(mesh[2].axis == MeshAxis::Data);
        QCOMPARE(q(mesh[2].backward), QStringLiteral("all-reduce of dkernel over \"data\", "
                                                     "all-reduce of dbias over \"data\""));
        QVERIFY(q(mesh[2].pair).startsWith("f over \"data\""));

        // tp 1 moves nothing over "model"; a mode the sizes cannot split still gets its line.
        const auto one = collectivePairLines(rowConfig(0, 0, 1, 1));
        QCOMPARE(q(one[0].pair), QStringLiteral("one device per data row: nothing to pair"));
        LayerConfig odd = rowConfig(0, 0, 3, 1);
        odd.inDim = 7;  // column splits 12 features 3 ways; row cannot split in_dim 7
        odd.output.reset();
        QVERIFY(odd.validate().empty());
        const auto other = collectivePairLines(odd);
        QVERIFY(q(other[1].pair).startsWith("g:"));
    }
};

QTEST_MAIN(TestMeshBackward)
#include "tst_mesh_backward.moc"
