// The fsdp and sequence layouts' mesh programs (scene/layout_timeline.h): every collective of
// layoutCollectives runs ring step by ring step, in its order, around the devices' computing; the
// state the steps leave (the output complete, the bias in once, every gradient whole) is the
// tensor layout's; and the words of a step say what the layout does.

#include "config_fixtures.h"
#include "devices/layout_costs.h"
#include "scene/layout_timeline.h"

#include <QTest>

using namespace tp;

namespace {

LayerConfig layer(ParallelMode mode, ShardingLayout layout, std::int64_t tp, std::int64_t data) {
    LayerConfig c = test::meshConfig(mode, 8, 16, 24, tp, data, OutputLayout::Sharded);
    c.output.reset();
    c.layout = layout;
    return c;
}

int countPhase(const Timeline& t, StepPhase phase) {
    return int(std::count_if(t.steps.begin(), t.steps.end(),
                             [phase](const TimelineStep& s) { return s.phase == phase; }));
}

}  // namespace

class TestLayoutTimeline : public QObject {
    Q_OBJECT

private slots:
    void program_data() {
        QTest::addColumn<int>("mode");
        QTest::addColumn<int>("layout");
        QTest::addColumn<int>("tp");
        QTest::addColumn<int>("data");
        QTest::addColumn<bool>("backward");
        for (const int mode : {0, 1})
            for (const int layout : {1, 2})
                for (const int tp : {1, 2, 4})
                    for (const int data : {1, 2})
                        for (const bool backward : {false, true})
                            QTest::addRow("%s %s tp%d D%d %s", mode ? "row" : "column",
                                          layout == 1 ? "fsdp" : "sequence", tp, data,
                                          backward ? "backward" : "forward")
                                << mode << layout << tp << data << backward;
    }
    void program() {
        QFETCH(int, mode);
        QFETCH(int, layout);
        QFETCH(int, tp);
        QFETCH(int, data);
        QFETCH(bool, backward);
        const LayerConfig c = layer(mode ? ParallelMode::Row : ParallelMode::Column,
                                    ShardingLayout(layout), tp, data);
        QVERIFY(c.validate().empty());
        const Timeline t = layoutMeshProgram(c, backward);
        QCOMPARE(meshProgram(c, Mistake::None, backward).size(), t.size());
        const std::vector<LayoutCollective> program = layoutCollectives(c, backward);

        // Each collective's ring steps, in the program's order (row mode's output collective
        // with its bias step).
        std::vector<int> steps(program.size(), 0);
        int last = -1;
        for (const TimelineStep& s : t.steps) {
            if (s.ringStep < 0)
                continue;
            const int index = s.collective.layoutIndex;
            QVERIFY2(index >= 0 && index < int(program.size()), qPrintable(QString::number(index)));
            QVERIFY(index >= last);
            last = index;
            QCOMPARE(s.collective.of == "y" || s.collective.of == "the partial sums"
                         ? std::string("output")
                         : s.collective.of,
                     program[std::size_t(index)].of);
            QVERIFY(s.collective.axis == program[std::size_t(index)].axis);
            ++steps[std::size_t(index)];
        }
        for (std::size_t i = 0; i < program.size(); ++i) {
            const bool bias = program[i].of == "output" && mode == 1;
            QCOMPARE(steps[i], int(program[i].cost.ringSteps) + (bias ? 1 : 0));
        }

        // The devices compute once a pass, after the forward's gathers; the output is complete
        // and the bias in by the forward's end; with the backward, every gradient is whole.
        QCOMPARE(countPhase(t, StepPhase::AllCompute), 1);
        QCOMPARE(countPhase(t, StepPhase::AllGradients), backward ? 1 : 0);
        const auto compute = std::find_if(t.steps.begin(), t.steps.end(), [](const auto& s) {
            return s.phase == StepPhase::AllCompute;
        });
        for (auto s = t.steps.begin(); s != compute; ++s)
            QVERIFY(s->ringStep < 0 || s->collective.of == "kernel" || s->collective.of == "bias" ||
                    s->collective.of == "x");
        const auto forwardEnd =
            std::find_if(t.steps.begin(), t.steps.end(), [](const auto& s) { return s.backward; });
        QVERIFY((forwardEnd - 1)->complete && (forwardEnd - 1)->biasIn);
        QCOMPARE(int(std::count_if(t.steps.begin(), t.steps.end(),
                                   [](const auto& s) { return !s.biasAdded.empty(); })),
                 1);
        if (backward) {
            const TimelineStep& end = t.steps.back();
            QVERIFY(end.dxIn && end.dkernelIn && end.dbiasIn);
        }
        QVERIFY(t.steps.back().caption.starts_with("Step " + std::to_string(t.lastStep()) + " of " +
                                                   std::to_string(t.lastStep())));
    }

    // FSDP's chunks on a device: its own at rest, one more each ring step of the gather, all of
    // them until the devices have computed, its own again once the gathered block is freed.
    void fsdpChunks() {
        LayerConfig c = layer(ParallelMode::Row, ShardingLayout::Fsdp, 2, 4);
        c.output = OutputLayout::Replicated;  // an all-reduce after the product
        QVERIFY(c.validate().empty());
        const Timeline t = layoutMeshProgram(c, false);
        const auto held = [&](int step, int d) {
            QString text;
            for (const bool chunk : fsdpChunksHeld(t, step, "kernel", d, 4))
                text += chunk ? '1' : '0';
            return text;
        };
        // Steps: start, the kernel's 3 ring steps, the bias's 3, compute, the all-reduce's 2 and
        // its bias step.
        QCOMPARE(t.at(1).collective.of, std::string("kernel"));
        QCOMPARE(held(0, 2), QString("0010"));
        QCOMPARE(held(1, 2), QString("0110"));
        QCOMPARE(held(2, 2), QString("1110"));
        QCOMPARE(held(3, 0), QString("1111"));
        QCOMPARE(held(7, 1), QString("1111"));  // the devices compute
        QCOMPARE(t.at(7).phase, StepPhase::AllCompute);
        QCOMPARE(held(8, 3), QString("0001"));  // freed during the all-reduce
        QCOMPARE(fsdpChunksHeld(t, 4, "bias", 1, 4), (std::vector<bool>{true, true, false, false}));
        const Timeline sequence =
            layoutMeshProgram(layer(ParallelMode::Column, ShardingLayout::Sequence, 2, 2), false);
        QCOMPARE(fsdpChunksHeld(sequence, 0, "kernel", 1, 2), (std::vector<bool>{true, true}));
    }

    void words() {
        const Timeline fsdp =
            layoutMeshProgram(layer(ParallelMode::Column, ShardingLayout::Fsdp, 2, 2), true);
        QCOMPARE(fsdp.at(0).caption,
                 std::string("Step 0 of 10: start (fsdp); each of the 4 devices keeps 1/2 of its "
                             "kernel block's rows and of its bias block, and its batch rows of x"));
        QCOMPARE(fsdp.at(1).caption,
                 std::string("Step 1 of 10: all-gather of kernel over \"data\" (fsdp: gathered "
                             "just before use, freed after), all-gather ring step 1 of 1 over 2 "
                             "devices per model column"));
        QCOMPARE(fsdp.at(1).collective.backwardIndex, -1);
        // The backward: the kernel gathered again, dx all-reduced as in the tensor layout (its
        // run is the tensor layout's), then the gradients reduce-scattered over "data".
        QStringList backward;
        for (const TimelineStep& s : fsdp.steps)
            if (s.backward && s.ringStep >= 0)
                backward << QString::fromStdString(describe(s.collective));
        QCOMPARE(backward,
                 (QStringList{"all-gather of kernel over \"data\"",
                              "all-reduce of dx over \"model\"", "all-reduce of dx over \"model\"",
                              "reduce-scatter of dkernel over \"data\"",
                              "reduce-scatter of dbias over \"data\""}));
        QVERIFY(fsdp.at(9).caption.find("fsdp: each device keeps its 1/2") != std::string::npos);

        const Timeline rows =
            layoutMeshProgram(layer(ParallelMode::Row, ShardingLayout::Sequence, 2, 1), false);
        QCOMPARE(rows.at(2).caption,
                 std::string("Step 2 of 3: reduce-scatter ring step 1 of 1 over 2 devices per "
                             "data row (sequence parallelism: the chunks are batch rows)"));
        QCOMPARE(rows.at(3).biasAdded.size(), std::size_t(1));
        QCOMPARE(rows.at(3).biasAdded[0].size(), Index(24));
    }
};

QTEST_APPLESS_MAIN(TestLayoutTimeline)
#include "tst_layout_timeline.moc"
