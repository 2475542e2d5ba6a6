// The Devices tab with the backward pass: each device's gradients where its arrays stood, dy as the
// output arrived, the backward's rings step by step along "model" and along "data" (their arrows
// and the buffers they fill, the core's own runs), the pairs of forward and backward collectives,
// and the backward's bytes in the costs panel.

#include "config_fixtures.h"
#include "devices/backward_costs.h"
#include "devices/costs_panel.h"
#include "devices/device_card.h"
#include "devices/devices_view.h"
#include "main_window.h"
#include "palette.h"
#include "scene/collective_pairs.h"
#include "scene/scene_backward.h"
#include "scene/scene_request.h"
#include "scene/timeline.h"
#include "steps/step_controller.h"

#include <QComboBox>
#include <QLabel>
#include <QTabWidget>
#include <QTest>

#include <bit>
#include <cmath>
#include <cstdint>

using namespace tp;

namespace {

// The arrays of a card at a backward step.
enum Gradient { DKernel = 0, DBias = 1, Dx = 2, Dy = 3 };

ScenePtr backwardScene(const LayerConfig& c) {
    SceneRun run;
    run.backward = true;
    return std::make_shared<const Scene>(*computeScene({c, SceneSource::Nnx, run}));
}

LayerConfig mesh(ParallelMode mode, std::int64_t tp, std::int64_t data, OutputLayout layout) {
    return test::meshConfig(mode, 4, 8, 12, tp, data, layout);
}

// The first step of `program` with `phase`, or of the ring of backward collective `of`.
int firstStep(const Timeline& program, StepPhase phase, const std::string& of = {}) {
    for (const TimelineStep& s : program.steps)
        if (s.phase == phase && (of.empty() || (s.ringStep >= 0 && s.collective.of == of)))
            return s.step;
    return -1;
}

// Every element of a view equals the matrix block's, bit for bit.
template <typename Block>
bool sameBits(const MatrixData& shown, const Block& expected) {
    if (shown.rows() != expected.rows() || shown.cols() != expected.cols())
        return false;
    for (Index r = 0; r < expected.rows(); ++r)
        for (Index c = 0; c < expected.cols(); ++c)
            if (std::bit_cast<std::uint32_t>(shown(r, c)) !=
                std::bit_cast<std::uint32_t>(float(expected(r, c))))
                return false;
    return true;
}

int held(const MatrixData& m) {
    int count = 0;
    for (Index c = 0; c < m.cols(); ++c)
        count += !std::isnan(m(0, c));
    return count;
}

int mod(int a, int p) {
    return ((a % p) + p) % p;
}

}  // namespace

class TestDevicesBackward : public QObject {
    Q_OBJECT

private slots:
    // dy first, then every device's gradients at one step: column mode's partial dx, and with
    // D 2 the blocks of its own batch rows, still to be summed over "data".
    void theGradientsAppearWhenEveryDeviceComputesThem() {
        const LayerConfig c = mesh(ParallelMode::Column, 4, 2, OutputLayout::Sharded);
        const ScenePtr scene = backwardScene(c);
        const SceneBackward& b = *scene->backward;
        DevicesView view;
        view.resize(1400, 900);
        view.show();
        view.setScene(scene);
        const Timeline& program = view.deviceScene().program;
        QCOMPARE(program.size(), meshProgram(c, Mistake::None, true).size());
        const int dy = firstStep(program, StepPhase::DyArrives);
        QCOMPARE(dy, meshProgram(c).size());
        view.setStep(dy);
        const DeviceHoldingsView& arrived = view.card(1, 2)->holdings();
        QCOMPARE(int(arrived.arrays.size()), 4);
        for (const int g : {DKernel, DBias, Dx})
            QVERIFY(arrived.arrays[std::size_t(g)].data.isEmpty());
        QCOMPARE(arrived.arrays[Dy].name, QStringLiteral("dy[2:4, 6:9]"));
        // A view of the scene's own dy, not a copy.
        QCOMPARE(arrived.arrays[Dy].data.data(), b.dy.data() + 2 * c.features + 6);
        QCOMPARE(arrived.ringArray, -1);

        view.setStep(dy + 1);  // every device computes its gradients
        QVERIFY(program.at(dy + 1).phase == StepPhase::AllGradients);
        QVERIFY(view.arrows().empty());
        for (int d = 0; d < 2; ++d)
            for (int m = 0; m < 4; ++m) {
                const DeviceHoldingsView& h = view.card(d, m)->holdings();
                const IndexRange rows = batchRows(c, d);
                QCOMPARE(h.arrays[Dx].name,
                         QStringLiteral("dx_%1[%2:%3, :]").arg(m).arg(rows.start).arg(rows.stop));
                QCOMPARE(h.arrays[Dx].spec, QStringLiteral("partial over 'model'"));
                QVERIFY(sameBits(h.arrays[Dx].data,
                                 b.result.dxPartials[std::size_t(m)].middleRows(rows.start, 2)));
                QCOMPARE(h.arrays[DKernel].spec, QStringLiteral("partial over 'data'"));
                // x[rows d]^T @ dy[rows d, cols m], the block this device computed alone.
                const RingRun& run = b.rings[1];  // dx's, then dkernel's over "data"
                QCOMPARE(b.collectives[1].of, std::string("dkernel"));
                QVERIFY(sameBits(h.arrays[DKernel].data, run.device(run.initial, m, d)));
                QVERIFY(!sameBits(h.arrays[DKernel].data,
                                  b.result.dkernelBlock(b.result.plan.groups[std::size_t(m)])));
                QVERIFY(h.bytesText.endsWith(
                    QString::fromStdString(formatBytes(backwardHoldings(c).totalBytes()))));
            }
    }

    // dx's all-reduce along "model": each ring step's arrows between neighbours of a data row
    // and every device's dx buffer as the core's ring left it; at the end every device holds its
    // rows of dx.
    void dxIsAllReducedRingStepByRingStep() {
        const LayerConfig c = mesh(ParallelMode::Column, 4, 2, OutputLayout::Replicated);
        const ScenePtr scene = backwardScene(c);
        const SceneBackward& b = *scene->backward;
        QCOMPARE(b.collectives[0].of, std::string("dx"));
        const RingRun& run = b.rings[0];
        QVERIFY(run.simulated && run.stepBuffersKept && run.check.passed());
        DevicesView view;
        view.resize(1400, 900);
        view.show();
        view.setScene(scene);
        const Timeline& program = view.deviceScene().program;
        const int first = firstStep(program, StepPhase::RingStep, "dx");
        for (int k = 0; k < 6; ++k) {
            view.setStep(first + k);
            const auto arrows = view.arrows();
            QCOMPARE(int(arrows.size()), 2 * 4);
            const RingStepInfo info = program.at(first + k).ring;
            for (const DeviceArrow& a : arrows) {
                QVERIFY(a.axis == MeshAxis::Model);
                QCOMPARE(a.to, (a.from + 1) % 4);
                QCOMPARE(a.chunk, ringChunkSent(info.phase, info.indexInPhase, a.from, 4));
            }
            for (int d = 0; d < 2; ++d)
                for (int m = 0; m < 4; ++m) {
                    const DeviceHoldingsView& h = view.card(d, m)->holdings();
                    QCOMPARE(h.ringArray, int(Dx));
                    QCOMPARE(h.sendsChunk, ringChunkSent(info.phase, info.indexInPhase, m, 4));
                    const Matrix& buffers = run.steps[std::size_t(k)].buffers;
                    QVERIFY(sameBits(h.arrays[Dx].data, run.device(buffers, d, m)));
                }
        }
        QVERIFY(program.at(first + 5).dxIn);
        view.setStep(first + 6);  // past the ring: dx whole on every device
        const DeviceHoldingsView& h = view.card(1, 3)->holdings();
        QCOMPARE(h.arrays[Dx].name, QStringLiteral("dx[2:4, :]"));
        QVERIFY(sameBits(h.arrays[Dx].data, run.device(run.final, 1, 3)));
        // Replicated output: each device holds its rows of all of dy and takes its own columns.
        QCOMPARE(h.arrays[Dy].name, QStringLiteral("dy[2:4, :]"));
        QCOMPARE(h.arrays[Dy].style.groups, (std::vector<IndexRange>{{9, 12}}));
    }

    // The all-reduces over "data": arrows run down each column and wrap back up, in the column's
    // group colour, into dkernel's and then dbias's blocks.
    void dkernelAndDbiasAreAllReducedDownTheColumns() {
        const LayerConfig c = mesh(ParallelMode::Row, 2, 2, OutputLayout::Replicated);
        const ScenePtr scene = backwardScene(c);
        const SceneBackward& b = *scene->backward;
        DevicesView view;
        view.resize(1200, 900);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setScene(scene);
        const Timeline& program = view.deviceScene().program;
        for (const auto& [of, array] : {std::pair{std::string("dkernel"), int(DKernel)},
                                        std::pair{std::string("dbias"), int(DBias)}}) {
            const int first = firstStep(program, StepPhase::RingStep, of);
            QVERIFY(first > 0);
            const TimelineStep& step = program.at(first);
            QVERIFY(step.collective.axis == MeshAxis::Data);
            const RingRun& run = b.rings[std::size_t(step.collective.backwardIndex)];
            view.setStep(first);
            const auto arrows = view.arrows();
            QCOMPARE(int(arrows.size()), 2 * 2);  // one ring of 2 devices per model column
            for (const DeviceArrow& a : arrows) {
                QVERIFY(a.axis == MeshAxis::Data);
                QCOMPARE(a.to, (a.from + 1) % 2);
                QCOMPARE(a.chunk, mod(a.from - 1, 2));  // reduce-scatter's first step
            }
            for (int d = 0; d < 2; ++d)
                for (int m = 0; m < 2; ++m) {
                    const DeviceHoldingsView& h = view.card(d, m)->holdings();
                    QCOMPARE(h.ringArray, array);
                    QVERIFY(sameBits(h.arrays[std::size_t(array)].data,
                                     run.device(run.steps[0].buffers, m, d)));
                }
            // The arrow into device (1, 0) runs down the gap between the rows, at the middle of
            // the card, in group 0's colour.
            const DeviceCard* top = view.card(0, 0);
            const DeviceCard* bottom = view.card(1, 0);
            QTRY_VERIFY(top->geometry().bottom() + 10 < bottom->y());
            const int x = top->x() + top->width() / 2;
            const int y = (top->geometry().bottom() + bottom->y()) / 2;
            QTRY_VERIFY(top->parentWidget()->grab().toImage().pixelColor(x, y) == groupColor(0));
        }
        view.setStep(program.lastStep());
        for (int m = 0; m < 2; ++m) {
            const DeviceHoldingsView& h = view.card(1, m)->holdings();
            QCOMPARE(h.arrays[DKernel].spec, QStringLiteral("P('model', None)"));
            QVERIFY(!h.arrays[DKernel].data.isEmpty() && !h.arrays[DBias].data.isEmpty());
        }
    }

    // Row + sharded: dy arrives one chunk per device, and its all-gather brings the rest before
    // any gradient is computed.
    void aShardedRowOutputsDyIsGatheredFirst() {
        const LayerConfig c = mesh(ParallelMode::Row, 4, 1, OutputLayout::Sharded);
        const ScenePtr scene = backwardScene(c);
        DevicesView view;
        view.resize(1400, 900);
        view.show();
        view.setScene(scene);
        const Timeline& program = view.deviceScene().program;
        const int dy = firstStep(program, StepPhase::DyArrives);
        view.setStep(dy);
        for (int m = 0; m < 4; ++m)
            QCOMPARE(held(view.card(0, m)->holdings().arrays[Dy].data), 3);  // its chunk of 12
        for (int k = 0; k < 3; ++k) {
            view.setStep(dy + 1 + k);
            QCOMPARE(int(view.arrows().size()), 4);
            for (int m = 0; m < 4; ++m) {
                const DeviceHoldingsView& h = view.card(0, m)->holdings();
                QCOMPARE(held(h.arrays[Dy].data), 3 * (k + 2));
                QCOMPARE(h.ringArray, int(Dy));
                QVERIFY(h.arrays[Dx].data.isEmpty());
            }
        }
        view.setStep(dy + 4);
        QVERIFY(program.at(dy + 4).phase == StepPhase::AllGradients);
        const DeviceHoldingsView& h = view.card(0, 1)->holdings();
        QCOMPARE(h.arrays[Dy].spec, QStringLiteral("P('data', None)"));
        QCOMPARE(h.arrays[Dx].name, QStringLiteral("dx[0:4, 2:4]"));  // its own slice
        QVERIFY(sameBits(h.arrays[Dx].data, scene->backward->result.gradients.dx.middleCols(2, 2)));
    }

    // With the backward the tab says which collectives each pass runs and how they pair, and the
    // costs panel adds the gradients' bytes and each backward collective's; without, neither.
    void thePairsAndTheBackwardsBytesShowWithTheBackward() {
        const LayerConfig c = mesh(ParallelMode::Column, 4, 2, OutputLayout::Sharded);
        DevicesView view;
        view.show();
        view.setScene(std::make_shared<const Scene>(*computeScene({c, SceneSource::Nnx})));
        QVERIFY(!view.pairsLabel()->isVisible());
        QVERIFY(!view.costsPanel()->backwardLabel()->isVisible());

        const ScenePtr scene = backwardScene(c);
        view.setScene(scene);
        QVERIFY(view.pairsLabel()->isVisible());
        const QString pairs = view.pairsLabel()->text();
        for (const CollectivePairLine& line : collectivePairLines(c))
            QVERIFY2(pairs.contains(QString::fromStdString(line.pair).toHtmlEscaped()),
                     qPrintable(pairs));
        QVERIFY(pairs.contains(QStringLiteral("<b>column</b>")));
        const CollectiveCheck& dx = scene->backward->rings[0].check;
        QVERIFY2(view.headerLabel()->text().contains(
                     QStringLiteral("all-reduce of dx over 'model': %1 of %2 elements "
                                    "bit-identical, passed")
                         .arg(dx.bitIdentical)
                         .arg(dx.elements)),
                 qPrintable(view.headerLabel()->text()));

        QLabel* backward = view.costsPanel()->backwardLabel();
        QVERIFY(backward->isVisible());
        for (const BackwardCollective& collective : scene->backward->collectives)
            QVERIFY2(backward->text().contains(QStringLiteral("%1 for the all-reduce of %2")
                                                   .arg(QString::fromStdString(formatBytes(
                                                       collective.cost.bytesSentPerDevice)))
                                                   .arg(QString::fromStdString(collective.of))),
                     qPrintable(backward->text()));
    }

    // In the window, the Devices tab's steps run on through the backward.
    void theWindowStepsThroughTheDevicesBackward() {
        MainWindow window(MainWindow::Options{.useSettings = false});
        const LayerConfig c = mesh(ParallelMode::Column, 4, 2, OutputLayout::Replicated);
        window.viewTabs()->setCurrentWidget(window.devicesView());
        window.show();
        window.showConfig(c, SceneSource::Nnx);
        QTRY_VERIFY(window.scene() && window.scene()->config.dataSize == 2);
        window.findChild<QComboBox*>("passBox")->setCurrentIndex(1);  // Forward + backward
        QTRY_VERIFY(window.scene() && window.scene()->backward);
        StepController* steps = window.stepController();
        const Timeline program = meshProgram(c, Mistake::None, true);
        QTRY_COMPARE(steps->stepCount(), program.size());
        const int first = firstStep(program, StepPhase::RingStep, "dx");
        steps->setStep(first);
        QCOMPARE(int(window.devicesView()->arrows().size()), 8);
        QVERIFY2(window.equationLabel()->text().startsWith("dx reduce-scatter 1/3"),
                 qPrintable(window.equationLabel()->text()));
    }
};

QTEST_MAIN(TestDevicesBackward)
#include "tst_devices_backward.moc"
